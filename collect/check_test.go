package collect

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/harness/model/scripted"
	"github.com/pyharness/pyharness/harness/suite"
	"github.com/pyharness/pyharness/internal/testkit/needs"
	"github.com/pyharness/pyharness/schemas"
)

// A manifest's check imports a src layout's package by its own name, as
// the suite does; in a flat repository nothing is added.
func TestCheckImportsASrcLayout(t *testing.T) {
	py, err := suite.FindPython(context.Background(), "", false)
	if err != nil {
		needs.Missing(t, "%v (apt-get install -y python3)", err)
	}
	for _, tt := range []struct {
		name   string
		file   string
		passed bool
	}{
		{"src layout", "src/stats/__init__.py", true},
		{"package under another directory", "lib/stats/__init__.py", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ws := t.TempDir()
			p := filepath.Join(ws, filepath.FromSlash(tt.file))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("def mean(xs):\n    return sum(xs) / len(xs)\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			res, err := commandCheck{command: py + ` -c "from stats import mean; assert mean([1, 3]) == 2"`}.Check(context.Background(), ws)
			if err != nil {
				t.Fatal(err)
			}
			if res.Passed != tt.passed {
				t.Errorf("check passed: %v, want %v (%s)", res.Passed, tt.passed, res.FirstFailure)
			}
		})
	}
}

// A check that is the suite's own command is read from the suite's last
// run on the tree the run left, not run again; any other check runs. The
// verdicts are the same either way.
func TestCheckThatIsTheSuiteIsNotRunAgain(t *testing.T) {
	py, err := suite.FindPython(context.Background(), "", true)
	if err != nil {
		needs.Missing(t, "%v (apt-get install -y python3-pytest)", err)
	}
	const suiteCmd = "{python} -m pytest -q"
	fix := string(scripted.Drafts("READ m.py", "PATCH m.py\nFIND:\n```python\n    return 41\n```\nREPLACE:\n```python\n    return 42\n```",
		"RUN tests", "DONE answer() returns 42."))
	done := "DONE The code is already correct."
	nothing := string(scripted.Drafts(done, done, done, done, done))
	for _, tt := range []struct {
		name, check, script string
		verdict             schemas.Verdict
		suiteRuns           int
	}{
		// The start, RUN tests; the check is the run after RUN tests.
		{"suite as the check, fixed", suiteCmd, fix, schemas.VerdictWorked, 2},
		// The start; the check is the start's run, nothing having changed.
		{"suite as the check, nothing done", suiteCmd, nothing, schemas.VerdictFailed, 1},
		// Another command runs: one run more.
		{"another check, fixed", suiteCmd + " -x", fix, schemas.VerdictWorked, 3},
		{"another check, nothing done", suiteCmd + " -x", nothing, schemas.VerdictFailed, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			runs := filepath.Join(t.TempDir(), "sessions")
			repo := gitRepo(t, map[string]string{
				"m.py":        "def answer():\n    return 41\n",
				"test_m.py":   "from m import answer\n\n\ndef test_answer():\n    assert answer() == 42\n",
				"conftest.py": fmt.Sprintf("def pytest_sessionstart(session):\n    with open(%q, \"a\") as f:\n        f.write(\"run\\n\")\n", runs),
			})
			e := Entry{ID: "answer", Repo: repo, Dir: repo, Check: tt.check, Line: 1,
				TaskSpec: schemas.TaskSpec{Task: "test_m.py::test_answer fails: make answer() return 42", Suite: suiteCmd}}
			chat, err := scripted.NewFromReader(strings.NewReader(tt.script), "script")
			if err != nil {
				t.Fatal(err)
			}
			res, err := RunEntry(context.Background(), e, chat, "r1", t.TempDir(), py)
			if err != nil {
				t.Fatal(err)
			}
			if res.End.Verdict != tt.verdict || !res.End.Checks.Ran || res.End.Checks.Passed != (tt.verdict == schemas.VerdictWorked) {
				t.Errorf("verdict %s, checks %+v; want %s", res.End.Verdict, res.End.Checks, tt.verdict)
			}
			data, err := os.ReadFile(runs)
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(data), "run\n"); n != tt.suiteRuns {
				t.Errorf("pytest ran %d times, want %d", n, tt.suiteRuns)
			}
		})
	}
}
