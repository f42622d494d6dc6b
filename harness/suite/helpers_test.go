package suite

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pyharness/pyharness/internal/testkit/needs"
)

// writeTree writes files (slash-separated names → contents) into a new
// temporary directory and returns it.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// requirePython skips (fails in CI) the test when the machine has no Python 3.
func requirePython(t *testing.T) string {
	t.Helper()
	py, err := FindPython(context.Background(), "", false)
	if err != nil {
		needs.Missing(t, "no python 3 here (apt-get install -y python3): %v", err)
	}
	return py
}

// pytestInterpreter is the first candidate interpreter that imports
// pytest, asked directly rather than through FindPython so that the test
// of FindPython is not graded by itself. Asked once: a pyenv shim is slow.
var pytestInterpreter = sync.OnceValue(func() string {
	for _, name := range pythonCandidates {
		path, err := exec.LookPath(name)
		if err != nil {
			continue
		}
		if exec.Command(path, "-c", "import pytest").Run() == nil {
			return path
		}
	}
	return ""
})

// requirePytest skips (fails in CI) the test when no interpreter here can import pytest.
func requirePytest(t *testing.T) {
	t.Helper()
	if pytestInterpreter() == "" {
		needs.Missing(t, "no python with pytest here (apt-get install -y python3-pytest)")
	}
}

// requireGo skips (fails in CI) the test when the go command is not on PATH.
func requireGo(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		needs.Missing(t, "no go command on PATH")
	}
}

// runCase is a suite and what reading its run must find.
type runCase struct {
	name         string
	files        map[string]string
	want         tally
	wantPassed   bool
	wantImport   []string
	wantFailures []Failure // exactly, in order; nil means not checked
	wantFirst    string
}

// tally is the part of a Result a table states exactly.
type tally struct {
	Ran, Passed, Failed, Errors, Skipped int
	NoTests, TimedOut                    bool
	Exit                                 int
}

func tallyOf(r *Result) tally {
	c := r.Counts
	return tally{c.Ran, c.Passed, c.Failed, c.Errors, c.Skipped, c.NoTests, c.TimedOut, c.ExitCode}
}

// checkContains reports each wanted substring missing from got.
func checkContains(t *testing.T, what, got string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("%s = %q, want it to contain %q", what, got, w)
		}
	}
}

// logOnFailure shows the suite's command and output when the test fails,
// and keeps -v output readable when it does not.
func logOnFailure(t *testing.T, res *Result) {
	t.Helper()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("command %q exit %d\n%s", res.Command, res.Counts.ExitCode, res.Output)
		}
	})
}

// interpreterFor finds a Python of the given minor version ("3.12") on this
// machine, on PATH or in a pyenv installation, or skips the test.
func interpreterFor(t *testing.T, version string) string {
	t.Helper()
	// Installed pyenv versions first: their shims on PATH are slow, and
	// fail for versions that are installed but not selected.
	var candidates []string
	root := os.Getenv("PYENV_ROOT")
	if root == "" {
		if home, err := os.UserHomeDir(); err == nil {
			root = filepath.Join(home, ".pyenv")
		}
	}
	if root != "" {
		found, _ := filepath.Glob(filepath.Join(root, "versions", version+".*", "bin", "python3"))
		candidates = append(candidates, found...)
	}
	candidates = append(candidates, "python"+version)
	for _, c := range candidates {
		path, err := exec.LookPath(c)
		if err != nil {
			continue
		}
		out, err := exec.Command(path, "-c", "import sys; print('%d.%d' % sys.version_info[:2])").Output()
		if err == nil && strings.TrimSpace(string(out)) == version {
			return path
		}
	}
	t.Skipf("no Python %s on this machine", version)
	return ""
}
