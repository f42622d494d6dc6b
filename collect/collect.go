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

	"github.com/pyharness/pyharness/bench"
	"github.com/pyharness/pyharness/datasets"
	"github.com/pyharness/pyharness/harness"
	"github.com/pyharness/pyharness/internal/version"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/trace"
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
type Model func(ctx context.Context, it Item, pass int, opts schemas.Options, slot int) (harness.Chatter, schemas.Model, error)

// Options configure a collection.
type Options struct {
	Cases   []datasets.Case
	Entries []Entry
	Passes  int
	Jobs    int
	OutDir  string
	// Shard k of n (1-based); zero means the whole plan.
	ShardK, ShardN int
	Resume         bool
	Model          Model
	Options        schemas.Options
	FixedSeed      bool
	Python         string
	MaxSteps       int
	// Progress is called after each run.
	Progress func(done, total, worked int)
	Now      func() time.Time
}

// Planned is one run of the plan and where it stands.
type Planned struct {
	RunID    string             `json:"run_id"`
	Source   string             `json:"source"`
	Item     string             `json:"item"`
	Tier     int                `json:"tier,omitempty"`
	Pass     int                `json:"pass"`
	Status   string             `json:"status"` // planned, complete, incomplete (cancelled, model-error, cut off)
	Verdict  schemas.Verdict    `json:"verdict,omitempty"`
	Stop     schemas.StopReason `json:"stop_reason,omitempty"`
	Attempts int                `json:"attempts"`

	item  Item
	model schemas.Model
}

// PlanFile is OUT/collect.json (or OUT/collect.k-of-n.json for a shard):
// the plan, the model, the harness version and each run's status.
type PlanFile struct {
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
	// Incomplete counts the planned runs that are not complete when Run
	// returns: ended in a model error, cancelled, or never started.
	Incomplete int
	BrokeSuite []string // runs that broke a suite that passed at baseline
	PlanPath   string
}

// ErrAlreadyCollected is returned when OUT holds complete runs of the plan
// and --resume was not given.
var ErrAlreadyCollected = errors.New("already collected")

// PlanRuns lists every (item, pass) with its content-addressed run id, and
// keeps those of the shard.
func PlanRuns(ctx context.Context, o Options) ([]*Planned, error) {
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
			opts := o.Options
			if !o.FixedSeed {
				opts.Seed += p
			}
			_, m, err := o.Model(ctx, it, p, opts, slot)
			if err != nil {
				return nil, fmt.Errorf("plan %s pass %d: %w", it.ID, p, err)
			}
			m.Host = "" // where a run is served does not change what it is
			id := bench.RunID(it.Source, it.ID, p, m, version.Harness().Version)
			slot++
			if o.ShardN > 1 && shardOf(id, o.ShardN) != o.ShardK {
				continue
			}
			plan = append(plan, &Planned{RunID: id, Source: it.Source, Item: it.ID, Tier: it.Tier, Pass: p, Status: "planned", item: it, model: m})
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

// Status reads where each planned run stands from the traces in OUT: a run
// is complete when its last attempt ends with a run_end whose stop reason is
// neither cancelled nor model-error. That is collect's own rule for what
// needs running again; which attempt is a run's last is trace's.
func Status(ctx context.Context, outDir string, plan []*Planned) error {
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
			p.Status = "planned"
			continue
		}
		p.Attempts = 1 + la.SetAside
		run, _ := trace.ReadRun(la.File)
		p.Status = "incomplete"
		if run != nil && run.End != nil {
			p.Verdict, p.Stop = run.End.Verdict, run.End.StopReason
			if run.End.StopReason != schemas.StopCancelled && run.End.StopReason != schemas.StopModelError {
				p.Status = "complete"
			}
		}
	}
	return nil
}

// PlanPath is the plan file of a collection (of a shard).
func PlanPath(outDir string, k, n int) string {
	if n > 1 {
		return filepath.Join(outDir, fmt.Sprintf("collect.%d-of-%d.json", k, n))
	}
	return filepath.Join(outDir, "collect.json")
}

// Run collects: every planned run not yet complete, Jobs at a time.
func Run(ctx context.Context, o Options) (*Summary, error) {
	if o.Passes < 1 {
		return nil, fmt.Errorf("collect: --passes must be at least 1")
	}
	plan, err := PlanRuns(ctx, o)
	if err != nil {
		return nil, err
	}
	if err := Status(ctx, o.OutDir, plan); err != nil {
		return nil, err
	}
	sum := &Summary{Planned: len(plan), PlanPath: PlanPath(o.OutDir, o.ShardK, o.ShardN)}
	var todo []*Planned
	for _, p := range plan {
		if p.Status == "complete" {
			sum.Skipped++
			continue
		}
		todo = append(todo, p)
	}
	if sum.Skipped > 0 && !o.Resume && len(todo) == 0 {
		return sum, fmt.Errorf("collect: %s already holds all %d runs of this plan: nothing to do (another --out, or more --passes, collects more): %w", o.OutDir, sum.Skipped, ErrAlreadyCollected)
	}
	if sum.Skipped > 0 && !o.Resume {
		return sum, fmt.Errorf("collect: %s already holds %d complete run(s) of this plan: use --resume to finish it, or another --out: %w", o.OutDir, sum.Skipped, ErrAlreadyCollected)
	}
	pf := &PlanFile{Harness: version.Harness(), Passes: o.Passes, Runs: plan}
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
	var mu sync.Mutex
	save := func() error {
		pf.UpdatedAt = now(o).UTC()
		return writeJSONAtomic(sum.PlanPath, pf)
	}
	if err := save(); err != nil {
		return nil, err
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(o.Jobs, 1))
	done := 0
	for i, p := range todo {
		g.Go(func() error {
			if gctx.Err() != nil {
				return nil
			}
			res, err := runPlanned(gctx, o, p, i)
			if err != nil {
				return fmt.Errorf("collect %s pass %d: %w", p.Item, p.Pass, err)
			}
			mu.Lock()
			defer mu.Unlock()
			done++
			sum.Ran++
			p.Attempts++
			p.Verdict, p.Stop = res.End.Verdict, res.End.StopReason
			p.Status = "incomplete"
			if p.Stop != schemas.StopCancelled && p.Stop != schemas.StopModelError {
				p.Status = "complete"
			}
			switch res.End.Verdict {
			case schemas.VerdictWorked:
				sum.Worked++
			case schemas.VerdictFailed:
				sum.Failed++
			case schemas.VerdictError:
				sum.Errors++
			case schemas.VerdictCancelled:
				sum.Cancelled++
			}
			if res.End.StopReason == schemas.StopBrokeSuite {
				sum.BrokeSuite = append(sum.BrokeSuite, fmt.Sprintf("%s pass %d: %s broke the suite (%s)", p.Item, p.Pass, res.BrokeSuite, p.RunID))
			}
			if o.Progress != nil {
				o.Progress(sum.Skipped+done, len(plan), sum.Worked)
			}
			return save()
		})
	}
	err = g.Wait()
	mu.Lock()
	defer mu.Unlock()
	for _, p := range plan {
		if p.Status != "complete" {
			sum.Incomplete++
		}
	}
	if serr := save(); err == nil {
		err = serr
	}
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	return sum, err
}

func now(o Options) time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// runPlanned runs one planned run to its end.
func runPlanned(ctx context.Context, o Options, p *Planned, slot int) (*harness.Result, error) {
	opts := o.Options
	if !o.FixedSeed {
		opts.Seed += p.Pass
	}
	chat, m, err := o.Model(ctx, p.item, p.Pass, opts, slot)
	if err != nil {
		return nil, err
	}
	var cfg harness.Config
	switch {
	case p.item.Case != nil:
		repo, cleanup, err := bench.PrepareCase(*p.item.Case)
		if err != nil {
			return nil, err
		}
		defer cleanup()
		cfg = bench.CaseConfig(*p.item.Case, p.Pass, repo, o.Python)
	default:
		e := p.item.Entry
		cfg = harness.Config{Source: schemas.SourceDogfood, CaseID: e.ID, Pass: p.Pass, Tags: e.Tags,
			Repo: e.Dir, RepoURL: e.URL, Task: e.Task, Targets: e.Targets, Names: e.Names, Subject: e.Subject,
			Scope: e.Scope, Suite: e.Suite, Python: o.Python}
		if e.Check != "" {
			cfg.Checks = CommandCheck{Command: e.Check}
			cfg.SettleFirst = true // a task whose check already passes needs no model
		}
	}
	cfg.RunID, cfg.OutDir, cfg.Model, cfg.MaxSteps, cfg.Now = p.RunID, o.OutDir, m, o.MaxSteps, o.Now
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
