package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"go.yaml.in/yaml/v3"

	"github.com/pyharness/pyharness/harness/suite"
)

// tasksVerify OUT checks every entry of OUT/manifest.yaml as a reviewer
// would: its commit's suite collects and imports (pytest --collect-only
// exits 0), and its task text holds no line that its reference script
// writes (a REPLACE or WRITE line of eight characters or more that the
// FIND it replaces lacks).
func tasksVerify(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: tasks-verify OUT")
	}
	out := ts.MkAbs(args[0])
	data, err := os.ReadFile(filepath.Join(out, "manifest.yaml"))
	ts.Check(err)
	var doc struct {
		Entries []struct {
			ID, Repo, Commit, Task, Script string
		}
	}
	ts.Check(yaml.Unmarshal(data, &doc))
	python, err := suite.FindPython(context.Background(), "", true)
	ts.Check(err)
	for _, e := range doc.Entries {
		dir := ts.MkAbs(filepath.Join("verify", e.ID))
		repo := filepath.Join(out, e.Repo)
		if b, err := exec.Command("git", "clone", "-q", "--shared", "--no-checkout", repo, dir).CombinedOutput(); err != nil {
			ts.Fatalf("%s: clone: %v\n%s", e.ID, err, b)
		}
		if b, err := exec.Command("git", "-C", dir, "checkout", "-q", "--detach", e.Commit).CombinedOutput(); err != nil {
			ts.Fatalf("%s: checkout %s: %v\n%s", e.ID, e.Commit, err, b)
		}
		cmd := exec.Command(python, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
		if p := suite.ImportPathEnv(dir, nil); p != "" {
			cmd.Env = append(cmd.Env, p)
		}
		if b, err := cmd.CombinedOutput(); err != nil {
			ts.Fatalf("%s: the suite does not collect at %s: %v\n%s", e.ID, e.Commit, err, b)
		}
		for _, line := range fixWrites(ts, filepath.Join(out, e.Script)) {
			if strings.Contains(e.Task, line) {
				ts.Fatalf("%s: the task text quotes its fix: %q", e.ID, line)
			}
		}
	}
	fmt.Fprintf(ts.Stdout(), "verified %d entries\n", len(doc.Entries))
}

// fixWrites are the lines a reference script writes that what it replaces
// lacks, trimmed, eight characters or more.
func fixWrites(ts *testscript.TestScript, script string) []string {
	f, err := os.Open(script)
	ts.Check(err)
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var d struct{ Content string }
		ts.Check(json.Unmarshal(sc.Bytes(), &d))
		find, replace := "", ""
		switch {
		case strings.HasPrefix(d.Content, "PATCH "):
			_, rest, _ := strings.Cut(d.Content, "FIND:")
			find, replace, _ = strings.Cut(rest, "REPLACE:")
		case strings.HasPrefix(d.Content, "WRITE "):
			replace = d.Content
		default:
			continue
		}
		had := map[string]bool{}
		for _, l := range strings.Split(find, "\n") {
			had[strings.TrimSpace(l)] = true
		}
		for _, l := range strings.Split(replace, "\n") {
			if l = strings.TrimSpace(l); len(l) >= 8 && !had[l] && !strings.HasPrefix(l, "```") {
				out = append(out, l)
			}
		}
	}
	ts.Check(sc.Err())
	return out
}

// waitFor FILE TEXT waits (five minutes at most) until FILE holds TEXT.
func waitFor(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: waitfor FILE TEXT")
	}
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(ts.MkAbs(args[0])); err == nil && strings.Contains(string(b), args[1]) {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	ts.Fatalf("%s does not hold %q after five minutes", args[0], args[1])
}
