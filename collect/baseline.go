package collect

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/pyharness/pyharness/harness"
	"github.com/pyharness/pyharness/suite"
)

// Baseline runs each entry's suite once on a copy of its repository, before
// anything else: a suite that cannot run at all (does not import, runs no
// test, times out) is a problem with the entry's line; failing tests are
// allowed (a "fix the failing test" task) and noted.
func Baseline(ctx context.Context, entries []Entry, python string) (ok []Entry, problems []Problem, notes []string) {
	for _, e := range entries {
		res, err := baselineOne(ctx, e, python)
		switch {
		case err != nil:
			problems = append(problems, Problem{Line: e.Line, Entry: e.ID, Msg: err.Error()})
		case res.Counts.ImportError != "":
			problems = append(problems, Problem{Line: e.Line, Entry: e.ID, Msg: "the suite does not import at baseline: " + res.Counts.ImportError})
		case res.Counts.TimedOut:
			problems = append(problems, Problem{Line: e.Line, Entry: e.ID, Msg: "the suite timed out at baseline"})
		case res.Counts.NoTests || res.Counts.Ran == 0:
			problems = append(problems, Problem{Line: e.Line, Entry: e.ID, Msg: "the suite runs no test at baseline"})
		default:
			if !res.Passed() {
				notes = append(notes, fmt.Sprintf("%s: the suite has failing tests at baseline (%d failed, %d errors of %d): a run is judged against them, and must fix only those its task names", e.ID, res.Counts.Failed, res.Counts.Errors, res.Counts.Ran))
			}
			ok = append(ok, e)
		}
	}
	return ok, problems, notes
}

func baselineOne(ctx context.Context, e Entry, python string) (*suite.Result, error) {
	dir, err := os.MkdirTemp("", "pyharness-baseline-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := harness.CopyRepo(e.Dir, dir); err != nil {
		return nil, fmt.Errorf("copy repository: %w", err)
	}
	r := suite.Runner{Command: e.Suite}
	if e.Suite == "" {
		r.Kind = suite.Detect(dir)
	}
	if r.Kind != suite.GoTest {
		py, err := suite.FindPython(ctx, python, r.Kind == suite.Pytest || strings.Contains(e.Suite, "pytest"))
		if err != nil {
			return nil, err
		}
		r.Python = py
	}
	res, err := r.Run(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("the suite cannot run: %w", err)
	}
	return res, nil
}
