package suite

import (
	"fmt"
	"os"
	"path/filepath"
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
	// CountsFrom says where Counts were read from: fromJUnitXML or
	// fromGoTestJSON for the default pytest and go test commands when the
	// runner wrote its report, else fromOutput.
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
// none failed or errored, every module imported and the run finished.
func (r *Result) Passed() bool {
	c := r.Counts
	return c.Ran > 0 && c.Failed == 0 && c.Errors == 0 && c.ImportError == "" &&
		!c.TimedOut && !c.NoTests && !r.Cancelled
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
// pytest; anything else is unittest.
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
		contains("tox.ini", "[pytest]"):
		return Pytest
	}
	return Unittest
}
