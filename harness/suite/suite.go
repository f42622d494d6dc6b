package suite

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/pyharness/pyharness/schemas"
)

// Kind names a test runner.
type Kind string

// The runners this package knows how to start and read.
const (
	Unittest Kind = "unittest"
	Pytest   Kind = "pytest"
	GoTest   Kind = "gotest"
	// unknown is a command whose runner its words do not tell (make test,
	// tox, a script of the project's own): it is read from its exit status
	// alone, unless its output holds a runner's own closing report.
	unknown Kind = "unknown"
)

// Result is what one run of a suite reported.
type Result struct {
	// Counts are read from the runner's output; see schemas.SuiteCounts.
	Counts schemas.SuiteCounts
	// Output is the combined stdout and stderr, capped to its head and tail.
	Output string
	// OutputBytes is how many bytes the process printed in total.
	OutputBytes int64
	// Failures are the failing tests the output describes, in its order.
	Failures []Failure
	// Duration is the wall time from start to exit (or kill).
	Duration time.Duration
	// Command is the argument vector of the suite as a person would run
	// it: the arguments that asked the runner for a structured report (a
	// JUnit XML file in a temporary directory, go test's -json) were added
	// to it to run, and are not shown here or to the model.
	Command []string
	// Kind is the runner that ran: the one the command starts, whatever
	// the repository looks like (unknown when its words do not say).
	Kind Kind
	// CountsFrom says where Counts were read from: fromJUnitXML or
	// fromGoTestJSON when pytest or go test wrote its report, fromOutput
	// when the text was read, fromExitStatus when there was nothing to
	// read but the exit status (Counts.ExitStatusOnly).
	CountsFrom string
	// Timeout is the limit the run had; it is what FirstFailure reports
	// when the run was killed for it.
	Timeout time.Duration
	// Cancelled is set when the caller's context was cancelled before the
	// suite finished; the process group was killed and the counts are partial.
	Cancelled bool
}

// Failure is one failing test (or one module that did not import) as the
// output describes it.
type Failure struct {
	// Test identifies the test: "tests.test_a.T.test_x" (unittest),
	// "tests/test_a.py::test_x" (pytest), "TestX/sub" (go), or the module
	// or package that did not import.
	Test string
	// File is the last file of the traceback inside the repository, relative
	// to it, with forward slashes; empty when the output does not say.
	File string
	// Line is the line in File, or 0.
	Line int
	// Message is the first line of the error, e.g.
	// "AssertionError: 'A L' != 'A. L.'".
	Message string
}

// String formats the failure as "file:line: test: message".
func (f Failure) String() string {
	var b strings.Builder
	if f.File != "" {
		b.WriteString(f.File)
		if f.Line > 0 {
			fmt.Fprintf(&b, ":%d", f.Line)
		}
		b.WriteString(": ")
	}
	if f.Test != "" {
		b.WriteString(f.Test)
		b.WriteString(": ")
	}
	b.WriteString(f.Message)
	return b.String()
}

// Passed reports whether the suite really passed: at least one test ran,
// none failed or errored, every module imported, the run finished and it
// exited 0. A suite read from its exit status alone passed when it
// finished and exited 0.
func (r *Result) Passed() bool {
	c := r.Counts
	if c.ExitStatusOnly {
		return c.ExitCode == 0 && !c.TimedOut && !r.Cancelled
	}
	return c.Ran > 0 && c.Failed == 0 && c.Errors == 0 && c.ImportError == "" &&
		!c.TimedOut && !c.NoTests && !r.Cancelled && c.ExitCode == 0
}

// RanNoTest reports whether the suite finished and ran no test, with
// nothing to blame for it (an import error, a timeout): a run judged on
// it is judged on nothing. A suite read from its exit status alone is not
// counted here: it says nothing of its tests.
func (r *Result) RanNoTest() bool {
	c := r.Counts
	return !c.ExitStatusOnly && c.Ran == 0 && c.ImportError == "" && !c.TimedOut && !r.Cancelled
}

// FirstFailure says in one line why the suite did not pass, or "" when it
// did. An import error comes first because every failure after it is a
// consequence of it (a missing module reads as a missing function otherwise).
func (r *Result) FirstFailure() string {
	c := r.Counts
	switch {
	case c.ImportError != "":
		return c.ImportError
	case c.TimedOut:
		return "timed out after " + r.Timeout.String()
	case r.Cancelled:
		return "cancelled before the suite finished"
	}
	for _, f := range r.Failures {
		if f.Message != "" {
			return f.Message
		}
	}
	switch {
	case len(r.Failures) > 0:
		return r.Failures[0].Test + " failed"
	case c.Failed > 0 || c.Errors > 0:
		return fmt.Sprintf("%d failed, %d errors (the details were cut from the output)", c.Failed, c.Errors)
	case c.NoTests:
		return "no tests ran"
	case c.ExitStatusOnly && c.ExitCode == 0:
		return ""
	case c.ExitCode != 0:
		if last := lastLine(r.Output); last != "" {
			return fmt.Sprintf("suite exited with code %d: %s", c.ExitCode, last)
		}
		return fmt.Sprintf("suite exited with code %d", c.ExitCode)
	case c.Ran == 0:
		return "no tests ran"
	}
	return ""
}

func lastLine(s string) string {
	s = strings.TrimRight(s, " \t\r\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return strings.TrimSpace(s)
}

// Detect chooses the runner for the repository at dir: a go.mod means go
// test; pytest configuration (pytest.ini, conftest.py, [tool.pytest...] in
// pyproject.toml, [tool:pytest] in setup.cfg, [pytest] in tox.ini) means
// pytest, and so do test files only pytest collects (see pytestStyle);
// anything else is unittest.
func Detect(dir string) Kind {
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join(dir, name))
		return err == nil
	}
	contains := func(name, section string) bool {
		data, err := os.ReadFile(filepath.Join(dir, name))
		return err == nil && strings.Contains(string(data), section)
	}
	switch {
	case exists("go.mod"):
		return GoTest
	case exists("pytest.ini"), exists("conftest.py"), exists(filepath.Join("tests", "conftest.py")),
		contains("pyproject.toml", "[tool.pytest"),
		contains("setup.cfg", "[tool:pytest]"),
		contains("tox.ini", "[pytest]"),
		pytestStyle(dir):
		return Pytest
	}
	return Unittest
}

// Limits of pytestStyle's look at a repository's test files.
const (
	styleMaxFiles = 200
	styleMaxBytes = 256 << 10
)

// pytestTest is what only pytest collects in a test file: a test function
// at module level, a Test class that is no unittest.TestCase, or pytest
// itself imported.
var pytestTest = regexp.MustCompile(`(?m)^(?:async\s+)?def test\w*\s*\(|^class Test\w*\s*(?::|\(\s*(?:object\s*)?\)\s*:)|^\s*(?:import pytest\b|from pytest\b)`)

// pytestStyle reports whether a test file of the repository, named the
// way pytest finds them by default (test_*.py, *_test.py), holds a test
// only pytest collects: bare-assert tests with no configuration are
// pytest's, and unittest would run none of them.
func pytestStyle(dir string) bool {
	seen, found := 0, false
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case found || seen >= styleMaxFiles:
			return fs.SkipAll
		case err != nil:
			return nil
		}
		name := d.Name()
		if d.IsDir() {
			if p != dir && (strings.HasPrefix(name, ".") || name == "__pycache__" || name == "node_modules" ||
				name == "venv" || name == "site-packages" || strings.HasSuffix(name, ".egg-info")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".py") || !(strings.HasPrefix(name, "test_") || strings.HasSuffix(name, "_test.py")) {
			return nil
		}
		seen++
		f, err := os.Open(p)
		if err != nil {
			return nil
		}
		defer f.Close()
		data, _ := io.ReadAll(io.LimitReader(f, styleMaxBytes))
		found = pytestTest.Match(data)
		return nil
	})
	return found
}
