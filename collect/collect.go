package collect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/pyharness/pyharness/datasets"
	"github.com/pyharness/pyharness/harness"
	"github.com/pyharness/pyharness/harness/draft"
	"github.com/pyharness/pyharness/internal/version"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

// Item is one thing to collect on: a benchmark case or a dogfood entry.
type Item struct {
	Source string // bench or dogfood
	ID     string
	Tier   int
	Case   *datasets.Case
	Entry  *Entry
}

// Model gives the backend of one planned run. slot is the run's place in
// the plan, for spreading runs over several servers.
type Model func(ctx context.Context, it Item, pass int, opts schemas.Options, slot int) (Backend, error)

// Backend is what a planned run talks to and records of it.
type Backend struct {
	Chat  harness.Chatter
	Model schemas.Model
	// Syntax reads the model's replies (harness.Config.Syntax): the one
	// learned from its chat template, nil for the harness's own.
	Syntax *draft.Syntax
}

// Options configure a collection, or a benchmark (bench.Run), which plans
// and runs the same way.
type Options struct {
	Cases   []datasets.Case
	Entries []Entry
	Passes  int
	// Jobs is how many runs go at once (1 when 0).
	Jobs int
	// OutDir receives runs/ and patches/ (and Run's plan file).
	OutDir string
	// Shard k of n (1-based); zero means the whole plan.
	ShardK, ShardN int
	// Resume lets Run finish a collection whose OUT already holds complete
	// runs of the plan; without it Run refuses.
	Resume  bool
	Model   Model
	Options schemas.Options
	// FixedSeed keeps the seed the same in every pass; otherwise pass p is
	// sent Options.Seed + p.
	FixedSeed bool
	Python    string
	MaxSteps  int
	// StuckAfter is each run's stuck limit as harness.Config takes it: 0
	// the default, a negative value off.
	StuckAfter int
	// Progress is called after each run with how the plan stands.
	Progress func(Tally)
	Now      func() time.Time
}

// Tally is how a plan stands after one of its runs ended.
type Tally struct {
	// Done counts the complete runs of the plan, those complete before
	// this call included; Total the runs planned.
	Done, Total int
	// Worked counts the runs of this call that worked.
	Worked int
	// Cancelled and Errors count the runs of this call that ended
	// cancelled or in a model error: ended, but not done (a --resume
	// runs them again).
	Cancelled, Errors int
}

// RunStatus is where a planned run stands, as the plan file records it.
type RunStatus string

const (
	// statusPlanned: no attempt of the run is in OUT.
	statusPlanned RunStatus = "planned"
	// StatusComplete: the run's last attempt ended with a run_end whose
	// stop reason is neither cancelled nor model-error.
	StatusComplete RunStatus = "complete"
	// statusIncomplete: the last attempt ended in a model error, was
	// cancelled, or was cut off; --resume runs it again.
	statusIncomplete RunStatus = "incomplete"
)

// Planned is one run of the plan and where it stands.
type Planned struct {
	RunID    string             `json:"run_id"`
	Source   string             `json:"source"`
	Item     string             `json:"item"`
	Tier     int                `json:"tier,omitempty"`
	Pass     int                `json:"pass"`
	Status   RunStatus          `json:"status"`
	Verdict  schemas.Verdict    `json:"verdict,omitempty"`
	Stop     schemas.StopReason `json:"stop_reason,omitempty"`
	Attempts int                `json:"attempts"`

	item  Item
	model schemas.Model
}

// setEnd records how the run's last attempt ended; nil is an attempt cut
// off before its run_end.
func (p *Planned) setEnd(end *schemas.RunEnd) {
	p.Status = statusIncomplete
	if end == nil {
		return
	}
	p.Verdict, p.Stop = end.Verdict, end.StopReason
	if complete(end) {
		p.Status = StatusComplete
	}
}

// complete is collect's rule for a run that needs no running again: it
// ended with a run_end whose stop reason is neither cancelled nor
// model-error. Which attempt is a run's last is trace's rule.
func complete(end *schemas.RunEnd) bool {
	return end.StopReason != schemas.StopCancelled && end.StopReason != schemas.StopModelError
}

// optionsFor is the options sent in a pass: the seed is Options.Seed + pass
// unless FixedSeed.
func (o Options) optionsFor(pass int) schemas.Options {
	opts := o.Options
	if !o.FixedSeed {
		opts.Seed += pass
	}
	return opts
}

// planFile is OUT/collect.json (or OUT/collect.k-of-n.json for a shard):
// the plan, the model, the harness version and each run's status.
type planFile struct {
	Harness   schemas.Harness `json:"harness"`
	Model     schemas.Model   `json:"model"`
	Passes    int             `json:"passes"`
	Shard     string          `json:"shard,omitempty"`
	Runs      []*Planned      `json:"runs"`
	UpdatedAt time.Time       `json:"updated_at"`
}

// Summary is what a collection did.
type Summary struct {
	Planned   int
	Skipped   int // already complete (resume)
	Ran       int
	Worked    int
	Failed    int
	Errors    int
	Cancelled int
	// Unjudged counts the runs whose suite ran no test: complete, but
	// judged on nothing, so neither worked nor failed.
	Unjudged int
	// Incomplete counts the planned runs that are not complete when Run
	// returns: ended in a model error, cancelled, or never started.
	Incomplete int
	BrokeSuite []string // runs that broke a suite that passed at baseline
	PlanPath   string
}

// ErrAlreadyCollected is returned when OUT holds complete runs of the plan
// and --resume was not given.
var ErrAlreadyCollected = errors.New("already collected")

// Plan lists every (item, pass) with its content-addressed run id, and
// keeps those of the shard.
func Plan(ctx context.Context, o Options) ([]*Planned, error) {
	var items []Item
	for i := range o.Cases {
		c := &o.Cases[i]
		items = append(items, Item{Source: schemas.SourceBench, ID: c.ID, Tier: c.Tier, Case: c})
	}
	for i := range o.Entries {
		e := &o.Entries[i]
		items = append(items, Item{Source: schemas.SourceDogfood, ID: e.ID, Entry: e})
	}
	var plan []*Planned
	slot := 0
	for p := 1; p <= o.Passes; p++ {
		for _, it := range items {
			be, err := o.Model(ctx, it, p, o.optionsFor(p), slot)
			if err != nil {
				return nil, fmt.Errorf("plan %s pass %d: %w", it.ID, p, err)
			}
			m := be.Model
			m.Host = "" // where a run is served does not change what it is
			id := runID(it.Source, it.ID, p, m, version.Harness().Version)
			slot++
			if o.ShardN > 1 && shardOf(id, o.ShardN) != o.ShardK {
				continue
			}
			plan = append(plan, &Planned{RunID: id, Source: it.Source, Item: it.ID, Tier: it.Tier, Pass: p, Status: statusPlanned, item: it, model: m})
		}
	}
	return plan, nil
}

// shardOf assigns a run id to one of n shards (1-based), by its hash: the
// same id always lands in the same shard, whatever else is in the plan.
func shardOf(runID string, n int) int {
	h := fnv.New64a()
	h.Write([]byte(runID))
	return int(h.Sum64()%uint64(n)) + 1
}

// readStatus reads where each planned run stands from the traces in OUT.
func readStatus(ctx context.Context, outDir string, plan []*Planned) error {
	last := map[string]trace.LastAttempt{}
	for la, err := range trace.LastAttempts(ctx, filepath.Join(outDir, trace.RunsDir)) {
		if errors.Is(err, os.ErrNotExist) {
			break // nothing collected yet
		}
		if err != nil {
			return err
		}
		last[la.RunID] = la
	}
	for _, p := range plan {
		la, ok := last[p.RunID]
		if !ok {
			p.Attempts = 0
			p.Status = statusPlanned
			continue
		}
		p.Attempts = 1 + la.SetAside
		var end *schemas.RunEnd
		if run, _ := trace.ReadRun(la.File); run != nil {
			end = run.End
		}
		p.setEnd(end)
	}
	return nil
}

// planPath is the plan file of a collection (of a shard).
func planPath(outDir string, k, n int) string {
	if n > 1 {
		return filepath.Join(outDir, fmt.Sprintf("collect.%d-of-%d.json", k, n))
	}
	return filepath.Join(outDir, "collect.json")
}

// ErrOtherPlan is returned when OUT's plan file is another collection's:
// one directory holds one plan.
var ErrOtherPlan = errors.New("another collection's plan")

// Precheck plans the collection and reads where each planned run stands
// in OUT, and refuses as Run does, before anything runs a suite: OUT holds
// another collection's plan (ErrOtherPlan), or complete runs of this one
// without Resume (ErrAlreadyCollected).
func Precheck(ctx context.Context, o Options) ([]*Planned, error) {
	plan, _, err := prepare(ctx, o)
	return plan, err
}

// prepare is Precheck with the summary Run starts from.
func prepare(ctx context.Context, o Options) ([]*Planned, *Summary, error) {
	if o.Passes < 1 {
		return nil, nil, fmt.Errorf("collect: --passes must be at least 1")
	}
	plan, err := Plan(ctx, o)
	if err != nil {
		return nil, nil, err
	}
	sum := &Summary{Planned: len(plan), PlanPath: planPath(o.OutDir, o.ShardK, o.ShardN)}
	if err := refuseOtherPlan(sum.PlanPath, o.OutDir, plan); err != nil {
		return nil, nil, err
	}
	if err := readStatus(ctx, o.OutDir, plan); err != nil {
		return nil, nil, err
	}
	for _, p := range plan {
		if p.Status == StatusComplete {
			sum.Skipped++
		}
	}
	if sum.Skipped > 0 && !o.Resume && sum.Skipped == len(plan) {
		return plan, sum, fmt.Errorf("collect: %s already holds all %d runs of this plan: nothing to do (another --out, or more --passes, collects more): %w", o.OutDir, sum.Skipped, ErrAlreadyCollected)
	}
	if sum.Skipped > 0 && !o.Resume {
		return plan, sum, fmt.Errorf("collect: %s already holds %d complete run(s) of this plan: use --resume to finish it, or another --out: %w", o.OutDir, sum.Skipped, ErrAlreadyCollected)
	}
	return plan, sum, nil
}

// refuseOtherPlan refuses a plan file of another collection at path: one
// whose runs are not all runs of plan (another model, other items, another
// harness). A plan that extends it (more passes, more cases) may take its
// place: nothing it planned is lost.
func refuseOtherPlan(path, outDir string, plan []*Planned) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("collect: %w", err)
	}
	var old planFile
	if err := json.Unmarshal(b, &old); err != nil {
		return fmt.Errorf("collect: %s: %w", path, err)
	}
	ids := map[string]bool{}
	for _, p := range plan {
		ids[p.RunID] = true
	}
	other := 0
	for _, p := range old.Runs {
		if !ids[p.RunID] {
			other++
		}
	}
	if other == 0 {
		return nil
	}
	return fmt.Errorf("collect: %s holds another collection's plan (%s: model %s %s, %d passes, %d runs, %d of them not in this plan): one directory holds one plan; give this collection another --out: %w",
		outDir, path, old.Model.Backend, old.Model.Name, old.Passes, len(old.Runs), other, ErrOtherPlan)
}

// Run collects: every planned run not yet complete, Jobs at a time.
func Run(ctx context.Context, o Options) (*Summary, error) {
	plan, sum, err := prepare(ctx, o)
	if err != nil {
		return sum, err
	}
	pf := &planFile{Harness: schemas.Harness(version.Harness()), Passes: o.Passes, Runs: plan}
	if len(plan) > 0 {
		pf.Model = plan[0].model
		pf.Model.Options = o.Options
	}
	if o.ShardN > 1 {
		pf.Shard = fmt.Sprintf("%d/%d", o.ShardK, o.ShardN)
	}
	if err := os.MkdirAll(o.OutDir, 0o755); err != nil {
		return nil, fmt.Errorf("collect: %w", err)
	}
	save := func() error {
		pf.UpdatedAt = now(o).UTC()
		return writeJSONAtomic(sum.PlanPath, pf)
	}
	if err := save(); err != nil {
		return nil, err
	}
	err = RunPlanned(ctx, o, plan, func(r Ran) error {
		sum.Ran++
		switch r.Result.End.Verdict {
		case schemas.VerdictWorked:
			sum.Worked++
		case schemas.VerdictFailed:
			sum.Failed++
		case schemas.VerdictError:
			sum.Errors++
		case schemas.VerdictCancelled:
			sum.Cancelled++
		case schemas.VerdictUnjudged:
			sum.Unjudged++
		}
		if r.Result.End.StopReason == schemas.StopBrokeSuite {
			p := r.Run
			sum.BrokeSuite = append(sum.BrokeSuite, fmt.Sprintf("%s pass %d: %s broke the suite (%s)", p.Item, p.Pass, r.Result.BrokeSuite, p.RunID))
		}
		return save()
	})
	if se := (*startError)(nil); errors.As(err, &se) {
		err = fmt.Errorf("collect %w", err)
	}
	for _, p := range plan {
		if p.Status != StatusComplete {
			sum.Incomplete++
		}
	}
	if serr := save(); err == nil {
		err = serr
	}
	return sum, err
}

// Ran is a planned run that ran to its end.
type Ran struct {
	Run    *Planned
	Result *harness.Result
	// Chat is the backend it ran with (a replay says where a run diverged).
	Chat harness.Chatter
}

// RunPlanned runs every run of plan that is not complete, Jobs at a time, and
// calls done after each, never two at once, with the run's status already
// updated. Progress counts the complete runs of the plan as done, and
// those that ended cancelled or in a model error apart. A run
// that fails to start (not a model failure, which the run records) stops
// the others; so does an error from done.
func RunPlanned(ctx context.Context, o Options, plan []*Planned, done func(Ran) error) error {
	var todo []*Planned
	for _, p := range plan {
		if p.Status != StatusComplete {
			todo = append(todo, p)
		}
	}
	tally := Tally{Done: len(plan) - len(todo), Total: len(plan)}
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(o.Jobs, 1))
	for slot, p := range todo {
		g.Go(func() error {
			if gctx.Err() != nil {
				return nil
			}
			res, chat, err := runOne(gctx, o, p, slot)
			if err != nil {
				return &startError{p: p, err: err}
			}
			mu.Lock()
			defer mu.Unlock()
			p.Attempts++
			p.setEnd(&res.End)
			switch {
			case res.End.StopReason == schemas.StopCancelled:
				tally.Cancelled++
			case res.End.StopReason == schemas.StopModelError:
				tally.Errors++
			default:
				tally.Done++
			}
			if res.End.Verdict == schemas.VerdictWorked {
				tally.Worked++
			}
			if o.Progress != nil {
				o.Progress(tally)
			}
			return done(Ran{Run: p, Result: res, Chat: chat})
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return ctx.Err()
}

// startError is a planned run that could not start.
type startError struct {
	p   *Planned
	err error
}

func (e *startError) Error() string {
	return fmt.Sprintf("%s pass %d: %v", e.p.Item, e.p.Pass, e.err)
}

func (e *startError) Unwrap() error { return e.err }

func now(o Options) time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// runOne runs one planned run to its end.
func runOne(ctx context.Context, o Options, p *Planned, slot int) (*harness.Result, harness.Chatter, error) {
	be, err := o.Model(ctx, p.item, p.Pass, o.optionsFor(p.Pass), slot)
	if err != nil {
		return nil, nil, err
	}
	var cfg harness.Config
	switch {
	case p.item.Case != nil:
		repo, cleanup, err := prepareCase(*p.item.Case)
		if err != nil {
			return nil, nil, err
		}
		defer cleanup()
		cfg = caseConfig(*p.item.Case, p.Pass, repo, o.Python)
	default:
		cfg = entryConfig(p.item.Entry, p.Pass, o.Python)
	}
	cfg.RunID, cfg.OutDir, cfg.Model, cfg.Syntax, cfg.MaxSteps, cfg.StuckAfter, cfg.Now = p.RunID, o.OutDir, be.Model, be.Syntax, o.MaxSteps, o.StuckAfter, o.Now
	res, err := harness.Run(ctx, cfg, be.Chat)
	return res, be.Chat, err
}

// entryConfig is the run of a resolved manifest entry in a pass.
func entryConfig(e *Entry, pass int, python string) harness.Config {
	cfg := harness.Config{Source: schemas.SourceDogfood, CaseID: e.ID, Pass: pass, Tags: e.Tags,
		Repo: e.Dir, RepoURL: e.URL, TaskSpec: e.TaskSpec, Python: python}
	if e.Check != "" {
		cfg.Checks = commandCheck{command: e.Check, python: python}
		cfg.SettleFirst = true // a task whose check already passes needs no model
	}
	return cfg
}

// RunEntry runs a resolved entry once with chat, as a collection runs it,
// recording the run under outDir: how a task miner tries an entry's
// reference script before it writes the entry.
func RunEntry(ctx context.Context, e Entry, chat harness.Chatter, runID, outDir, python string) (*harness.Result, error) {
	cfg := entryConfig(&e, 1, python)
	cfg.RunID, cfg.OutDir, cfg.Model = runID, outDir, schemas.Model{Backend: schemas.BackendScripted, Name: e.ID}
	return harness.Run(ctx, cfg, chat)
}

func writeJSONAtomic(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
