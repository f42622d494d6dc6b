package harness

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/pyharness/pyharness/harness/suite"
)

// BaselineError is a suite that cannot judge a run, found when it ran
// before the task: it does not import, times out, runs no test, starts an
// interpreter that has no pytest, or fails when only its exit status is
// read. An ad hoc run stops on it before the first model call, and collect
// refuses the manifest entry, with the same message.
type BaselineError struct {
	Msg string
}

func (e *BaselineError) Error() string { return e.Msg }

// Baseline is a suite's run before the task, with what is needed to say
// why it judges nothing.
type Baseline struct {
	Result *suite.Result
	// Given is the suite's command as the task gave it, "" for the
	// runner the repository's files call for.
	Given string
	// Detected is the runner the repository's files call for (suite.Detect).
	Detected suite.Kind
	// Python is the interpreter the harness found for the suite, the one
	// {python} stands for in a command.
	Python string
}

// Check returns a *BaselineError saying why the suite cannot judge a run,
// or nil when it can. Failing tests are no reason: a task may be to fix
// them.
func (b Baseline) Check() error {
	res := b.Result
	msg := ""
	switch {
	case res.Cancelled:
		return nil // cut short: says nothing of the suite
	case b.lacksPytest() != "":
		msg = b.noPytest()
	case res.Counts.ImportError != "":
		msg = "the suite does not import at baseline: " + res.Counts.ImportError
	case res.Counts.TimedOut:
		msg = "the suite timed out at baseline"
	case res.RanNoTest():
		msg = b.noTest()
	case res.Counts.ExitStatusOnly && !res.Passed():
		msg = fmt.Sprintf("the suite (%s) fails at baseline (%s), and its runner cannot be told from its command, so only its exit status is read: every run would fail; "+
			"give a suite command that starts pytest, unittest or go test, whose report names the failing tests", b.command(), res.FirstFailure())
	default:
		return nil
	}
	return &BaselineError{Msg: msg}
}

// command is the suite's command line: the one given, or the default one
// as it ran.
func (b Baseline) command() string {
	if b.Given != "" {
		return b.Given
	}
	return strings.Join(b.Result.Command, " ")
}

// noPytestLine is what Python prints for -m pytest when the interpreter
// has no pytest: "/usr/bin/python3: No module named pytest".
var noPytestLine = regexp.MustCompile(`(?m)^(\S+): No module named pytest\s*$`)

// lacksPytest is the interpreter the suite's output says has no pytest,
// or "".
func (b Baseline) lacksPytest() string {
	if b.Result.Kind != suite.Pytest {
		return ""
	}
	if m := noPytestLine.FindStringSubmatch(b.Result.Output); m != nil {
		return m[1]
	}
	return ""
}

// noPytest says that the interpreter the suite's command starts has no
// pytest, and how to start one that has: the {python} placeholder.
func (b Baseline) noPytest() string {
	msg := fmt.Sprintf("the suite (%s) cannot run pytest: the interpreter its command starts, %s, has no pytest (it printed %q)",
		b.command(), b.lacksPytest(), strings.TrimSpace(noPytestLine.FindString(b.Result.Output)))
	if b.Python != "" {
		return msg + fmt.Sprintf(". Write {python} in the command where it names the interpreter, and the harness puts there one that has pytest (%s): e.g. \"{python} -m pytest\"; or install pytest for %s", b.Python, b.lacksPytest())
	}
	return msg + ". Install pytest for it, or write {python} in the command and give --python an interpreter that has pytest"
}

// noTest says that the suite ran no test at baseline: the command, what
// its output ended with, and what to do about it.
func (b Baseline) noTest() string {
	said := "it printed nothing"
	if tail := outputTail(b.Result.Output, 2); tail != "" {
		said = fmt.Sprintf("its output ends %q", tail)
	}
	msg := fmt.Sprintf("the suite (%s) runs no test at baseline: %s, exit status %d; a suite that runs no test has nothing to judge a run by", b.command(), said, b.Result.Counts.ExitCode)
	var hint string
	switch kind := b.Result.Kind; {
	case kind == suite.Unittest && b.Detected == suite.Pytest:
		hint = "the test files hold pytest's tests (test functions, bare asserts), which unittest does not collect: leave the suite command out to run pytest, or give \"{python} -m pytest\""
	case kind == suite.Unittest:
		hint = "unittest discovers test*.py files holding unittest.TestCase classes, in packages (directories with __init__.py): give the suite command \"{python} -m unittest discover -s tests -t .\" with the directory the tests are in, or add the tests the task needs"
	case kind == suite.Pytest:
		hint = "pytest collected no test: check the paths, -k and -m of the suite, and that the test files are named test_*.py or *_test.py (or set python_files in the pytest configuration), or add the tests the task needs"
	case kind == suite.GoTest:
		hint = "go test found no Test function: check the packages the suite names, or add the tests the task needs"
	default:
		hint = "run the suite's command by hand in the repository, and give a suite command that runs its tests"
	}
	return msg + ". " + strings.ToUpper(hint[:1]) + hint[1:]
}

// outputTail is the last n non-blank lines of a suite's output, joined
// by " / " ("Ran 0 tests in 0.000s / OK").
func outputTail(s string, n int) string {
	var tail []string
	lines := strings.Split(s, "\n")
	for i := len(lines) - 1; i >= 0 && len(tail) < n; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			tail = append([]string{l}, tail...)
		}
	}
	return strings.Join(tail, " / ")
}
