package collect

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/pyharness/pyharness/harness"
	"github.com/pyharness/pyharness/harness/suite"
)

// Baseline runs each entry's suite once on a copy of its repository, before
// anything else: a suite that cannot run at all (does not import, runs no
// test, times out, or fails when nothing but its exit status is read) is a
// problem with the entry's line, saying what the suite printed and what to
// do; failing tests are allowed (a "fix the failing test" task) and noted.
func Baseline(ctx context.Context, entries []Entry, python string) (ok []Entry, problems []Problem, notes []string) {
	for _, e := range entries {
		b, err := baselineOne(ctx, e, python)
		if err != nil {
			problems = append(problems, Problem{Line: e.Line, Entry: e.ID, Msg: err.Error()})
			continue
		}
		res := b.res
		switch {
		case res.Counts.ImportError != "":
			problems = append(problems, Problem{Line: e.Line, Entry: e.ID, Msg: "the suite does not import at baseline: " + res.Counts.ImportError})
		case res.Counts.TimedOut:
			problems = append(problems, Problem{Line: e.Line, Entry: e.ID, Msg: "the suite timed out at baseline"})
		case res.RanNoTest():
			problems = append(problems, Problem{Line: e.Line, Entry: e.ID, Msg: b.noTest()})
		case res.Counts.ExitStatusOnly && !res.Passed():
			problems = append(problems, Problem{Line: e.Line, Entry: e.ID, Msg: fmt.Sprintf(
				"the suite (%s) fails at baseline (%s), and its runner cannot be told from its command, so only its exit status is read: every run would fail; "+
					"give suite: a command that starts pytest, unittest or go test, whose report names the failing tests", b.command(), res.FirstFailure())})
		default:
			if !res.Passed() {
				notes = append(notes, fmt.Sprintf("%s: the suite has failing tests at baseline (%d failed, %d errors of %d): a run is judged against them, and must fix only those its task names", e.ID, res.Counts.Failed, res.Counts.Errors, res.Counts.Ran))
			}
			ok = append(ok, e)
		}
	}
	return ok, problems, notes
}

// baseline is one entry's suite run at baseline, with what is needed to
// say why it judges nothing.
type baseline struct {
	res *suite.Result
	// kind is the runner the suite's command starts; detected is the one
	// the repository's files call for (suite.Detect).
	kind, detected suite.Kind
	given          string // the entry's suite:, or ""
}

func baselineOne(ctx context.Context, e Entry, python string) (*baseline, error) {
	dir, err := os.MkdirTemp("", "pyharness-baseline-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := harness.CopyRepo(e.Dir, dir); err != nil {
		return nil, fmt.Errorf("copy repository: %w", err)
	}
	b := &baseline{kind: suite.KindOf(e.Suite, dir), detected: suite.Detect(dir), given: e.Suite}
	r := suite.Runner{Kind: b.kind, Command: e.Suite}
	if b.kind != suite.GoTest {
		py, err := suite.FindPython(ctx, python, b.kind == suite.Pytest)
		if err != nil {
			return nil, err
		}
		r.Python = py
	}
	if b.res, err = r.Run(ctx, dir); err != nil {
		return nil, fmt.Errorf("the suite cannot run: %w", err)
	}
	return b, nil
}

// command is the suite's command line: the entry's own, or the default
// one as it ran.
func (b *baseline) command() string {
	cmd := strings.Join(b.res.Command, " ")
	if b.given != "" {
		cmd = b.given
	}
	return cmd
}

// noTest says that the suite ran no test at baseline: the command, what
// its output ended with, and what to do about it.
func (b *baseline) noTest() string {
	said := "it printed nothing"
	if tail := outputTail(b.res.Output, 2); tail != "" {
		said = fmt.Sprintf("its output ends %q", tail)
	}
	msg := fmt.Sprintf("the suite (%s) runs no test at baseline: %s, exit status %d; an entry whose suite runs no test has nothing to judge its runs by", b.command(), said, b.res.Counts.ExitCode)
	var hint string
	switch {
	case b.kind == suite.Unittest && b.detected == suite.Pytest:
		hint = "the test files hold pytest's tests (test functions, bare asserts), which unittest does not collect: leave suite: out to run pytest, or give suite: \"{python} -m pytest\""
	case b.kind == suite.Unittest:
		hint = "unittest discovers test*.py files holding unittest.TestCase classes, in packages (directories with __init__.py): give suite: \"{python} -m unittest discover -s tests -t .\" with the directory the tests are in, or add the tests the task needs"
	case b.kind == suite.Pytest:
		hint = "pytest collected no test: check the paths, -k and -m of the suite, and that the test files are named test_*.py or *_test.py (or set python_files in the pytest configuration), or add the tests the task needs"
	case b.kind == suite.GoTest:
		hint = "go test found no Test function: check the packages the suite names, or add the tests the task needs"
	default:
		hint = "run the suite's command by hand in the repository, and give suite: a command that runs its tests"
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
