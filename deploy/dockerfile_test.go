package deploy

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/buildkit/frontend/dockerfile/linter"
	"github.com/moby/buildkit/frontend/dockerfile/parser"
	"github.com/moby/patternmatcher"
	"github.com/moby/patternmatcher/ignorefile"
)

// parseDockerfile parses ../Dockerfile with BuildKit's own parser, the one
// `docker build` uses, and fails on any parser or lint warning.
func parseDockerfile(t *testing.T) []instructions.Stage {
	t.Helper()
	f, err := os.Open(filepath.Join(root, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := parser.Parse(f)
	if err != nil {
		t.Fatalf("Dockerfile: %v", err)
	}
	for _, w := range res.Warnings {
		t.Errorf("Dockerfile: parser warning: %s", w.Short)
	}
	lint := linter.New(&linter.Config{Warn: func(rule, desc, url, msg string, loc []parser.Range) {
		line := 0
		if len(loc) > 0 {
			line = loc[0].Start.Line
		}
		t.Errorf("Dockerfile:%d: lint %s: %s", line, rule, msg)
	}})
	stages, _, err := instructions.Parse(res.AST, lint)
	if err != nil {
		t.Fatalf("Dockerfile: %v", err)
	}
	return stages
}

// imageUser returns the USER of the image's last stage.
func imageUser(t *testing.T, stages []instructions.Stage) string {
	t.Helper()
	user := ""
	for _, c := range stages[len(stages)-1].Commands {
		if u, ok := c.(*instructions.UserCommand); ok {
			user = u.User
		}
	}
	return user
}

// runLine is a RUN command as the shell would get it.
func runLine(r *instructions.RunCommand) string {
	return strings.Join(r.CmdLine, " ")
}

// program is the part of a command line that names what runs: the
// program, and for go its subcommand (`go mod download`, `go build`).
func program(cmd string) string {
	f := strings.Fields(cmd)
	switch {
	case len(f) == 0:
		return ""
	case f[0] == "go" && len(f) > 1:
		if f[1] == "mod" && len(f) > 2 {
			return strings.Join(f[:3], " ")
		}
		return strings.Join(f[:2], " ")
	}
	return f[0]
}

func TestDockerfile(t *testing.T) {
	stages := parseDockerfile(t)
	if len(stages) != 2 {
		t.Fatalf("%d stages, want 2 (the Go build, the runtime)", len(stages))
	}
	build, runtime := stages[0], stages[1]

	t.Run("the build stage uses the Go of go.mod", func(t *testing.T) {
		want := goDirective(t)
		major, _, _ := strings.Cut(strings.TrimPrefix(want, "1."), ".")
		image, tag, _ := strings.Cut(build.BaseName, ":")
		v := "1." + major
		if image != "golang" || (tag != v && !strings.HasPrefix(tag, v+".") && !strings.HasPrefix(tag, v+"-")) {
			t.Errorf("build stage FROM %s; want golang:1.%s (go.mod says go %s)", build.BaseName, major, want)
		}
	})

	t.Run("the build stage runs what CI runs", func(t *testing.T) {
		ci := ciCommands(t)
		var ran []string
		for _, c := range build.Commands {
			r, ok := c.(*instructions.RunCommand)
			if !ok {
				continue
			}
			for _, cmd := range strings.Split(runLine(r), "&&") {
				p := program(cmd)
				ran = append(ran, p)
				if !slices.ContainsFunc(ci, func(l string) bool { return program(l) == p }) {
					t.Errorf("the build stage runs %q; CI (.ci/run, scripts/test.sh) never runs %s", strings.TrimSpace(cmd), p)
				}
			}
		}
		for _, want := range []string{"go mod download", "./scripts/build.sh"} {
			if !slices.Contains(ran, want) {
				t.Errorf("the build stage does not run %s (it ran %q)", want, ran)
			}
		}
	})

	t.Run("the runtime is slim Debian with git, python3 and pytest", func(t *testing.T) {
		if !strings.HasPrefix(runtime.BaseName, "debian:") || !strings.HasSuffix(runtime.BaseName, "-slim") {
			t.Errorf("runtime FROM %s, want debian:*-slim", runtime.BaseName)
		}
		var installed []string
		for _, c := range runtime.Commands {
			if r, ok := c.(*instructions.RunCommand); ok {
				for _, cmd := range strings.Split(runLine(r), "&&") {
					if f := strings.Fields(cmd); len(f) > 2 && f[0] == "apt-get" && f[1] == "install" {
						installed = append(installed, f[2:]...)
					}
				}
			}
		}
		for _, pkg := range []string{"git", "python3", "python3-pytest"} {
			if !slices.Contains(installed, pkg) {
				t.Errorf("the runtime does not install %s (apt-get install %v)", pkg, installed)
			}
		}
	})

	t.Run("the binary comes from the build stage", func(t *testing.T) {
		found := false
		for _, c := range runtime.Commands {
			if cp, ok := c.(*instructions.CopyCommand); ok && cp.From == build.Name && slices.Contains(cp.SourcePaths, "/out/pyharness") {
				found = cp.DestPath == "/usr/local/bin/pyharness"
			}
		}
		if !found {
			t.Errorf("no COPY --from=%s /out/pyharness /usr/local/bin/pyharness in the runtime stage", build.Name)
		}
	})

	t.Run("a user that is not root runs pyharness", func(t *testing.T) {
		user := imageUser(t, stages)
		uid, _, _ := strings.Cut(user, ":")
		if user == "" || uid == "root" || uid == "0" {
			t.Errorf("USER %q; want a user that is not root", user)
		}
		var entry *instructions.EntrypointCommand
		for _, c := range runtime.Commands {
			if e, ok := c.(*instructions.EntrypointCommand); ok {
				entry = e
			}
		}
		if entry == nil || entry.PrependShell || !slices.Equal(entry.CmdLine, []string{"pyharness"}) {
			t.Errorf("ENTRYPOINT %+v; want the exec form [\"pyharness\"]", entry)
		}
	})
}

// The build context leaves out .git and the outputs, and keeps every file
// the binary is built from: each Go file and embedded file of every
// package of the main module that cmd/pyharness links, go.mod, go.sum and
// the build script.
func TestDockerignore(t *testing.T) {
	f, err := os.Open(filepath.Join(root, ".dockerignore"))
	if err != nil {
		t.Fatal(err)
	}
	patterns, err := ignorefile.ReadAll(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	pm, err := patternmatcher.New(patterns)
	if err != nil {
		t.Fatal(err)
	}
	excluded := func(rel string) bool {
		ok, err := pm.MatchesOrParentMatches(filepath.ToSlash(rel))
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	for _, p := range []string{".git", ".git/HEAD", "pyharness-out/runs/x.jsonl"} {
		if !excluded(p) {
			t.Errorf(".dockerignore keeps %s in the build context", p)
		}
	}
	needed := []string{"go.mod", "go.sum", "scripts/build.sh", "scripts/goenv.sh"}
	out, err := goCmd(t, "list", "-deps", "-json=Dir,GoFiles,EmbedFiles,Module", "./cmd/pyharness")
	if err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(out))
	for dec.More() {
		var pkg struct {
			Dir                 string
			GoFiles, EmbedFiles []string
			Module              *struct{ Main bool }
		}
		if err := dec.Decode(&pkg); err != nil {
			t.Fatal(err)
		}
		if pkg.Module == nil || !pkg.Module.Main {
			continue
		}
		for _, name := range append(pkg.GoFiles, pkg.EmbedFiles...) {
			rel, err := filepath.Rel(abs, filepath.Join(pkg.Dir, name))
			if err != nil {
				t.Fatal(err)
			}
			needed = append(needed, rel)
		}
	}
	if len(needed) < 10 {
		t.Fatalf("go list found %d files of the main module; the check proves nothing", len(needed))
	}
	for _, p := range needed {
		if excluded(p) {
			t.Errorf(".dockerignore leaves out %s, which the build needs", p)
		}
	}
}

// goCmd runs the go command in the main module and returns its output.
func goCmd(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out), nil
}
