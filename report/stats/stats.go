package stats

import (
	"context"
	"fmt"
	"slices"

	"github.com/pyharness/pyharness/classify"
	"github.com/pyharness/pyharness/classify/countcache"
	"github.com/pyharness/pyharness/classify/dataset"
	"github.com/pyharness/pyharness/collect/runcost"
	"github.com/pyharness/pyharness/harness/draft"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

// What an input directory was read as.
const (
	InputTraces  = "traces"
	inputDataset = "dataset"
)

// Dimensions of a breakdown (--by).
const (
	byModel  = "model"
	byTier   = "tier"
	byCase   = "case"
	bySource = "source"
	// byTag counts a run under each of its tags (a manifest entry's: a
	// mined task's kind), and its turns from the run's count of them.
	byTag = "tag"
)

// Dimensions lists the values --by takes.
var dimensions = []string{byModel, byTier, byCase, bySource, byTag}

// maxExamples bounds the lists of examples a summary keeps (failures that
// claimed DONE), so that its size does not grow with the input: as many as
// tally.ClaimedDone lists of a part file, all of which may be one model's.
const maxExamples = countcache.ClaimedDonePerPart

// maxMessages bounds the distinct messages counted per code.
const maxMessages = 500

// Summary is every number stats prints; --json writes it as it is.
type Summary struct {
	// Input is the directory read, and Kind whether it was read as a trace
	// directory or a classified dataset.
	Input string `json:"input"`
	Kind  string `json:"kind"`

	// Models is the headline: runs by verdict for each model, then for
	// each scripted or replayed backend on rows of their own (Scripted),
	// never added to a model's.
	Models []ModelRuns `json:"models"`
	// Mixed says the input holds runs of a model and scripted or replayed
	// runs: Runs and the turn tables count both, the score tables the
	// models' runs alone (Scored).
	Mixed bool `json:"mixed"`
	// Runs counts every run read, whatever its backend: the bookkeeping
	// of the input, not a score (Models is the score).
	Runs RunCounts `json:"runs"`
	// Scored says which runs the score tables count (FailureClasses,
	// Tiers, Tags, Passes, ClaimedDone, NoModelSteps): the runs of models when
	// there are any, else the scripted and replayed runs.
	Scored         ScoredRuns           `json:"scored"`
	FailureClasses []Count              `json:"failure_classes"`
	Tiers          []TierFailures       `json:"tiers"`
	Passes         []PassScore          `json:"passes"`
	Turns          TurnCounts           `json:"turns"`
	Kinds          []Count              `json:"kinds"`
	Nudges         []Nudge              `json:"nudges"`
	ClaimedDone    ClaimedDone          `json:"claimed_done"`
	NoModelSteps   schemas.NoModelSteps `json:"no_model_steps"`
	// ActionForms is how each model wrote its actions: its turns that got
	// a reply, by the form the parser read them in.
	ActionForms []ActionForms `json:"action_forms"`
	// Tags are failures by the runs' tags (a dogfood manifest entry's); a
	// run counts under each of its tags.
	Tags []TagFailures `json:"tags"`
	// Reasons are the most common one-line reasons of the failed runs
	// (run_end.reason), from traces; empty from a dataset.
	Reasons []Count `json:"reasons"`
	// StopReasons counts the runs of the score tables' kind (judged or
	// not) by why they stopped, commonest first.
	StopReasons []Count `json:"stop_reasons"`
	// StuckOn counts the runs that stopped stuck by the code of the
	// refusal that repeated (run_end.stuck), from traces; empty from a
	// dataset.
	StuckOn []Count `json:"stuck_on"`
	// Cost is what each model's runs cost in model calls, from traces;
	// empty from a dataset.
	Cost []runcost.ModelCost `json:"cost"`
	// TurnsPerRun is the histogram of turns per run: one bin per number of
	// turns from the fewest to the most.
	TurnsPerRun []TurnsPerRunBar `json:"turns_per_run"`
	// By is the breakdown asked for with --by, nil without one.
	By *Breakdown `json:"by,omitempty"`
	// Problems are the bad lines and files met, as file:line: message.
	// Every good record was read.
	Problems trace.Problems `json:"problems"`
}

// RunCounts counts runs by verdict.
type RunCounts struct {
	// Read counts the runs read: the last attempt of each run id.
	Read int `json:"read"`
	// SetAside counts earlier attempts, kept out of every number.
	SetAside int `json:"set_aside"`
	Judged   int `json:"judged"`
	Worked   int `json:"worked"`
	Failed   int `json:"failed"`
	// NotJudged counts runs in no score: error, cancelled, unjudged (a
	// suite that ran no test) and incomplete (no run_end).
	NotJudged  int `json:"not_judged"`
	Error      int `json:"error"`
	Cancelled  int `json:"cancelled"`
	Unjudged   int `json:"unjudged"`
	Incomplete int `json:"incomplete"`
	// FailedShare is Failed / Judged.
	FailedShare float64 `json:"failed_share"`
}

// ModelRuns is one row of the headline: the runs of one model (backend
// and name), or of one scripted or replayed backend.
type ModelRuns struct {
	Model string `json:"model"`
	// Scripted marks the scripted and replayed backends: drafts written
	// in advance, which test the harness and are no model's figures.
	Scripted   bool `json:"scripted"`
	Runs       int  `json:"runs"`
	Judged     int  `json:"judged"`
	Worked     int  `json:"worked"`
	Failed     int  `json:"failed"`
	NotJudged  int  `json:"not_judged"`
	Error      int  `json:"error"`
	Cancelled  int  `json:"cancelled"`
	Unjudged   int  `json:"unjudged"`
	Incomplete int  `json:"incomplete"`
	// FailedShare is Failed / Judged.
	FailedShare float64 `json:"failed_share"`
}

// Forms of ActionForms besides the recorded shapes.
const (
	// formCanonical is the action protocol as the system prompt gives it.
	formCanonical = draft.ShapeCanonical
	// formUnparsed is a reply read as no action: a parse failure or an
	// empty reply.
	formUnparsed = "unparsed"
	// formNotRecorded is an action from a trace that predates shapes.
	formNotRecorded = "(shape not recorded)"
)

// ActionForms is how one model wrote its actions: each turn it replied to
// counted once, by its form: canonical, a tolerated shape as recorded (a
// "+"-joined list of shape codes), or unparsed.
type ActionForms struct {
	Model    string `json:"model"`
	Scripted bool   `json:"scripted"`
	// Turns counts the turns that got a reply; a turn whose model call
	// failed or was cancelled wrote nothing and is not counted.
	Turns int `json:"turns"`
	// Forms holds canonical first, then the tolerated shapes, commonest
	// first, then unparsed; shares are of Turns.
	Forms []Count `json:"forms"`
}

// What the score tables count (ScoredRuns.Runs).
const (
	scoredModels   = "models"
	scoredScripted = "scripted"
)

// ScoredRuns are the runs the score tables count.
type ScoredRuns struct {
	// Runs is scoredModels or scoredScripted.
	Runs   string `json:"runs"`
	Judged int    `json:"judged"`
	Worked int    `json:"worked"`
	Failed int    `json:"failed"`
}

// Count is a labelled count and its share of a whole.
type Count struct {
	Name  string  `json:"name"`
	Count int     `json:"count"`
	Share float64 `json:"share"`
}

// TierFailures is one row of the failures-by-tier table.
type TierFailures struct {
	Tier   int    `json:"tier"`
	Title  string `json:"title"`
	Judged int    `json:"judged"`
	Worked int    `json:"worked"`
	Failed int    `json:"failed"`
}

// TagFailures is one row of the failures-by-tag table.
type TagFailures struct {
	Tag    string `json:"tag"`
	Judged int    `json:"judged"`
	Worked int    `json:"worked"`
	Failed int    `json:"failed"`
}

// PassScore is what worked in one pass: the spread across passes is what
// the resolution statement reads.
type PassScore struct {
	Pass   int `json:"pass"`
	Judged int `json:"judged"`
	Worked int `json:"worked"`
}

// TurnCounts counts the turns read.
type TurnCounts struct {
	Total  int     `json:"total"`
	Runs   int     `json:"runs"`
	PerRun float64 `json:"per_run"`
	// RulesLabelled counts turns recorded without a kind, labelled by the
	// text rules.
	RulesLabelled int `json:"rules_labelled"`
	// ContextFull, ContextTruncated and ContextOverflow count the turns
	// whose reply a full context cut (before num_predict), whose prompt
	// the server cut, and whose prompt it refused as too long.
	ContextFull      int `json:"context_full"`
	ContextTruncated int `json:"context_truncated"`
	ContextOverflow  int `json:"context_overflow"`
	// Reasoning counts the turns whose reply had reasoning (read apart
	// from the draft), the harness's estimate of its tokens in all, and
	// the replies refused reasoning-cut (they ended inside it).
	Reasoning       int   `json:"reasoning"`
	ReasoningTokens int64 `json:"reasoning_tokens"`
	ReasoningCut    int   `json:"reasoning_cut"`
}

// Nudge is a code the harness sent, how often, and what it said.
type Nudge struct {
	Code  schemas.Code `json:"code"`
	Kind  schemas.Kind `json:"kind"`
	Count int          `json:"count"`
	Share float64      `json:"share"`
	// Message is the commonest wording of the code; Distinct counts the
	// wordings seen (file names make them differ).
	Message  string `json:"message"`
	Distinct int    `json:"distinct"`
}

// ClaimedDone counts the failures that ended by claiming DONE.
type ClaimedDone struct {
	Failures     int          `json:"failures"`
	Claimed      int          `json:"claimed"`
	WroteNothing int          `json:"wrote_nothing"`
	Examples     []ClaimedRun `json:"examples"`
}

// ClaimedRun is one failure that claimed DONE.
type ClaimedRun struct {
	RunID        string `json:"run_id"`
	Case         string `json:"case"`
	Pass         int    `json:"pass"`
	Writes       int    `json:"writes"`
	FirstFailure string `json:"first_failure"`
}

// TurnsPerRunBar is one bar of the turns-per-run histogram: how many runs
// took Turns turns.
type TurnsPerRunBar struct {
	Turns int `json:"turns"`
	Runs  int `json:"runs"`
}

// Breakdown is the summary split by one dimension.
type Breakdown struct {
	Dimension string  `json:"dimension"`
	Groups    []Group `json:"groups"`
}

// Group is one value of a breakdown.
type Group struct {
	Value string `json:"value"`
	// Scripted marks a group of scripted and replayed runs, counted apart
	// from the models' runs of the same value (every dimension but model).
	Scripted      bool    `json:"scripted,omitempty"`
	Runs          int     `json:"runs"`
	Judged        int     `json:"judged"`
	Worked        int     `json:"worked"`
	Failed        int     `json:"failed"`
	NotJudged     int     `json:"not_judged"`
	Turns         int     `json:"turns"`
	RefusalsShare float64 `json:"refusals_share"`
	refusals      int
	// noRefusals marks a group whose refusals are not counted (by tag:
	// the turns table has no tags).
	noRefusals bool
}

// Options choose what a summary holds.
type Options struct {
	// By is a dimension of Dimensions, or "" for no breakdown.
	By string
}

// CheckOptions reports an option stats cannot take.
func CheckOptions(o Options) error {
	if o.By != "" && !slices.Contains(dimensions, o.By) {
		return fmt.Errorf("--by %q: want one of %v", o.By, dimensions)
	}
	return nil
}

// Load reads a trace directory or a classified dataset (a directory with a
// classify state file or Parquet tables) and summarises it.
func Load(ctx context.Context, in string, o Options) (*Summary, error) {
	if dataset.IsDataset(in) {
		return fromDataset(ctx, in, o)
	}
	return FromTraces(ctx, in, o)
}

// FromTraces summarises the last attempt of every run of a trace
// directory, one run at a time. A bad line or file is listed in Problems
// with its file and line; every good record is counted.
func FromTraces(ctx context.Context, dir string, o Options) (*Summary, error) {
	if err := CheckOptions(o); err != nil {
		return nil, err
	}
	c := newCollector(dir, InputTraces, o)
	listed := false
	for run, err := range trace.Runs(ctx, dir) {
		if run == nil {
			return nil, fmt.Errorf("stats: %w", err)
		}
		listed = true
		c.s.Runs.SetAside += run.SetAside
		for _, w := range run.Warnings {
			c.s.Problems.Add(w)
		}
		if err != nil {
			c.s.Problems.Add(err)
		}
		if run.Start == nil {
			continue
		}
		if !run.Complete() {
			c.s.Problems = append(c.s.Problems, fmt.Sprintf("%s: incomplete run: no run_end record; its turns are counted, the run is in no score", run.File.Path))
		}
		part, r, turns := classify.Rows(run)
		rs := r.Summary()
		c.addRun(part, countcache.RunTallyOf(&rs), 1)
		if run.End != nil && run.End.Verdict == schemas.VerdictFailed {
			c.reason(part, run.End.Reason)
		}
		c.example(part, &rs)
		c.traceRun(part, run)
		for i := range turns {
			c.addTurn(part, turns[i].Summary(), 1)
		}
	}
	if !listed {
		return nil, fmt.Errorf("stats: no trace files (*.jsonl) in %s or %s/runs, and no classified dataset", dir, dir)
	}
	return c.finish(), nil
}

// fromDataset summarises a classified dataset from its runs and turns
// tables, read for the columns it counts only, and counted a group of
// equal rows at a time (tally.Runs, tally.Turns). The failures that
// claimed DONE are listed from a second read of the runs, alongside the
// turns', which stops at the last one listed. A part file whose counts
// classify kept (tally.ClaimedDone) is not read at all.
func fromDataset(ctx context.Context, dir string, o Options) (*Summary, error) {
	if err := CheckOptions(o); err != nil {
		return nil, err
	}
	c, err := collectDataset(ctx, dir, o)
	if err != nil {
		return nil, err
	}
	return c.finish(), nil
}

// collectDataset counts a dataset's tables for fromDataset: the turns
// into a collector of their own while the runs are counted, so that
// neither table waits for the other's last part file, then merged.
func collectDataset(ctx context.Context, dir string, o Options) (*collector, error) {
	c := newCollector(dir, inputDataset, o)
	co := countcache.Options{Cases: o.By == byCase || o.By == byTier}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	tc := newCollector(dir, inputDataset, o)
	turns := make(chan error, 1)
	go func() {
		for t, err := range countcache.Turns(ctx, dir, co) {
			if err != nil {
				turns <- err
				return
			}
			tc.addTurn(t.Partition, t.Row, t.Count)
		}
		turns <- nil
	}()
	for r, err := range countcache.Runs(ctx, dir, co) {
		if err != nil {
			cancel()
			<-turns
			return nil, fmt.Errorf("stats: %w", err)
		}
		c.addRun(r.Partition, r.Row, r.Count)
	}
	examples := make(chan exampleRuns, 1)
	want := c.examplesWanted()
	go func() { examples <- readExamples(ctx, dir, want) }()
	if err := <-turns; err != nil {
		cancel()
		<-examples
		return nil, fmt.Errorf("stats: %w", err)
	}
	c.mergeTurns(tc)
	ex := <-examples
	if ex.err != nil {
		return nil, fmt.Errorf("stats: %w", ex.err)
	}
	for i := range ex.runs {
		c.example(ex.runs[i].Partition, &ex.runs[i].Row)
	}
	if c.s.Runs.Read == 0 {
		return nil, fmt.Errorf("stats: the dataset %s holds no runs", dir)
	}
	return c, nil
}

// exampleRuns are the runs ClaimedDone lists, in the table's order.
type exampleRuns struct {
	runs []dataset.Partitioned[dataset.RunSummary]
	err  error
}

// readExamples reads the failures that claimed DONE from the first until
// it has those each score tally lists: want[0] of models' runs, want[1] of
// scripted ones. A part file holds runs of one model, so no more than
// maxExamples of one are needed.
func readExamples(ctx context.Context, dir string, want [2]int) exampleRuns {
	var ex exampleRuns
	var got [2]int
	if got == want {
		return ex
	}
	for r, err := range countcache.ClaimedDone(ctx, dir) {
		if err != nil {
			ex.err = err
			return ex
		}
		i := scoreIndex(schemas.LabelHandWritten(r.Partition.Model))
		if isExample(&r.Row) && got[i] < want[i] {
			got[i]++
			ex.runs = append(ex.runs, r)
			if got == want {
				break
			}
		}
	}
	return ex
}
