package harness

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

// wipeMarker marks the directories the vandal suite below may wipe: it
// deletes nothing unless the directory, or one above it, holds this file,
// so that a mistake in the test can never reach beyond the test's own
// temporary directories.
const wipeMarker = "PYHARNESS-TEST-MAY-WIPE-THIS"

// The suite row "deletes files outside its repo": a test suite that deletes
// every file under its working directory and under HOME leaves the user's
// repository and the user's HOME as they were, because it runs in a
// workspace copy with a HOME of its own; and the run still ends with its
// verdict and patch, because the harness keeps its baseline repository
// outside the workspace. (A suite that climbs out with ../ or names an
// absolute path reaches whatever the user can: see docs/reliability.md.)
// Not parallel: it sets HOME and TMPDIR.
func TestSuiteThatDeletesFilesLeavesTheRepositoryAlone(t *testing.T) {
	repo, out, userHome, scratch := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	writeTree(t, userHome, map[string]string{".ssh/id_ed25519": "PRIVATE KEY\n", ".config/tool.toml": "token = 1\n", wipeMarker: ""})
	writeTree(t, scratch, map[string]string{wipeMarker: ""})
	t.Setenv("HOME", userHome)
	t.Setenv("TMPDIR", scratch) // the workspace copy is made in scratch
	// The vandal runs when the suite imports it, before any test.
	vandal := `import os, unittest

MARKER = "` + wipeMarker + `"


def allowed(top):
    d = os.path.abspath(top)
    while True:
        if os.path.exists(os.path.join(d, MARKER)):
            return True
        parent = os.path.dirname(d)
        if parent == d:
            return False
        d = parent


def wipe(top):
    if not allowed(top):
        return
    for root, dirs, files in os.walk(top):
        for name in files:
            if name != MARKER:
                try:
                    os.remove(os.path.join(root, name))
                except OSError:
                    pass


wipe(os.path.expanduser("~"))
wipe(".")


class Vandal(unittest.TestCase):
    def test_nothing(self):
        pass
`
	files := map[string]string{
		"greet.py":             fixture["greet.py"],
		"tests/__init__.py":    "",
		"tests/test_greet.py":  fixture["tests/test_greet.py"],
		"tests/test_vandal.py": vandal,
	}
	writeTree(t, repo, files)
	beforeRepo, beforeHome := snapshotTree(t, repo), snapshotTree(t, userHome)
	cfg := Config{RunID: "vandal", OutDir: out, Repo: repo, TaskSpec: schemas.TaskSpec{Task: "Make greet strip the name", Targets: []string{"greet.py"}},
		SuiteTimeout: time.Minute, MaxSteps: 2, Model: schemas.Model{Backend: "scripted", Name: "vandal"}}
	res, err := Run(context.Background(), cfg, script(t, runTests, runTests))
	if err != nil {
		t.Fatal(err)
	}
	if res.End.SuiteBefore.Ran == 0 {
		t.Fatalf("the suite did not run at baseline: %+v", res.End.SuiteBefore)
	}
	if !strings.Contains(res.End.Patch, "deleted file mode") {
		t.Errorf("the suite deleted nothing in its workspace; the test proves nothing (patch %q)", res.End.Patch)
	}
	for name, snap := range map[string]struct {
		dir    string
		before map[string][]byte
	}{"repository": {repo, beforeRepo}, "HOME": {userHome, beforeHome}} {
		after := snapshotTree(t, snap.dir)
		if len(after) != len(snap.before) {
			t.Errorf("the user's %s had %d files and has %d after the run", name, len(snap.before), len(after))
		}
		for f, b := range snap.before {
			if !bytes.Equal(after[f], b) {
				t.Errorf("the suite changed %s in the user's %s", f, name)
			}
		}
	}
	if res.End.Verdict == "" || res.End.StopReason != schemas.StopBudget {
		t.Errorf("verdict %q stop %s, want the run judged at the end of its budget", res.End.Verdict, res.End.StopReason)
	}
	checkTraceValid(t, res.TracePath, true)
}

// unittestRunner is the suite runner of runnerRepo; breakRunner takes its
// interpreter away and restoreRunner puts it back.
const (
	unittestRunner = "#!/bin/sh\nexec python3 -m unittest discover -s tests -t .\n"
	breakRunner    = "WRITE run_tests\n```\n#!/nonexistent/interpreter\n```"
	restoreRunner  = "WRITE run_tests\n```\n" + unittestRunner + "```"
)

// runnerRepo is the fixture with its suite run by the script ./run_tests.
func runnerRepo(t *testing.T) string {
	t.Helper()
	files := map[string]string{"run_tests": unittestRunner}
	for name, content := range fixture {
		files[name] = content
	}
	repo := t.TempDir()
	writeTree(t, repo, files)
	if err := os.Chmod(filepath.Join(repo, "run_tests"), 0o755); err != nil {
		t.Fatal(err)
	}
	return repo
}

// A suite that cannot run at all after a step broke it (here its runner
// script loses its interpreter) is not called restored: the model is told
// the suite could not run, the turn and the run carry a suite-not-run
// warning, and the check is kept, so the run still stops when the suite
// runs again and still fails.
func TestSuiteThatCannotRunAfterABreakIsNotCalledRestored(t *testing.T) {
	repo := runnerRepo(t)
	breakGreet := "WRITE greet.py\n```python\ndef greet(name):\n    return \"Hi \" + name\n```"
	cfg := Config{RunID: "unrunnable", OutDir: t.TempDir(), Repo: repo, TaskSpec: schemas.TaskSpec{Task: "Make greet strip the name", Suite: "./run_tests"},
		SuiteTimeout: time.Minute, Model: schemas.Model{Backend: "scripted", Name: "unrunnable"}}
	res, err := Run(context.Background(), cfg, script(t, breakGreet, breakRunner, restoreRunner, runTests, doneSummary))
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	run, err := trace.ReadRun(trace.File{RunID: cfg.RunID, Attempt: 1, Path: res.TracePath})
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Turns) < 3 {
		t.Fatalf("the run took %d steps (stop %s); want at least 3", len(run.Turns), res.End.StopReason)
	}
	if run.Turns[0].Outcome.Code != schemas.CodeSuiteBroken {
		t.Fatalf("step 1 outcome %+v, want %s", run.Turns[0].Outcome, schemas.CodeSuiteBroken)
	}
	if !slices.ContainsFunc(run.Turns[1].Warnings, func(w string) bool { return strings.HasPrefix(w, string(schemas.CodeSuiteNotRun)+": ") }) {
		t.Errorf("step 2 warnings %q: want a %s warning", run.Turns[1].Warnings, schemas.CodeSuiteNotRun)
	}
	if !slices.ContainsFunc(res.End.Warnings, func(w string) bool { return strings.HasPrefix(w, string(schemas.CodeSuiteNotRun)+": ") }) {
		t.Errorf("run warnings %q: want a %s warning", res.End.Warnings, schemas.CodeSuiteNotRun)
	}
	told := run.Turns[2].Sent.Messages[len(run.Turns[2].Sent.Messages)-1].Content
	if strings.Contains(told, "passes again") || !strings.Contains(told, "could not run") {
		t.Errorf("after the suite could not run, the model was told:\n%s\nwant that it could not run, never that it passes again", told)
	}
	if res.End.StopReason != schemas.StopBrokeSuite || len(run.Turns) != 3 {
		t.Errorf("stop %s after %d steps; want broke-suite at step 3, when the suite ran again and still failed", res.End.StopReason, len(run.Turns))
	}
}

// A write after which the suite cannot run at all (the write takes the
// runner's interpreter away) is not passed over as if the suite were fine:
// the turn and the run carry a suite-not-run warning that names the write.
func TestSuiteThatCannotRunAfterAWriteIsSaid(t *testing.T) {
	repo := runnerRepo(t)
	cfg := Config{RunID: "unrunnable-write", OutDir: t.TempDir(), Repo: repo, TaskSpec: schemas.TaskSpec{Task: "Tidy the test runner", Suite: "./run_tests"},
		SuiteTimeout: time.Minute, Model: schemas.Model{Backend: "scripted", Name: "unrunnable-write"}}
	res, err := Run(context.Background(), cfg, script(t, breakRunner, restoreRunner, runTests, doneSummary))
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	run, err := trace.ReadRun(trace.File{RunID: cfg.RunID, Attempt: 1, Path: res.TracePath})
	if err != nil {
		t.Fatal(err)
	}
	notRun := func(w string) bool {
		return strings.HasPrefix(w, string(schemas.CodeSuiteNotRun)+": ") && strings.Contains(w, "run_tests")
	}
	if len(run.Turns) == 0 || !slices.ContainsFunc(run.Turns[0].Warnings, notRun) {
		t.Fatalf("step 1 (the write that took the interpreter away) has no %s warning naming it", schemas.CodeSuiteNotRun)
	}
	if !slices.ContainsFunc(res.End.Warnings, notRun) {
		t.Errorf("run warnings %q: want a %s warning", res.End.Warnings, schemas.CodeSuiteNotRun)
	}
	if len(run.Turns) > 1 && slices.ContainsFunc(run.Turns[1].Warnings, notRun) {
		t.Errorf("step 2 restored the runner, and still warns %q", run.Turns[1].Warnings)
	}
}
