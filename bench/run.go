package bench

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/pyharness/pyharness/datasets"
	"github.com/pyharness/pyharness/harness"
	"github.com/pyharness/pyharness/internal/version"
	"github.com/pyharness/pyharness/schemas"
)

// Model gives the backend for one planned run, with the description of it
// that goes on run_start (backend, name, digest, options).
type Model func(ctx context.Context, it Item, opts schemas.Options) (harness.Chatter, schemas.Model, error)

// Options configure a benchmark run.
type Options struct {
	Cases  []datasets.Case
	Passes int
	// Jobs is how many runs go at once (1 when 0).
	Jobs int
	// OutDir receives runs/ and patches/.
	OutDir  string
	Model   Model
	Options schemas.Options
	// FixedSeed keeps the seed the same in every pass; otherwise pass p is
	// sent Options.Seed + p.
	FixedSeed bool
	Python    string
	MaxSteps  int
	// Progress is called after each run with the runs done and worked so far.
	Progress func(done, total, worked int)
	// Skip reports whether a planned run is already complete (resume).
	Skip func(runID string) bool
	Now  func() time.Time
}

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
}

// Judged reports whether the run counts in scores: error and cancelled
// runs do not.
func (o Outcome) Judged() bool {
	return o.Verdict.Judged()
}

// Plan lists the runs of a benchmark, cases by tier and id, pass by pass.
func Plan(cases []datasets.Case, passes int) []Item {
	var items []Item
	for p := 1; p <= passes; p++ {
		for _, c := range cases {
			items = append(items, Item{Case: c, Pass: p})
		}
	}
	return items
}

// ModelFor returns the model description of an item (its options with the
// pass's seed), as recorded and as hashed into its run id.
func (o Options) ModelFor(ctx context.Context, it Item) (harness.Chatter, schemas.Model, error) {
	opts := o.Options
	if !o.FixedSeed {
		opts.Seed += it.Pass
	}
	return o.Model(ctx, it, opts)
}

// Run runs every planned (case, pass), Jobs at a time, and returns their
// outcomes in plan order. A run that fails to start (not a model failure,
// which is an outcome) stops the benchmark.
func Run(ctx context.Context, o Options) ([]Outcome, error) {
	items := Plan(o.Cases, o.Passes)
	out := make([]Outcome, len(items))
	done := make([]bool, len(items))
	jobs := max(o.Jobs, 1)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(jobs)
	var mu sync.Mutex
	finished, worked := 0, 0
	for i, it := range items {
		g.Go(func() error {
			if gctx.Err() != nil {
				return nil
			}
			oc, ran, err := runOne(gctx, o, it)
			if err != nil {
				return fmt.Errorf("%s pass %d: %w", it.Case.ID, it.Pass, err)
			}
			mu.Lock()
			defer mu.Unlock()
			out[i], done[i] = oc, ran
			finished++
			if oc.Verdict == schemas.VerdictWorked {
				worked++
			}
			if o.Progress != nil {
				o.Progress(finished, len(items), worked)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	var res []Outcome
	for i := range items {
		if done[i] {
			res = append(res, out[i])
		}
	}
	return res, ctx.Err()
}

func runOne(ctx context.Context, o Options, it Item) (Outcome, bool, error) {
	chat, m, err := o.ModelFor(ctx, it)
	if err != nil {
		return Outcome{}, false, err
	}
	id := RunID(schemas.SourceBench, it.Case.ID, it.Pass, m, version.Harness().Version)
	if o.Skip != nil && o.Skip(id) {
		return Outcome{}, false, nil
	}
	repo, cleanup, err := PrepareCase(it.Case)
	if err != nil {
		return Outcome{}, false, err
	}
	defer cleanup()
	cfg := CaseConfig(it.Case, it.Pass, repo, o.Python)
	cfg.RunID, cfg.OutDir, cfg.MaxSteps, cfg.Model, cfg.Now = id, o.OutDir, o.MaxSteps, m, o.Now
	res, err := harness.Run(ctx, cfg, chat)
	if err != nil {
		return Outcome{}, false, err
	}
	oc := FromEnd(&res.Start, &res.End)
	oc.ContextFull = res.TurnWarnings[schemas.CodeContextFull]
	oc.ContextTruncated = res.TurnWarnings[schemas.CodeContextTruncated]
	oc.ContextOverflow = res.TurnWarnings[schemas.CodeContextOverflow]
	if rp, ok := chat.(recordedRun); ok {
		oc.Divergence = Diverged(rp, res.Steps)
	}
	return oc, true, nil
}

// PrepareCase writes a case's fixture repository to a temporary directory
// for a run; cleanup removes it.
func PrepareCase(c datasets.Case) (string, func(), error) {
	repo, err := os.MkdirTemp("", "pyharness-case-")
	if err != nil {
		return "", nil, err
	}
	cleanup := func() { os.RemoveAll(repo) }
	if err := datasets.CopyFS(repo, c.Repo()); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("copy fixture of %s: %w", c.ID, err)
	}
	return repo, cleanup, nil
}

// CaseConfig is the harness configuration of a case's run on repo (its
// prepared fixture): the task, targets, names, scope, suite and hidden
// checks. The caller fills in the run id, output, model and budget.
func CaseConfig(c datasets.Case, pass int, repo, python string) harness.Config {
	return harness.Config{
		Source: schemas.SourceBench, CaseID: c.ID, Tier: c.Tier, Pass: pass,
		Repo: repo, RepoLabel: c.Dir + "/repo", Task: c.Task, Targets: c.Targets, Names: c.Names, Subject: c.Subject, Scope: c.Scope,
		Suite: c.Suite, Python: python, Checks: HiddenChecks{Case: c, Python: python},
	}
}

// FromEnd reads an outcome from a run's first and last records.
func FromEnd(start *schemas.RunStart, end *schemas.RunEnd) Outcome {
	o := Outcome{RunID: start.RunID, Case: start.CaseID, Tier: start.Tier, Pass: start.Pass,
		Backend: start.Model.Backend, Model: start.Model.Name, Context: start.Model.Context}
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
	case end.Checks.Ran && !end.Checks.Passed:
		o.Why = firstLine(end.Checks.FirstFailure)
	case end.SuiteAfter.ImportError != "":
		o.Why = firstLine(end.SuiteAfter.ImportError)
	case len(end.Writes) == 0:
		o.Why = "wrote nothing (stop: " + string(end.StopReason) + ")"
	default:
		o.Why = "stop: " + string(end.StopReason)
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
