package stats

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/pyharness/pyharness/classify"
	"github.com/pyharness/pyharness/datasets"
	"github.com/pyharness/pyharness/harness/draft"
	"github.com/pyharness/pyharness/model"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/trace"
)

// What an input directory was read as.
const (
	InputTraces  = "traces"
	InputDataset = "dataset"
)

// Dimensions of a breakdown (--by).
const (
	ByModel  = "model"
	ByTier   = "tier"
	ByCase   = "case"
	BySource = "source"
)

// Dimensions lists the values --by takes.
var Dimensions = []string{ByModel, ByTier, ByCase, BySource}

// maxExamples bounds the lists of examples a summary keeps (failures that
// claimed DONE), so that its size does not grow with the input.
const maxExamples = 20

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
	Scored         ScoredRuns     `json:"scored"`
	FailureClasses []Count        `json:"failure_classes"`
	Tiers          []TierFailures `json:"tiers"`
	Passes         []PassScore    `json:"passes"`
	Turns          TurnCounts     `json:"turns"`
	Kinds          []Count        `json:"kinds"`
	Nudges         []Nudge        `json:"nudges"`
	ClaimedDone    ClaimedDone    `json:"claimed_done"`
	NoModelSteps   NoModelSteps   `json:"no_model_steps"`
	// ActionForms is how each model wrote its actions: its turns that got
	// a reply, by the form the parser read them in.
	ActionForms []ActionForms `json:"action_forms"`
	// Tags are failures by the runs' tags (a dogfood manifest entry's); a
	// run counts under each of its tags.
	Tags []TagFailures `json:"tags"`
	// TurnsPerRun is the histogram of turns per run: one bin per number of
	// turns from the fewest to the most.
	TurnsPerRun []Bin `json:"turns_per_run"`
	// By is the breakdown asked for with --by, nil without one.
	By *Breakdown `json:"by,omitempty"`
	// Problems are the bad lines and files met, as file:line: message.
	// Every good record was read.
	Problems []string `json:"problems"`
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
	// NotJudged counts runs in no score: error, cancelled, and incomplete
	// (no run_end).
	NotJudged  int `json:"not_judged"`
	Error      int `json:"error"`
	Cancelled  int `json:"cancelled"`
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
	Incomplete int  `json:"incomplete"`
	// FailedShare is Failed / Judged.
	FailedShare float64 `json:"failed_share"`
}

// Forms of ActionForms besides the recorded shapes.
const (
	// FormCanonical is the action protocol as the system prompt gives it.
	FormCanonical = draft.ShapeCanonical
	// FormUnparsed is a reply read as no action: a parse failure or an
	// empty reply.
	FormUnparsed = "unparsed"
	// FormNotRecorded is an action from a trace that predates shapes.
	FormNotRecorded = "(shape not recorded)"
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

// IsScripted reports whether a model label (classify.ModelLabel) names a
// scripted or replayed backend rather than a model.
func IsScripted(label string) bool {
	backend, _, _ := strings.Cut(label, ":")
	return backend == model.BackendScripted || backend == model.BackendReplay
}

// What the score tables count (ScoredRuns.Runs).
const (
	ScoredModels   = "models"
	ScoredScripted = "scripted"
)

// ScoredRuns are the runs the score tables count.
type ScoredRuns struct {
	// Runs is ScoredModels or ScoredScripted.
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

// NoModelSteps counts runs the harness settled without the model.
type NoModelSteps struct {
	Runs    int `json:"runs"`
	Correct int `json:"correct"`
}

// Bin is one bar of the turns-per-run histogram.
type Bin struct {
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
	Value         string  `json:"value"`
	Runs          int     `json:"runs"`
	Judged        int     `json:"judged"`
	Worked        int     `json:"worked"`
	Failed        int     `json:"failed"`
	NotJudged     int     `json:"not_judged"`
	Turns         int     `json:"turns"`
	RefusalsShare float64 `json:"refusals_share"`
	refusals      int
}

// Options choose what a summary holds.
type Options struct {
	// By is a dimension of Dimensions, or "" for no breakdown.
	By string
}

// CheckOptions reports an option stats cannot take.
func CheckOptions(o Options) error {
	if o.By != "" && !slices.Contains(Dimensions, o.By) {
		return fmt.Errorf("--by %q: want one of %v", o.By, Dimensions)
	}
	return nil
}

// Load reads a trace directory or a classified dataset (a directory with a
// classify state file or Parquet tables) and summarises it.
func Load(ctx context.Context, in string, o Options) (*Summary, error) {
	if classify.IsDataset(in) {
		return FromDataset(ctx, in, o)
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
	all, err := trace.List(dir)
	if err != nil {
		return nil, fmt.Errorf("stats: %w", err)
	}
	if all.Len() == 0 {
		return nil, fmt.Errorf("stats: no trace files (*.jsonl) in %s or %s/runs, and no classified dataset", dir, dir)
	}
	latest, setAside := all.Latest()
	c := newCollector(dir, InputTraces, o)
	c.s.Runs.SetAside = setAside
	for i := range latest.Len() {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("stats: %w", err)
		}
		f := latest.File(i)
		run, err := trace.ReadRun(f)
		for _, w := range run.Warnings {
			c.problem(w)
		}
		if err != nil {
			c.problem(err)
		}
		if run.Start == nil {
			continue
		}
		if !run.Complete() {
			c.s.Problems = append(c.s.Problems, fmt.Sprintf("%s: incomplete run: no run_end record; its turns are counted, the run is in no score", f.Path))
		}
		part, r, turns := classify.Rows(run)
		c.addRun(part, r.Summary())
		for i := range turns {
			c.addTurn(part, turns[i].Summary())
		}
	}
	return c.finish(), nil
}

// FromDataset summarises a classified dataset from its runs and turns
// tables, read for the columns it counts only.
func FromDataset(ctx context.Context, dir string, o Options) (*Summary, error) {
	if err := CheckOptions(o); err != nil {
		return nil, err
	}
	c := newCollector(dir, InputDataset, o)
	for r, err := range classify.RunSummaries(ctx, dir) {
		if err != nil {
			return nil, fmt.Errorf("stats: %w", err)
		}
		c.addRun(r.Partition, r.Row)
	}
	for t, err := range classify.TurnSummaries(ctx, dir) {
		if err != nil {
			return nil, fmt.Errorf("stats: %w", err)
		}
		c.addTurn(t.Partition, t.Row)
	}
	if c.s.Runs.Read == 0 {
		return nil, fmt.Errorf("stats: the dataset %s holds no runs", dir)
	}
	return c.finish(), nil
}

// collector accumulates a summary row by row.
type collector struct {
	s  *Summary
	by string
	// scores are the score tables' tallies: [0] of models' runs, [1]
	// of scripted and replayed runs; finish keeps one.
	scores [2]*scoreTally
	kinds  map[schemas.Kind]int
	nudges map[schemas.Code]*nudgeCount
	perRun map[int]int
	groups map[string]*Group
	models map[string]*ModelRuns
	forms  map[string]map[string]int
}

// scoreTally is the score tables of one kind of run.
type scoreTally struct {
	judged, worked, failed int
	classes                map[schemas.FailureClass]int
	tiers                  map[int]*TierFailures
	tags                   map[string]*TagFailures
	passes                 map[int]*PassScore
	claimed                ClaimedDone
	noModel                NoModelSteps
}

func newScoreTally() *scoreTally {
	return &scoreTally{classes: map[schemas.FailureClass]int{}, tiers: map[int]*TierFailures{}, tags: map[string]*TagFailures{}, passes: map[int]*PassScore{},
		claimed: ClaimedDone{Examples: []ClaimedRun{}}}
}

type nudgeCount struct {
	kind     schemas.Kind
	count    int
	messages map[string]int
}

func newCollector(input, kind string, o Options) *collector {
	return &collector{
		s:      &Summary{Input: input, Kind: kind, Problems: []string{}},
		by:     o.By,
		scores: [2]*scoreTally{newScoreTally(), newScoreTally()},
		kinds:  map[schemas.Kind]int{},
		nudges: map[schemas.Code]*nudgeCount{}, perRun: map[int]int{}, groups: map[string]*Group{},
		models: map[string]*ModelRuns{}, forms: map[string]map[string]int{},
	}
}

func (c *collector) problem(err error) {
	var joined interface{ Unwrap() []error }
	if errors.As(err, &joined) {
		for _, e := range joined.Unwrap() {
			c.problem(e)
		}
		return
	}
	c.s.Problems = append(c.s.Problems, err.Error())
}

func (c *collector) group(p classify.Partition, tier int32, caseID string) *Group {
	if c.by == "" {
		return nil
	}
	var v string
	switch c.by {
	case ByModel:
		v = p.Model
	case BySource:
		v = p.Source
	case ByTier:
		v = strconv.Itoa(int(tier))
	case ByCase:
		v = caseID
	}
	g := c.groups[v]
	if g == nil {
		g = &Group{Value: v}
		c.groups[v] = g
	}
	return g
}

func (c *collector) addRun(p classify.Partition, r classify.RunSummary) {
	s := &c.s.Runs
	s.Read++
	c.perRun[int(r.Turns)]++
	g := c.group(p, r.Tier, r.CaseID)
	if g != nil {
		g.Runs++
	}
	m := c.models[p.Model]
	if m == nil {
		m = &ModelRuns{Model: p.Model, Scripted: IsScripted(p.Model)}
		c.models[p.Model] = m
	}
	m.Runs++
	switch r.Verdict {
	case schemas.VerdictError:
		s.Error++
		m.Error++
	case schemas.VerdictCancelled:
		s.Cancelled++
		m.Cancelled++
	case schemas.VerdictWorked, schemas.VerdictFailed:
	default:
		s.Incomplete++
		m.Incomplete++
	}
	judged := r.Verdict == schemas.VerdictWorked || r.Verdict == schemas.VerdictFailed
	if !judged {
		s.NotJudged++
		m.NotJudged++
		if g != nil {
			g.NotJudged++
		}
		return
	}
	s.Judged++
	m.Judged++
	sc := c.scores[0]
	if m.Scripted {
		sc = c.scores[1]
	}
	sc.judged++
	if r.Verdict == schemas.VerdictWorked {
		m.Worked++
		sc.worked++
	} else {
		m.Failed++
		sc.failed++
	}
	t := sc.tiers[int(r.Tier)]
	if t == nil {
		t = &TierFailures{Tier: int(r.Tier), Title: tierTitle(int(r.Tier))}
		sc.tiers[int(r.Tier)] = t
	}
	ps := sc.passes[int(r.Pass)]
	if ps == nil {
		ps = &PassScore{Pass: int(r.Pass)}
		sc.passes[int(r.Pass)] = ps
	}
	t.Judged++
	ps.Judged++
	for _, name := range r.Tags {
		tf := sc.tags[name]
		if tf == nil {
			tf = &TagFailures{Tag: name}
			sc.tags[name] = tf
		}
		tf.Judged++
		if r.Verdict == schemas.VerdictWorked {
			tf.Worked++
		} else {
			tf.Failed++
		}
	}
	if g != nil {
		g.Judged++
	}
	if r.ModelSteps == 0 {
		sc.noModel.Runs++
		if r.Verdict == schemas.VerdictWorked {
			sc.noModel.Correct++
		}
	}
	if r.Verdict == schemas.VerdictWorked {
		s.Worked++
		t.Worked++
		ps.Worked++
		if g != nil {
			g.Worked++
		}
		return
	}
	s.Failed++
	t.Failed++
	if g != nil {
		g.Failed++
	}
	sc.classes[r.FailureClass]++
	cd := &sc.claimed
	cd.Failures++
	if r.ClaimedDone {
		cd.Claimed++
		if len(r.Writes) == 0 {
			cd.WroteNothing++
		}
		if len(cd.Examples) < maxExamples {
			cd.Examples = append(cd.Examples, ClaimedRun{RunID: r.RunID, Case: r.CaseID, Pass: int(r.Pass), Writes: len(r.Writes), FirstFailure: r.FirstFailure})
		}
	}
}

func (c *collector) addTurn(p classify.Partition, t classify.TurnSummary) {
	c.s.Turns.Total++
	c.kinds[t.Kind]++
	for _, code := range t.WarningCodes {
		switch schemas.Code(code) {
		case schemas.CodeContextFull:
			c.s.Turns.ContextFull++
		case schemas.CodeContextTruncated:
			c.s.Turns.ContextTruncated++
		case schemas.CodeContextOverflow:
			c.s.Turns.ContextOverflow++
		}
	}
	if form, ok := actionForm(t); ok {
		f := c.forms[p.Model]
		if f == nil {
			f = map[string]int{}
			c.forms[p.Model] = f
		}
		f[form]++
	}
	if t.LabelFrom == classify.FromRules {
		c.s.Turns.RulesLabelled++
	}
	g := c.group(p, t.Tier, t.CaseID)
	if g != nil {
		g.Turns++
	}
	if t.Kind != schemas.KindRefusalOrNudge && t.Kind != schemas.KindParseFailure {
		return
	}
	if g != nil {
		g.refusals++
	}
	code := t.Code
	if code == "" {
		code = "(no code)"
	}
	n := c.nudges[code]
	if n == nil {
		n = &nudgeCount{kind: t.Kind, messages: map[string]int{}}
		c.nudges[code] = n
	}
	n.count++
	msg := t.Feedback
	if _, ok := n.messages[msg]; ok || len(n.messages) < maxMessages {
		n.messages[msg]++
	}
}

// actionForm is the form a turn's action was written in, and false for a
// turn the model wrote nothing for (its call failed or was cancelled). A
// reply read as no action is refused; a call that failed is not.
func actionForm(t classify.TurnSummary) (string, bool) {
	switch {
	case !t.ModelStep:
		return "", false
	case t.OutcomeCode == schemas.CodeParseFailed || t.OutcomeCode == schemas.CodeEmptyReply:
		return FormUnparsed, true
	case t.Shape == "none" || t.Shape == "" && t.Verb == "":
		if t.Status == schemas.StatusRefused {
			return FormUnparsed, true
		}
		return "", false
	case t.Shape == "":
		return FormNotRecorded, true
	}
	return t.Shape, true
}

// finish turns the tallies into the summary's sorted tables.
func (c *collector) finish() *Summary {
	s := c.s
	s.Runs.FailedShare = share(s.Runs.Failed, s.Runs.Judged)
	s.Models = []ModelRuns{}
	var models, scripted bool
	for _, m := range c.models {
		m.FailedShare = share(m.Failed, m.Judged)
		s.Models = append(s.Models, *m)
		models, scripted = models || !m.Scripted, scripted || m.Scripted
	}
	s.Mixed = models && scripted
	sc := c.scores[0]
	s.Scored.Runs = ScoredModels
	if !models {
		sc = c.scores[1]
		s.Scored.Runs = ScoredScripted
	}
	s.Scored.Judged, s.Scored.Worked, s.Scored.Failed = sc.judged, sc.worked, sc.failed
	s.ClaimedDone, s.NoModelSteps = sc.claimed, sc.noModel
	slices.SortFunc(s.Models, func(a, b ModelRuns) int {
		return cmp.Or(compareBool(a.Scripted, b.Scripted), cmp.Compare(a.Model, b.Model))
	})

	s.ActionForms = []ActionForms{}
	for label, forms := range c.forms {
		af := ActionForms{Model: label, Scripted: IsScripted(label), Forms: []Count{}}
		for _, n := range forms {
			af.Turns += n
		}
		var shapes []Count
		for form, n := range forms {
			if form != FormCanonical && form != FormUnparsed {
				shapes = append(shapes, Count{Name: form, Count: n, Share: share(n, af.Turns)})
			}
		}
		slices.SortFunc(shapes, func(a, b Count) int { return cmp.Or(-cmp.Compare(a.Count, b.Count), cmp.Compare(a.Name, b.Name)) })
		af.Forms = append(af.Forms, Count{Name: FormCanonical, Count: forms[FormCanonical], Share: share(forms[FormCanonical], af.Turns)})
		af.Forms = append(af.Forms, shapes...)
		af.Forms = append(af.Forms, Count{Name: FormUnparsed, Count: forms[FormUnparsed], Share: share(forms[FormUnparsed], af.Turns)})
		s.ActionForms = append(s.ActionForms, af)
	}
	slices.SortFunc(s.ActionForms, func(a, b ActionForms) int {
		return cmp.Or(compareBool(a.Scripted, b.Scripted), cmp.Compare(a.Model, b.Model))
	})
	s.FailureClasses = []Count{}
	for _, class := range []schemas.FailureClass{schemas.FailWrongThing, schemas.FailWroteNothing, schemas.FailDidNotDoTheJob} {
		s.FailureClasses = append(s.FailureClasses, Count{Name: string(class), Count: sc.classes[class], Share: share(sc.classes[class], sc.failed)})
		delete(sc.classes, class)
	}
	for class, n := range sc.classes { // a class this build does not know
		s.FailureClasses = append(s.FailureClasses, Count{Name: string(class), Count: n, Share: share(n, sc.failed)})
	}
	slices.SortStableFunc(s.FailureClasses, func(a, b Count) int { return cmp.Or(-cmp.Compare(a.Count, b.Count), cmp.Compare(a.Name, b.Name)) })

	s.Tiers = []TierFailures{}
	for _, t := range sc.tiers {
		s.Tiers = append(s.Tiers, *t)
	}
	slices.SortFunc(s.Tiers, func(a, b TierFailures) int { return cmp.Compare(a.Tier, b.Tier) })
	s.Tags = []TagFailures{}
	for _, t := range sc.tags {
		s.Tags = append(s.Tags, *t)
	}
	slices.SortFunc(s.Tags, func(a, b TagFailures) int { return cmp.Compare(a.Tag, b.Tag) })
	s.Passes = []PassScore{}
	for _, p := range sc.passes {
		s.Passes = append(s.Passes, *p)
	}
	slices.SortFunc(s.Passes, func(a, b PassScore) int { return cmp.Compare(a.Pass, b.Pass) })

	s.Turns.Runs = s.Runs.Read
	if s.Turns.Runs > 0 {
		s.Turns.PerRun = float64(s.Turns.Total) / float64(s.Turns.Runs)
	}
	s.Kinds = []Count{}
	for _, k := range []schemas.Kind{schemas.KindToolResult, schemas.KindRefusalOrNudge, schemas.KindOpening, schemas.KindParseFailure} {
		s.Kinds = append(s.Kinds, Count{Name: string(k), Count: c.kinds[k], Share: share(c.kinds[k], s.Turns.Total)})
		delete(c.kinds, k)
	}
	for k, n := range c.kinds {
		s.Kinds = append(s.Kinds, Count{Name: string(k), Count: n, Share: share(n, s.Turns.Total)})
	}

	s.Nudges = []Nudge{}
	for code, n := range c.nudges {
		msg, best := "", 0
		for m, k := range n.messages {
			if k > best || k == best && m < msg {
				msg, best = m, k
			}
		}
		s.Nudges = append(s.Nudges, Nudge{Code: code, Kind: n.kind, Count: n.count, Share: share(n.count, s.Turns.Total), Message: msg, Distinct: len(n.messages)})
	}
	slices.SortFunc(s.Nudges, func(a, b Nudge) int { return cmp.Or(-cmp.Compare(a.Count, b.Count), cmp.Compare(a.Code, b.Code)) })

	s.TurnsPerRun = []Bin{}
	if len(c.perRun) > 0 {
		lo, hi := -1, 0
		for n := range c.perRun {
			if lo < 0 || n < lo {
				lo = n
			}
			hi = max(hi, n)
		}
		for n := lo; n <= hi; n++ {
			s.TurnsPerRun = append(s.TurnsPerRun, Bin{Turns: n, Runs: c.perRun[n]})
		}
	}

	if c.by != "" {
		s.By = &Breakdown{Dimension: c.by, Groups: []Group{}}
		for _, g := range c.groups {
			g.RefusalsShare = share(g.refusals, g.Turns)
			s.By.Groups = append(s.By.Groups, *g)
		}
		slices.SortFunc(s.By.Groups, func(a, b Group) int {
			if c.by == ByTier {
				ai, _ := strconv.Atoi(a.Value)
				bi, _ := strconv.Atoi(b.Value)
				return cmp.Compare(ai, bi)
			}
			return cmp.Compare(a.Value, b.Value)
		})
	}
	return s
}

// compareBool orders false before true.
func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

func share(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}

func tierTitle(tier int) string {
	if t, ok := datasets.Tiers()[tier]; ok {
		return t
	}
	if tier == 0 {
		return "no tier (dogfood and ad hoc runs)"
	}
	return "tier " + strconv.Itoa(tier)
}
