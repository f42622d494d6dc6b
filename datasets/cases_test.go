package datasets

import (
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/pyharness/pyharness/internal/testkit/needs"
	"github.com/pyharness/pyharness/schemas"
)

// scriptNames are the scripts every case ships.
var scriptNames = []string{"chatty", "clean", "other-failure", "plausible-wrong"}

func TestCases(t *testing.T) {
	cases, err := Cases()
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 15 {
		t.Fatalf("got %d cases, want 15", len(cases))
	}
	perTier := map[int]int{}
	ids := map[string]bool{}
	for i, c := range cases {
		perTier[c.Tier]++
		ids[c.ID] = true
		if i > 0 {
			prev := cases[i-1]
			if prev.Tier > c.Tier || prev.Tier == c.Tier && prev.ID >= c.ID {
				t.Errorf("cases out of order: %s (tier %d) before %s (tier %d)", prev.ID, prev.Tier, c.ID, c.Tier)
			}
		}
		if got := c.Scripts(); !slices.Equal(got, scriptNames) {
			t.Errorf("%s: scripts %v, want %v", c.ID, got, scriptNames)
		}
		for name, want := range map[string]string{
			"clean":           string(schemas.VerdictWorked),
			"chatty":          string(schemas.VerdictWorked),
			"plausible-wrong": string(schemas.FailDidNotDoTheJob),
		} {
			if got := c.Expect[name]; got != want {
				t.Errorf("%s: expect %s = %q, want %q", c.ID, name, got, want)
			}
		}
		if got := c.Expect["other-failure"]; got != string(schemas.FailWrongThing) && got != string(schemas.FailWroteNothing) {
			t.Errorf("%s: expect other-failure = %q, want wrong-thing or wrote-nothing", c.ID, got)
		}
		for _, name := range c.Scripts() {
			drafts, err := c.Drafts(name)
			if err != nil {
				t.Fatal(err)
			}
			if len(drafts) < 3 || len(drafts) > 8 {
				t.Errorf("%s/%s: %d turns, want 3 to 8", c.ID, name, len(drafts))
			}
			raw, err := c.Script(name + ".jsonl")
			if err != nil || len(raw) == 0 {
				t.Errorf("%s: Script(%q) = %d bytes, %v", c.ID, name+".jsonl", len(raw), err)
			}
		}
	}
	if _, err := cases[0].Script("../../" + cases[1].ID + "/scripts/clean"); err == nil {
		t.Error("Script reached outside the case's scripts/")
	}
	if want := map[int]int{1: 3, 2: 2, 3: 2, 4: 2, 5: 2, 6: 4}; !maps.Equal(perTier, want) {
		t.Errorf("cases per tier %v, want %v", perTier, want)
	}
	for _, id := range []string{"initials", "wordcount", "fix-offbyone", "env-flag", "venv-python"} {
		if !ids[id] {
			t.Errorf("no case %q", id)
		}
	}
	if len(Tiers()) != 6 {
		t.Errorf("Tiers() has %d tiers, want 6", len(Tiers()))
	}
}

// TestChecksStayHidden makes sure nothing in a fixture repository leads to
// its hidden checks, and that no interpreter leftovers were embedded.
func TestChecksStayHidden(t *testing.T) {
	cases, err := Cases()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		var hidden []string
		err := fs.WalkDir(c.HiddenChecks(), ".", func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				hidden = append(hidden, strings.TrimSuffix(path.Base(p), ".py"))
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, part := range []fs.FS{c.Repo(), c.HiddenChecks()} {
			err := fs.WalkDir(part, ".", func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				if d.Type()&fs.ModeSymlink != 0 || !d.IsDir() && !d.Type().IsRegular() {
					t.Errorf("%s: %s is not a regular file", c.ID, p)
				}
				if d.Name() == "__pycache__" || strings.HasSuffix(p, ".pyc") {
					t.Errorf("%s: %s is interpreter noise", c.ID, p)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		err = fs.WalkDir(c.Repo(), ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := fs.ReadFile(c.Repo(), p)
			if err != nil {
				return err
			}
			for _, name := range hidden {
				if strings.Contains(string(data), name) {
					t.Errorf("%s: repo/%s names the hidden check %s", c.ID, p, name)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range c.Scripts() {
			raw, _ := c.Script(name)
			for _, h := range hidden {
				if strings.Contains(string(raw), h) {
					t.Errorf("%s: script %s names the hidden check %s", c.ID, name, h)
				}
			}
		}
	}
}

func TestLoadCasesRejectsBadCases(t *testing.T) {
	const good = `id: demo
tier: 1
title: Demo
task: Add thing to a.py.
targets: [a.py]
names: [thing]
subject: ""
scope: ["**"]
suite: "{python} -m unittest"
expect:
  clean: worked
`
	tests := []struct {
		name    string
		yaml    string // replaces good when set
		old     string // else: replace old with new in good
		new     string
		files   map[string]string // extra or replaced files; "" deletes
		wantErr string
	}{
		{name: "good"},
		{name: "unknown field", old: "tier: 1", new: "tier: 1\ntyre: 2", wantErr: "field tyre not found"},
		{name: "not yaml", yaml: "id: [demo", wantErr: "decode cases/demo/case.yaml"},
		{name: "id is not the directory", old: "id: demo", new: "id: other", wantErr: `field id: "other" is not the directory name`},
		{name: "no id", old: "id: demo", new: "", wantErr: "field id: empty"},
		{name: "tier 0", old: "tier: 1", new: "tier: 0", wantErr: "field tier: 0 is not a tier"},
		{name: "tier 7", old: "tier: 1", new: "tier: 7", wantErr: "field tier: 7"},
		{name: "no task", old: "task: Add thing to a.py.", new: "task: ''", wantErr: "field task: empty"},
		{name: "no suite", old: `suite: "{python} -m unittest"`, new: "", wantErr: "field suite: empty"},
		{name: "no targets", old: "targets: [a.py]", new: "targets: []", wantErr: "field targets: empty"},
		{name: "target climbs out", old: "targets: [a.py]", new: "targets: [../a.py]", wantErr: "field targets"},
		{name: "absolute target", old: "targets: [a.py]", new: "targets: [/a.py]", wantErr: "field targets"},
		{name: "backslash target", old: "targets: [a.py]", new: `targets: ['src\a.py']`, wantErr: "field targets"},
		{name: "no scope", old: `scope: ["**"]`, new: "scope: []", wantErr: "field scope: empty"},
		{name: "bad glob", old: `scope: ["**"]`, new: `scope: ["src/["]`, wantErr: "field scope"},
		{name: "glob only path.Match reads", old: `scope: ["**"]`, new: `scope: ["src/{a"]`, wantErr: "field scope"},
		{name: "bad name", old: "names: [thing]", new: "names: [thing()]", wantErr: "field names"},
		{name: "tier 5 without subject", old: "tier: 1", new: "tier: 5", wantErr: "field subject: a tier 5 case"},
		{name: "subject outside tier 5", old: `subject: ""`, new: "subject: thing", wantErr: "field subject: only tier 5"},
		{name: "subject not a name", yaml: strings.NewReplacer("tier: 1", "tier: 5", `subject: ""`, "subject: other").Replace(good), wantErr: `field subject: "other" is not among names`},
		{name: "script without outcome", files: map[string]string{"scripts/chatty.jsonl": `{"content": "RUN tests"}` + "\n"}, wantErr: `no outcome for script "chatty"`},
		{name: "outcome without script", old: "  clean: worked", new: "  clean: worked\n  chatty: worked", wantErr: `script "chatty" has no file`},
		{name: "unknown outcome", old: "  clean: worked", new: "  clean: passed", wantErr: `"passed" is not one of`},
		{name: "script not json", files: map[string]string{"scripts/clean.jsonl": "{\"content\": \"READ a.py\"}\nREAD a.py\n"}, wantErr: "cases/demo/scripts/clean.jsonl:2"},
		{name: "script line without content", files: map[string]string{"scripts/clean.jsonl": `{"draft": "READ a.py"}` + "\n"}, wantErr: "clean.jsonl:1"},
		{name: "empty script", files: map[string]string{"scripts/clean.jsonl": ""}, wantErr: "no turns"},
		{name: "no repo", files: map[string]string{"repo/a.py": ""}, wantErr: "repo/: missing or empty"},
		{name: "no check", files: map[string]string{"check/test_hidden_demo.py": ""}, wantErr: "check/: missing or empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := good
			switch {
			case tt.yaml != "":
				text = tt.yaml
			case tt.old != "":
				if !strings.Contains(good, tt.old) {
					t.Fatalf("bad test: %q not in the good case", tt.old)
				}
				text = strings.Replace(good, tt.old, tt.new, 1)
			}
			files := map[string]string{
				"case.yaml":                 text,
				"repo/a.py":                 "x = 1\n",
				"check/test_hidden_demo.py": "import a\n",
				"scripts/clean.jsonl":       `{"content": "READ a.py"}` + "\n",
			}
			for name, data := range tt.files {
				files[name] = data
				if data == "" && !strings.HasPrefix(name, "scripts/") {
					delete(files, name)
				}
			}
			fsys := fstest.MapFS{}
			for name, data := range files {
				fsys["cases/demo/"+name] = &fstest.MapFile{Data: []byte(data)}
			}
			cases, err := loadCases(fsys)
			if tt.wantErr == "" {
				if err != nil || len(cases) != 1 || cases[0].Dir != "cases/demo" {
					t.Fatalf("loadCases = %v, %v; want the demo case", cases, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("loadCases error = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestCopyFS(t *testing.T) {
	cases, err := Cases()
	if err != nil {
		t.Fatal(err)
	}
	c := cases[0]
	dst := filepath.Join(t.TempDir(), "work")
	if err := CopyFS(dst, c.Repo()); err != nil {
		t.Fatal(err)
	}
	n := 0
	err = fs.WalkDir(c.Repo(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		want, err := fs.ReadFile(c.Repo(), p)
		if err != nil {
			return err
		}
		got, err := os.ReadFile(filepath.Join(dst, filepath.FromSlash(p)))
		if err != nil {
			return err
		}
		if string(got) != string(want) {
			t.Errorf("%s differs after the copy", p)
		}
		return nil
	})
	if err != nil || n == 0 {
		t.Fatalf("walk: %v (%d files)", err, n)
	}
	if err := CopyFS(dst, c.Repo()); err == nil {
		t.Error("a second copy over the same files did not fail")
	}
}

// TestBaseline runs each fixture as the harness finds it: the suite passes
// and runs something, and the hidden checks fail.
func TestBaseline(t *testing.T) {
	py := python(t)
	cases, err := Cases()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.ID, func(t *testing.T) {
			t.Parallel()
			w := &work{t: t, py: py, c: c, dir: workspace(t, c)}
			if r := w.suite(); !r.passed() {
				t.Errorf("suite fails at baseline (exit %d, ran %d):\n%s", r.exit, r.ran, r.out)
			}
			if r := w.hidden(); r.passed() {
				t.Errorf("hidden checks pass at baseline:\n%s", r.out)
			}
		})
	}
}

// TestScripts plays every script of every case against a model of the
// harness's guards and judges the result the way a benchmark run is judged.
// The clean script is the reference solution: the suite and the hidden checks
// pass after it. The plausible-wrong one passes the suite and fails the
// hidden checks.
func TestScripts(t *testing.T) {
	py := python(t)
	cases, err := Cases()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		for _, name := range c.Scripts() {
			t.Run(c.ID+"/"+name, func(t *testing.T) {
				t.Parallel()
				playScript(t, py, c, name)
			})
		}
	}
}

// The interpreter, found once: pyenv shims cost a shell start on every call.
var (
	pythonOnce sync.Once
	pythonExe  string
	pythonErr  error
)

// python returns the path of the real python3, or skips the test.
func python(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs python3; skipped with -short")
	}
	pythonOnce.Do(func() {
		var out []byte
		out, pythonErr = exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
		pythonExe = strings.TrimSpace(string(out))
	})
	if pythonErr != nil || pythonExe == "" {
		needs.Missing(t, "no python3 (apt-get install -y python3): %v", pythonErr)
	}
	return pythonExe
}

// Every embedded case's scope, read as the harness reads it (doublestar),
// covers every target of the case and each glob covers a file of the
// fixture or a target: no scope means something else than it was written
// for.
func TestEmbeddedScopesCoverTheirFiles(t *testing.T) {
	cases, err := Cases()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		var files []string
		fs.WalkDir(c.Repo(), ".", func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				files = append(files, p)
			}
			return err
		})
		for _, target := range c.Targets {
			if !schemas.InScope(c.Scope, target) {
				t.Errorf("%s: target %s is outside scope %v", c.ID, target, c.Scope)
			}
		}
		for _, g := range c.Scope {
			covers := func(f string) bool { return schemas.InScope([]string{g}, f) }
			if !slices.ContainsFunc(files, covers) && !slices.ContainsFunc(c.Targets, covers) {
				t.Errorf("%s: scope %q covers no file of the fixture and no target", c.ID, g)
			}
		}
	}
}
