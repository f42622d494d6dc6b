package suite

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pyharness/pyharness/schemas"
)

func TestDetect(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  Kind
	}{
		{name: "empty repository", files: map[string]string{}, want: Unittest},
		{name: "plain python", files: map[string]string{"wordcount.py": "", "tests/test_wordcount.py": ""}, want: Unittest},
		{name: "go.mod", files: map[string]string{"go.mod": goMod, "conftest.py": ""}, want: GoTest},
		{name: "pytest.ini", files: map[string]string{"pytest.ini": "[pytest]\n"}, want: Pytest},
		{name: "conftest.py at the top", files: map[string]string{"conftest.py": ""}, want: Pytest},
		{name: "conftest.py in tests", files: map[string]string{"tests/conftest.py": ""}, want: Pytest},
		{name: "pyproject with tool.pytest", files: map[string]string{"pyproject.toml": "[project]\nname='x'\n\n[tool.pytest.ini_options]\naddopts='-q'\n"}, want: Pytest},
		{name: "pyproject without pytest", files: map[string]string{"pyproject.toml": "[project]\nname='x'\n"}, want: Unittest},
		{name: "setup.cfg with tool:pytest", files: map[string]string{"setup.cfg": "[metadata]\nname=x\n[tool:pytest]\ntestpaths=tests\n"}, want: Pytest},
		{name: "setup.cfg without pytest", files: map[string]string{"setup.cfg": "[metadata]\nname=x\n"}, want: Unittest},
		{name: "tox.ini with pytest", files: map[string]string{"tox.ini": "[tox]\n[pytest]\naddopts=-q\n"}, want: Pytest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Detect(writeTree(t, tt.files)); got != tt.want {
				t.Errorf("Detect = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSplitCommand(t *testing.T) {
	tests := []struct {
		name    string
		line    string
		want    []string
		wantErr string
	}{
		{name: "words", line: "python3 -m unittest discover", want: []string{"python3", "-m", "unittest", "discover"}},
		{name: "extra whitespace", line: "  go\ttest   ./... \n", want: []string{"go", "test", "./..."}},
		{name: "placeholder kept for later", line: "{python} -m pytest -q", want: []string{"{python}", "-m", "pytest", "-q"}},
		{name: "double quotes", line: `pytest -k "not slow"`, want: []string{"pytest", "-k", "not slow"}},
		{name: "single quotes keep backslashes", line: `echo 'a\b "c"'`, want: []string{"echo", `a\b "c"`}},
		{name: "escaped quote in double quotes", line: `echo "say \"hi\" \n"`, want: []string{"echo", `say "hi" \n`}},
		{name: "backslash escapes a space", line: `ls my\ dir`, want: []string{"ls", "my dir"}},
		{name: "quotes join a word", line: `-p"check_"*.py`, want: []string{"-pcheck_*.py"}},
		{name: "empty quotes are an argument", line: `cmd "" x`, want: []string{"cmd", "", "x"}},
		{name: "no shell expansion", line: "echo $HOME *.py", want: []string{"echo", "$HOME", "*.py"}},
		{name: "unterminated double quote", line: `pytest -k "not slow`, wantErr: "unterminated"},
		{name: "unterminated single quote", line: `pytest -k 'x`, wantErr: "unterminated"},
		{name: "trailing backslash", line: `pytest \`, wantErr: "backslash"},
		{name: "empty", line: "   ", wantErr: "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := splitCommand(tt.line)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("splitCommand(%q) error = %v, want one containing %q", tt.line, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("splitCommand(%q): %v", tt.line, err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("splitCommand(%q) = %q, want %q", tt.line, got, tt.want)
			}
		})
	}
}

func TestResultVerdict(t *testing.T) {
	tests := []struct {
		name       string
		res        Result
		wantPassed bool
		wantFirst  string
	}{
		{name: "ran and passed", res: Result{Counts: schemas.SuiteCounts{Ran: 3, Passed: 3}}, wantPassed: true},
		{name: "all skipped still ran", res: Result{Counts: schemas.SuiteCounts{Ran: 2, Skipped: 2}}, wantPassed: true},
		{name: "nothing ran", res: Result{Counts: schemas.SuiteCounts{NoTests: true}}, wantFirst: "no tests ran"},
		{name: "zero ran without a summary", res: Result{}, wantFirst: "no tests ran"},
		{
			name:      "failure message first",
			res:       Result{Counts: schemas.SuiteCounts{Ran: 2, Passed: 1, Failed: 1, ExitCode: 1}, Failures: []Failure{{Test: "t", Message: "AssertionError: 'A L' != 'A. L.'"}}},
			wantFirst: "AssertionError: 'A L' != 'A. L.'",
		},
		{
			name: "import error before failures",
			res: Result{
				Counts:   schemas.SuiteCounts{Ran: 2, Errors: 2, ImportError: "test module t does not import: ModuleNotFoundError: No module named 'wordcount'", ExitCode: 1},
				Failures: []Failure{{Test: "t2", Message: "NameError: name 'x' is not defined"}},
			},
			wantFirst: "ModuleNotFoundError: No module named 'wordcount'",
		},
		{name: "errors count even with passes", res: Result{Counts: schemas.SuiteCounts{Ran: 2, Passed: 1, Errors: 1}}, wantFirst: "0 failed, 1 errors"},
		{name: "timed out", res: Result{Counts: schemas.SuiteCounts{Ran: 1, Passed: 1, TimedOut: true, ExitCode: -1}, Timeout: 2 * time.Minute}, wantFirst: "timed out after 2m0s"},
		{name: "cancelled", res: Result{Counts: schemas.SuiteCounts{Ran: 1, Passed: 1, ExitCode: -1}, Cancelled: true}, wantFirst: "cancelled before the suite finished"},
		{name: "crash without a summary", res: Result{Counts: schemas.SuiteCounts{ExitCode: 4}, Output: "ERROR: file or directory not found: tests\n\n"}, wantFirst: "suite exited with code 4: ERROR: file or directory not found: tests"},
		{name: "failure without a message", res: Result{Counts: schemas.SuiteCounts{Ran: 1, Failed: 1}, Failures: []Failure{{Test: "TestX"}}}, wantFirst: "TestX failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.res.Passed(); got != tt.wantPassed {
				t.Errorf("Passed() = %v, want %v", got, tt.wantPassed)
			}
			got := tt.res.FirstFailure()
			if tt.wantFirst == "" && got != "" {
				t.Errorf("FirstFailure() = %q, want \"\"", got)
			}
			if !strings.Contains(got, tt.wantFirst) {
				t.Errorf("FirstFailure() = %q, want it to contain %q", got, tt.wantFirst)
			}
		})
	}
}

func TestRunCannotStart(t *testing.T) {
	tests := []struct {
		name    string
		runner  Runner
		wantErr string
	}{
		{name: "unterminated quote", runner: Runner{Command: `python3 -m pytest -k "slow`}, wantErr: "unterminated"},
		{name: "program not found", runner: Runner{Command: "no-such-test-runner-xyz --all"}, wantErr: "no-such-test-runner-xyz"},
		{name: "interpreter not found", runner: Runner{Kind: Unittest, Python: "/nonexistent/bin/python3"}, wantErr: "/nonexistent/bin/python3"},
		{name: "placeholder with a missing interpreter", runner: Runner{Command: "{python} -m unittest", Python: "/nonexistent/python"}, wantErr: "/nonexistent/python"},
		{name: "unknown kind", runner: Runner{Kind: "nose"}, wantErr: `unknown suite kind "nose"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := tt.runner.Run(context.Background(), t.TempDir())
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Run error = %v (result %+v), want one containing %q", err, res, tt.wantErr)
			}
		})
	}
}

func TestFindPython(t *testing.T) {
	ctx := context.Background()
	withPytest := pytestInterpreter()
	var withoutPytest string
	for _, name := range pythonCandidates {
		if path, err := exec.LookPath(name); err == nil && exec.Command(path, "-c", "import pytest").Run() != nil &&
			exec.Command(path, "-c", "import sys; sys.exit(sys.version_info[0] != 3)").Run() == nil {
			withoutPytest = path
			break
		}
	}
	noPytestHere, allHavePytest := "", ""
	if withPytest == "" {
		noPytestHere = "no interpreter with pytest here"
	}
	if withoutPytest == "" {
		allHavePytest = "every interpreter here has pytest"
	}
	tests := []struct {
		name       string
		preferred  string
		needPytest bool
		skip       string // why the row cannot run here, or ""
		wantErr    string
		check      func(t *testing.T, path string)
	}{
		{
			name: "default interpreter runs Python 3",
			check: func(t *testing.T, path string) {
				out, err := exec.Command(path, "-c", "import sys; print(sys.version_info[0])").Output()
				if err != nil || strings.TrimSpace(string(out)) != "3" {
					t.Errorf("%s: Python major %q, %v; want 3", path, out, err)
				}
			},
		},
		{
			name: "needing pytest finds one that imports it", needPytest: true,
			skip: noPytestHere,
			check: func(t *testing.T, path string) {
				if out, err := exec.Command(path, "-c", "import pytest").CombinedOutput(); err != nil {
					t.Errorf("%s cannot import pytest: %v %s", path, err, out)
				}
			},
		},
		{
			name: "preferred by name on PATH", preferred: "python3",
			check: func(t *testing.T, path string) {
				if !strings.HasPrefix(path, "/") {
					t.Errorf("path %q is not absolute", path)
				}
			},
		},
		{name: "preferred path that does not exist", preferred: "/nonexistent/bin/python3", wantErr: `find python "/nonexistent/bin/python3": not found`},
		{name: "preferred name that does not exist", preferred: "python9.99", wantErr: `find python "python9.99": not found`},
		{
			name: "preferred without pytest when pytest is needed", preferred: withoutPytest, needPytest: true,
			skip:    allHavePytest,
			wantErr: "cannot import pytest",
		},
		{name: "preferred that is not Python", preferred: "true", wantErr: "not a Python interpreter"},
		{name: "preferred that fails to run", preferred: "false", wantErr: "does not run"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.skip != "" {
				t.Skip(tt.skip)
			}
			if tt.preferred == "" || tt.wantErr == "" {
				requirePython(t)
			}
			path, err := FindPython(ctx, tt.preferred, tt.needPytest)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("FindPython(%q, %v) = %q, %v; want an error containing %q", tt.preferred, tt.needPytest, path, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("FindPython(%q, %v): %v", tt.preferred, tt.needPytest, err)
			}
			tt.check(t, path)
			// A second call is answered from the cache, the same way.
			again, err := FindPython(ctx, tt.preferred, tt.needPytest)
			if err != nil || again != path {
				t.Errorf("second FindPython = %q, %v; want %q, nil", again, err, path)
			}
		})
	}
}

// With no interpreter that will do, FindPython names each one it tried and
// what it lacked, in a sentence that reads.
func TestFindPythonSaysWhatItTried(t *testing.T) {
	dir := t.TempDir()
	noPytest := filepath.Join(dir, "python3")
	if err := os.WriteFile(noPytest, []byte("#!/bin/sh\necho "+noPytest+"; echo 3.11.2; echo no pytest\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	old := pythonCandidates
	t.Cleanup(func() { pythonCandidates = old })
	for _, tt := range []struct {
		name       string
		candidates []string
		needPytest bool
		want       string
	}{
		{"none has pytest", []string{noPytest}, true,
			"find python: no Python 3 interpreter that can import pytest among " + noPytest + " (Python 3.11.2, no pytest)"},
		{"none is there", []string{filepath.Join(dir, "nothing"), filepath.Join(dir, "nothing2")}, false,
			"find python: none of " + filepath.Join(dir, "nothing") + ", " + filepath.Join(dir, "nothing2") + " is on this machine"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pythonCandidates = tt.candidates
			_, err := FindPython(context.Background(), "", tt.needPytest)
			if err == nil || err.Error() != tt.want {
				t.Errorf("FindPython: %v\nwant %s", err, tt.want)
			}
		})
	}
}
