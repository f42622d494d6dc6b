package bench

import (
	"context"
	"fmt"

	"github.com/pyharness/pyharness/collect"
	"github.com/pyharness/pyharness/collect/runcost"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

// Outcome is one run of the benchmark, as the report reads it.
type Outcome struct {
	RunID        string               `json:"run_id"`
	Case         string               `json:"case"`
	Tier         int                  `json:"tier"`
	Pass         int                  `json:"pass"`
	Verdict      schemas.Verdict      `json:"verdict"`
	FailureClass schemas.FailureClass `json:"failure_class"`
	Writes       []schemas.Write      `json:"writes"`
	Steps        int                  `json:"steps"`
	ModelSteps   int                  `json:"model_steps"`
	StopReason   schemas.StopReason   `json:"stop_reason"`
	ClaimedDone  bool                 `json:"claimed_done"`
	Why          string               `json:"why"`
	Backend      string               `json:"backend"`
	Model        string               `json:"model"`
	// Divergence says where a replayed run first did something other than
	// the run it replays; empty when it did not diverge or is no replay.
	Divergence string `json:"divergence,omitempty"`
	// Context is the context window the run had (run_start's), nil for
	// backends without a server.
	Context *schemas.ContextSizes `json:"context,omitempty"`
	// ContextFull, ContextTruncated and ContextOverflow count the run's
	// turns whose reply was cut by a full context, whose prompt the server
	// cut, and whose prompt the server refused (refitted or not).
	ContextFull      int `json:"context_full"`
	ContextTruncated int `json:"context_truncated"`
	ContextOverflow  int `json:"context_overflow"`
	// Cost is what the run's model calls cost, read from its trace.
	Cost runcost.Cost `json:"cost"`
}

// Judged reports whether the run counts in scores: error and cancelled
// runs do not.
func (o Outcome) Judged() bool {
	return o.Verdict.Judged()
}

// Run runs every planned (case, pass) of o with collect's planner and
// runner, Jobs at a time, whatever OUT already holds (o.Resume is not read:
// a benchmark run again records each run as a new attempt, and writes no
// plan file), and returns the outcomes in plan order. A run that fails to
// start (not a model failure, which is an outcome) stops the benchmark.
func Run(ctx context.Context, o collect.Options) ([]Outcome, error) {
	plan, err := collect.Plan(ctx, o)
	if err != nil {
		return nil, err
	}
	order := make(map[*collect.Planned]int, len(plan))
	for i, p := range plan {
		order[p] = i
	}
	out := make([]*Outcome, len(plan))
	err = collect.RunPlanned(ctx, o, plan, func(r collect.Ran) error {
		res := r.Result
		run, err := trace.ReadRun(trace.File{RunID: res.Start.RunID, Path: res.TracePath})
		if run == nil {
			return fmt.Errorf("read the trace of %s: %w", res.Start.RunID, err)
		}
		oc := outcomeOf(&res.Start, run.Turns, &res.End)
		oc.ContextFull = res.TurnWarnings[schemas.CodeContextFull]
		oc.ContextTruncated = res.TurnWarnings[schemas.CodeContextTruncated]
		oc.ContextOverflow = res.TurnWarnings[schemas.CodeContextOverflow]
		if rp, ok := r.Chat.(recordedRun); ok {
			oc.Divergence = Diverged(rp, res.Steps)
		}
		out[order[r.Run]] = &oc
		return nil
	})
	var res []Outcome
	for _, oc := range out {
		if oc != nil {
			res = append(res, *oc)
		}
	}
	return res, err
}

// outcomeOf reads an outcome from a run's records.
func outcomeOf(start *schemas.RunStart, turns []*schemas.Turn, end *schemas.RunEnd) Outcome {
	o := Outcome{RunID: start.RunID, Case: start.CaseID, Tier: start.Tier, Pass: start.Pass,
		Backend: start.Model.Backend, Model: start.Model.Name, Context: start.Model.Context,
		Cost: runcost.Of(start, turns, end)}
	if end == nil {
		o.Verdict, o.StopReason, o.Why = schemas.VerdictCancelled, schemas.StopCancelled, "the run has no run_end (cut off)"
		return o
	}
	o.Verdict, o.FailureClass, o.Writes = end.Verdict, end.FailureClass, end.Writes
	o.Steps, o.ModelSteps, o.StopReason, o.ClaimedDone = end.Steps, end.ModelSteps, end.StopReason, end.ClaimedDone
	if o.Writes == nil {
		o.Writes = []schemas.Write{}
	}
	switch {
	case end.Verdict == schemas.VerdictWorked:
	case end.Error != "":
		o.Why = end.Error
	case end.StopReason == schemas.StopBrokeSuite:
		o.Why = "broke the suite: " + firstLine(suiteWhy(end.SuiteAfter))
	case end.StopReason == schemas.StopStuck && len(end.Writes) == 0:
		// The refusal the model could not leave says more than the
		// checks a run that wrote nothing fails.
		o.Why = "wrote nothing (stop: " + end.StopText() + ")"
	case end.StopReason == schemas.StopStuck:
		o.Why = "stop: " + end.StopText()
	case end.Checks.Ran && !end.Checks.Passed:
		o.Why = firstLine(end.Checks.FirstFailure)
	case end.SuiteAfter.ImportError != "":
		o.Why = firstLine(end.SuiteAfter.ImportError)
	case len(end.Writes) == 0:
		o.Why = "wrote nothing (stop: " + end.StopText() + ")"
	default:
		o.Why = "stop: " + end.StopText()
	}
	return o
}

func suiteWhy(c schemas.SuiteCounts) string {
	if c.ImportError != "" {
		return c.ImportError
	}
	return fmt.Sprintf("%d failed, %d errors of %d", c.Failed, c.Errors, c.Ran)
}

func firstLine(s string) string {
	for i, r := range s {
		if r == '\n' {
			return s[:i]
		}
	}
	return s
}
