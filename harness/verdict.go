package harness

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/pyharness/pyharness/harness/suite"
	"github.com/pyharness/pyharness/schemas"
)

// finish runs the suite and checks one last time, takes the patch, and
// judges the run.
func (r *runner) finish(ctx context.Context, started time.Time) (*schemas.RunEnd, error) {
	end := &schemas.RunEnd{
		RunID: r.cfg.RunID, ClaimedDone: r.claimedDone, StopReason: r.stopReason,
		Steps: len(r.steps), ModelSteps: r.modelSteps, SuiteBefore: r.suiteBefore.Counts,
		Warnings: r.warnings, Error: r.modelErr,
	}
	if r.stopReason == schemas.StopStuck {
		end.Stuck = r.stuck.record()
	}
	// A cancelled run still records what it changed, with a fresh context:
	// the caller's is done.
	fctx := ctx
	if ctx.Err() != nil {
		var cancel context.CancelFunc
		fctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
	}
	writes, patch, err := r.ws.changes(fctx)
	if err != nil {
		return nil, err
	}
	end.Writes, end.Patch = writes, patch
	defer func() {
		end.EndedAt = r.cfg.Now().UTC()
		end.DurationMS = end.EndedAt.Sub(started).Milliseconds()
	}()
	switch r.stopReason {
	case schemas.StopCancelled, schemas.StopModelError:
		end.Verdict = schemas.VerdictCancelled
		if r.stopReason == schemas.StopModelError {
			end.Verdict = schemas.VerdictError
		}
		// The suite is not run for a run that ended so; its last run
		// stands when nothing changed since, and otherwise none does.
		end.SuiteAfter = schemas.SuiteCounts{NotRun: true}
		if r.suiteLatest != nil {
			end.SuiteAfter = r.suiteLatest.Counts
		}
		return end, nil
	}
	after := r.suiteLatest
	if after == nil {
		if after, err = r.runSuite(ctx); err != nil {
			return nil, err
		}
	}
	end.SuiteAfter = after.Counts
	if r.cfg.Checks != nil {
		var same bool
		if end.Checks, same = r.checkFromSuite(after); !same {
			if end.Checks, err = r.cfg.Checks.Check(ctx, r.ws.dir); err != nil {
				return nil, fmt.Errorf("run checks: %w", err)
			}
		}
	}
	end.Verdict, end.FailureClass, end.Reason = r.judge(ctx, end, after)
	return end, nil
}

// checkFromSuite is the check's result read from after, the suite's last
// run, which saw the tree as the run left it: when the check's command is
// the suite's (SuiteChecker), it passes as that run exited 0. A run that
// timed out or was cut short says nothing of the check, which then runs.
func (r *runner) checkFromSuite(after *suite.Result) (schemas.Checks, bool) {
	sc, ok := r.cfg.Checks.(SuiteChecker)
	if !ok || r.cfg.Suite == "" || !sc.RunsSuite(r.cfg.Suite) || after.Counts.TimedOut || after.Cancelled {
		return schemas.Checks{}, false
	}
	c := schemas.Checks{Ran: true, Passed: after.Counts.ExitCode == 0}
	if !c.Passed {
		c.FirstFailure = after.FirstFailure()
	}
	return c, true
}

// judge applies the SPEC's verdicts, and says in one line why a run
// failed. The suite is judged against its baseline: a test that failed
// before the task and still fails is not the run's doing, unless the task
// names it.
func (r *runner) judge(ctx context.Context, end *schemas.RunEnd, after *suite.Result) (schemas.Verdict, schemas.FailureClass, string) {
	broken := suiteBroken(r.suiteBefore, after)
	named := r.namedBaselineFailures(after)
	missing := r.missingNames(ctx, nil)
	worked := false
	switch {
	case r.cfg.Checks != nil: // a run settled at baseline (no-model-steps) included
		worked = end.Checks.Passed && broken == ""
	default:
		worked = r.claimedDone && len(end.Writes) > 0 && len(missing) == 0 && broken == "" && len(named) == 0
	}
	if worked {
		if why := r.unjudged(end, after); why != "" {
			return schemas.VerdictUnjudged, "", why
		}
		return schemas.VerdictWorked, "", ""
	}
	if len(end.Writes) == 0 {
		reason := "wrote nothing"
		if r.claimedDone {
			reason += ", and claimed DONE"
		} else {
			reason += fmt.Sprintf(" (stopped: %s)", stopText(end))
		}
		return schemas.VerdictFailed, schemas.FailWroteNothing, reason
	}
	if len(r.cfg.Targets) > 0 {
		hit := false
		for _, w := range end.Writes {
			hit = hit || slices.Contains(r.cfg.Targets, w.Path)
		}
		if !hit {
			var wrote []string
			for _, w := range end.Writes {
				wrote = append(wrote, w.Path)
			}
			return schemas.VerdictFailed, schemas.FailWrongThing,
				fmt.Sprintf("wrote %s, not the target %s", strings.Join(wrote, ", "), strings.Join(r.cfg.Targets, ", "))
		}
	}
	if len(missing) > 0 {
		return schemas.VerdictFailed, schemas.FailWrongThing,
			fmt.Sprintf("%s not defined in %s, and the task asks for it", strings.Join(missing, ", "), strings.Join(r.nameFiles(), ", "))
	}
	if r.targetImportFails(ctx) {
		return schemas.VerdictFailed, schemas.FailWrongThing, "a target does not import"
	}
	var reason string
	switch {
	case broken != "":
		reason = broken
	case end.Checks.Ran && !end.Checks.Passed:
		reason = "the checks fail: " + oneLine(end.Checks.FirstFailure)
	case len(named) > 0:
		reason = fmt.Sprintf("%s failed before the task and still fails, and the task names it", strings.Join(named, ", "))
	case !r.claimedDone:
		reason = fmt.Sprintf("did not claim DONE (stopped: %s)", stopText(end))
	default:
		reason = "the change did not do what was asked"
	}
	return schemas.VerdictFailed, schemas.FailDidNotDoTheJob, reason
}

// stopText is a run's stop reason as a failure's reason says it: a stuck
// run says which refusal repeated.
func stopText(end *schemas.RunEnd) string {
	return end.StopText()
}

// unjudged says why a run that did everything else right is judged on
// nothing, or "": its suite ran no test, before the change or after it,
// and no check of the harness's own judged it instead. A suite read from its
// exit status alone is not one of these: it judged by its exit status.
func (r *runner) unjudged(end *schemas.RunEnd, after *suite.Result) string {
	if r.cfg.Checks != nil && end.Checks.Ran {
		return ""
	}
	command := shownSuiteCommand(after.Command, r.suite.Python, r.suiteCommand())
	before := r.suiteBefore.RanNoTest()
	switch {
	case before && after.RanNoTest():
		return fmt.Sprintf("the suite (%s) ran no test before the run or after it: nothing judged the change", command)
	case before:
		return fmt.Sprintf("the suite (%s) ran no test before the run: the only tests that judged the change are the ones it ran after it, %d of them", command, after.Counts.Ran)
	case after.RanNoTest():
		return fmt.Sprintf("the suite (%s) ran no test after the run: nothing judged the change", command)
	}
	return ""
}

// oneLine is the first line of s, cut to a width a summary line can hold.
func oneLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > 160 {
		s = string(r[:159]) + "…"
	}
	return s
}

// suiteBroken says how the run made the suite worse than at baseline, or
// "" when it did not: a suite that passed must still pass; one that did
// not must not have gained a failing test (by name, where the runner names
// them), lost passing tests, or stopped importing.
func suiteBroken(before, after *suite.Result) string {
	if after.Counts.ExitStatusOnly && !after.Passed() {
		// No test is named and no count read: a suite that still fails
		// is all that can be said, and it is not a pass.
		if before.Passed() {
			return "the suite passed before the run and fails after it: " + namedFailure(after)
		}
		return "the suite fails after the run (read from its exit status alone): " + namedFailure(after)
	}
	if before.Passed() {
		if after.Passed() {
			return ""
		}
		return "the suite passed before the run and fails after it: " + namedFailure(after)
	}
	b, a := before.Counts, after.Counts
	switch {
	case a.TimedOut && !b.TimedOut:
		return "the suite timed out after the run, not before it"
	case a.ImportError != "" && b.ImportError == "":
		return "the suite does not import after the run: " + oneLine(a.ImportError)
	}
	if fresh := newFailures(before, after); len(fresh) > 0 {
		// "a fails …", "a, b and c fail …", "a, b, c and 36 more fail …".
		names := strings.Join(fresh, ", ")
		switch {
		case len(fresh) > 3:
			names = fmt.Sprintf("%s and %d more", strings.Join(fresh[:3], ", "), len(fresh)-3)
		case len(fresh) > 1:
			names = strings.Join(fresh[:len(fresh)-1], ", ") + " and " + fresh[len(fresh)-1]
		}
		verb := "fail"
		if len(fresh) == 1 {
			verb = "fails"
		}
		return fmt.Sprintf("%s %s after the run, not before it", names, verb)
	}
	if a.Passed < b.Passed || a.Failed+a.Errors > b.Failed+b.Errors {
		return fmt.Sprintf("the suite is worse after the run: %d passed, %d failing, where %d passed and %d failed before", a.Passed, a.Failed+a.Errors, b.Passed, b.Failed+b.Errors)
	}
	return ""
}

// namedFailure says in one line why the suite fails, naming the failing
// test where the runner names it: "tests/test_a.py::test_x: AssertionError:
// ... (and 2 more failing)". An import error, a timeout or a cancel comes
// first, as in suite.Result.FirstFailure: every failure after it is its
// consequence.
func namedFailure(res *suite.Result) string {
	c := res.Counts
	first := res.FirstFailure()
	if c.ImportError != "" || c.TimedOut || res.Cancelled {
		return oneLine(first)
	}
	var named []suite.Failure
	for _, f := range res.Failures {
		if f.Test != "" && !slices.ContainsFunc(named, func(g suite.Failure) bool { return g.Test == f.Test }) {
			named = append(named, f)
		}
	}
	if len(named) == 0 {
		return oneLine(first)
	}
	// The first named failure that says why, as FirstFailure picks it.
	pick := named[0]
	for _, f := range named {
		if f.Message != "" {
			pick = f
			break
		}
	}
	line := pick.Test + " failed"
	if pick.Message != "" {
		line = pick.Test + ": " + pick.Message
	}
	line = oneLine(line)
	if len(named) > 1 {
		line += fmt.Sprintf(" (and %d more failing)", len(named)-1)
	}
	return line
}

// newFailures are the tests that fail after the run and did not before.
func newFailures(before, after *suite.Result) []string {
	was := map[string]bool{}
	for _, f := range before.Failures {
		was[f.Test] = true
	}
	var fresh []string
	for _, f := range after.Failures {
		if f.Test != "" && !was[f.Test] && !slices.Contains(fresh, f.Test) {
			fresh = append(fresh, f.Test)
		}
	}
	return fresh
}

// namedBaselineFailures are the tests that failed at baseline, that the
// task names, and that still fail after the run: those the run had to fix.
func (r *runner) namedBaselineFailures(after *suite.Result) []string {
	still := map[string]bool{}
	for _, f := range after.Failures {
		still[f.Test] = true
	}
	var out []string
	for _, t := range r.taskNamedBaselineFailures() {
		if still[t] {
			out = append(out, t)
		}
	}
	return out
}

// taskNamedBaselineFailures are the tests failing at baseline that the
// task names, by their full name or by their own last part
// ("test_installed" for "tests/test_a.py::TestA::test_installed").
func (r *runner) taskNamedBaselineFailures() []string {
	var out []string
	for _, f := range r.suiteBefore.Failures {
		if f.Test != "" && taskNames(r.cfg.Task, f.Test) && !slices.Contains(out, f.Test) {
			out = append(out, f.Test)
		}
	}
	return out
}

// taskNames reports whether the task's text names the test.
func taskNames(task, test string) bool {
	if strings.Contains(task, test) {
		return true
	}
	last := test
	// A parametrized test is named by its function: "test_x[1.5-a]" by
	// "test_x" (the brackets' dots and slashes are not separators).
	if i := strings.IndexByte(last, '['); i > 0 && strings.HasSuffix(last, "]") {
		if strings.Contains(task, last[:i]+"[") {
			return false // the task names other parameters of it
		}
		last = last[:i]
	}
	if i := strings.LastIndexAny(last, ":./ "); i >= 0 {
		last = last[i+1:]
	}
	if len(last) < 4 {
		return false
	}
	for rest := task; ; {
		i := strings.Index(rest, last)
		if i < 0 {
			return false
		}
		before := i == 0 || !isWordByte(rest[i-1])
		after := i+len(last) == len(rest) || !isWordByte(rest[i+len(last)])
		if before && after {
			return true
		}
		rest = rest[i+len(last):]
	}
}

func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// targetImportFails reports whether a Python target that exists does not
// import (seed #333: say the module did not import rather than calling the
// function missing).
func (r *runner) targetImportFails(ctx context.Context) bool {
	if r.suite.Python == "" {
		return false
	}
	for _, t := range r.cfg.Targets {
		if !strings.HasSuffix(t, ".py") {
			continue
		}
		if _, err := os.Stat(r.abs(t)); err != nil {
			continue
		}
		// Importing runs the model's code: in the suite's sandbox (isolated
		// too when ctx asks for it, see suite.WithIsolation).
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		// A src layout's module is imported by its own name, from src/,
		// as its tests import it.
		env, mod := []string{"PYTHONDONTWRITEBYTECODE=1"}, moduleName(t)
		for _, p := range suite.ImportPath(r.ws.dir) {
			if rest, ok := strings.CutPrefix(t, p+"/"); ok {
				env, mod = append(env, "PYTHONPATH="+p), moduleName(rest)
			}
		}
		cmd, done, err := suite.Sandbox{Env: env}.Command(cctx, r.ws.dir,
			[]string{r.suite.Python, "-c", "import importlib, sys; sys.path.insert(0, '.'); importlib.import_module(sys.argv[1])", mod})
		if err != nil {
			cancel()
			continue // no sandbox, no verdict on the import
		}
		err = cmd.Run()
		done()
		cancel()
		if err != nil {
			return true
		}
	}
	return false
}
