package harness

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/suite"
)

// finish runs the suite and checks one last time, takes the patch, and
// judges the run.
func (r *runner) finish(ctx context.Context, started time.Time) (*schemas.RunEnd, error) {
	end := &schemas.RunEnd{
		RunID: r.cfg.RunID, ClaimedDone: r.claimedDone, StopReason: r.stopReason,
		Steps: len(r.steps), ModelSteps: r.modelSteps, SuiteBefore: r.suiteBefore.Counts,
		Warnings: r.warnings, Error: r.modelErr,
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
	case schemas.StopCancelled:
		end.Verdict = schemas.VerdictCancelled
		end.SuiteAfter = r.suiteBefore.Counts
		if r.suiteLatest != nil {
			end.SuiteAfter = r.suiteLatest.Counts
		}
		return end, nil
	case schemas.StopModelError:
		end.Verdict = schemas.VerdictError
		end.SuiteAfter = r.suiteBefore.Counts
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
		if end.Checks, err = r.cfg.Checks.Check(ctx, r.ws.dir); err != nil {
			return nil, fmt.Errorf("run checks: %w", err)
		}
	}
	end.Verdict, end.FailureClass = r.judge(ctx, end, after)
	return end, nil
}

// judge applies the SPEC's verdicts.
func (r *runner) judge(ctx context.Context, end *schemas.RunEnd, after *suite.Result) (schemas.Verdict, schemas.FailureClass) {
	suiteOK := suiteHeld(r.suiteBefore, after)
	worked := false
	switch {
	case r.cfg.Checks != nil: // a run settled at baseline (no-model-steps) included
		worked = end.Checks.Passed && suiteOK
	default:
		worked = r.claimedDone && len(end.Writes) > 0 && len(r.missingNames(ctx, nil)) == 0 && suiteOK
		if b := r.suiteBefore.Counts; worked && (b.Failed+b.Errors > 0 || b.ImportError != "") {
			a := after.Counts
			worked = a.ImportError == "" && a.Failed+a.Errors < b.Failed+b.Errors
		}
	}
	if worked {
		return schemas.VerdictWorked, ""
	}
	if len(end.Writes) == 0 {
		return schemas.VerdictFailed, schemas.FailWroteNothing
	}
	if len(r.cfg.Targets) > 0 {
		hit := false
		for _, w := range end.Writes {
			for _, t := range r.cfg.Targets {
				hit = hit || w.Path == t
			}
		}
		if !hit {
			return schemas.VerdictFailed, schemas.FailWrongThing
		}
	}
	if len(r.missingNames(ctx, nil)) > 0 || r.targetImportFails(ctx) {
		return schemas.VerdictFailed, schemas.FailWrongThing
	}
	return schemas.VerdictFailed, schemas.FailDidNotDoTheJob
}

// suiteHeld reports whether no test that passed at baseline fails now:
// from the counts, a suite that passed must still pass, and one that did
// not must not have lost passing tests or gained failures.
func suiteHeld(before, after *suite.Result) bool {
	if before.Passed() {
		return after.Passed()
	}
	b, a := before.Counts, after.Counts
	if a.TimedOut && !b.TimedOut {
		return false
	}
	if a.ImportError != "" && b.ImportError == "" {
		return false
	}
	return a.Passed >= b.Passed && a.Failed+a.Errors <= b.Failed+b.Errors
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
		cmd, done, err := suite.Sandbox{Env: []string{"PYTHONDONTWRITEBYTECODE=1"}}.Command(cctx, r.ws.dir,
			[]string{r.suite.Python, "-c", "import importlib, sys; sys.path.insert(0, '.'); importlib.import_module(sys.argv[1])", moduleName(t)})
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
