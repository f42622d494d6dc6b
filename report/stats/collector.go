package stats

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/pyharness/pyharness/classify/countcache"
	"github.com/pyharness/pyharness/classify/dataset"
	"github.com/pyharness/pyharness/classify/turnlabel"
	"github.com/pyharness/pyharness/collect/runcost"
	"github.com/pyharness/pyharness/datasets"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

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
	// lastForms and lastNudge are the entries of forms and nudges addTurn
	// used last: a dataset's turns come a partition at a time and a
	// refusal's code after the same code, so most turns need no lookup.
	lastForms struct {
		model string
		forms map[string]int
	}
	lastNudge struct {
		code  schemas.Code
		count *nudgeCount
	}
	// cost is what each model's runs cost in calls, from traces only.
	cost runcost.Tally
}

// scoreTally is the score tables of one kind of run.
type scoreTally struct {
	judged, worked, failed int
	classes                map[schemas.FailureClass]int
	tiers                  map[int]*TierFailures
	tags                   map[string]*TagFailures
	passes                 map[int]*PassScore
	claimed                ClaimedDone
	noModel                schemas.NoModelSteps
	// reasons counts the failed runs' one-line reasons (run_end.reason),
	// read from traces only: the dataset has no column for them.
	reasons map[string]int
	// stops counts every run by its stop reason, judged or not; stuckOn
	// the stuck ones by the code that repeated, from traces only.
	stops   map[schemas.StopReason]int
	stuckOn map[schemas.Code]int
}

func newScoreTally() *scoreTally {
	return &scoreTally{classes: map[schemas.FailureClass]int{}, tiers: map[int]*TierFailures{}, tags: map[string]*TagFailures{}, passes: map[int]*PassScore{},
		claimed: ClaimedDone{Examples: []ClaimedRun{}}, reasons: map[string]int{}, stops: map[schemas.StopReason]int{}, stuckOn: map[schemas.Code]int{}}
}

type nudgeCount struct {
	kind     schemas.Kind
	count    int
	messages map[string]int
}

func newCollector(input, kind string, o Options) *collector {
	return &collector{
		s:      &Summary{Input: input, Kind: kind, Problems: trace.Problems{}},
		by:     o.By,
		scores: [2]*scoreTally{newScoreTally(), newScoreTally()},
		kinds:  map[schemas.Kind]int{},
		nudges: map[schemas.Code]*nudgeCount{}, perRun: map[int]int{}, groups: map[string]*Group{},
		models: map[string]*ModelRuns{}, forms: map[string]map[string]int{}, cost: runcost.Tally{},
	}
}

func (c *collector) group(p dataset.Partition, tier int32, caseID string) *Group {
	if c.by == "" || c.by == byTag {
		return nil
	}
	var v string
	switch c.by {
	case byModel:
		v = p.Model
	case bySource:
		v = p.Source
	case byTier:
		v = strconv.Itoa(int(tier))
	case byCase:
		v = caseID
	}
	return c.groupOf(p, v)
}

// groupOf is the group of value v, the scripted one for a scripted
// partition.
func (c *collector) groupOf(p dataset.Partition, v string) *Group {
	// Scripted and replayed runs are grouped apart from models' in every
	// dimension, as the headline keeps them: no line totals the two.
	scripted := c.by != byModel && schemas.LabelHandWritten(p.Model)
	key := v
	if scripted {
		key += "\x00scripted"
	}
	g := c.groups[key]
	if g == nil {
		g = &Group{Value: v, Scripted: scripted, noRefusals: c.by == byTag}
		c.groups[key] = g
	}
	return g
}

// tagGroups appends the groups a run counts in by tag: one per tag, the
// group "" for a run with none.
func (c *collector) tagGroups(gs []*Group, p dataset.Partition, tags []string) []*Group {
	if len(tags) == 0 {
		return append(gs, c.groupOf(p, ""))
	}
	for _, t := range tags {
		if g := c.groupOf(p, t); !slices.Contains(gs, g) {
			gs = append(gs, g)
		}
	}
	return gs
}

// addRun counts n runs alike (a RunTally stands for n equal runs); the
// failures that claimed DONE are listed apart, by example.
func (c *collector) addRun(p dataset.Partition, r countcache.RunTally, n int) {
	s := &c.s.Runs
	s.Read += n
	c.perRun[int(r.Turns)] += n
	// The groups the run counts in: none, one, or one per tag; on the
	// stack for the first two.
	var one [1]*Group
	gs := one[:0]
	if c.by == byTag {
		gs = c.tagGroups(gs, p, r.Tags)
	} else if g := c.group(p, r.Tier, r.CaseID); g != nil {
		gs = append(gs, g)
	}
	for _, g := range gs {
		g.Runs += n
		if c.by == byTag {
			g.Turns += n * int(r.Turns)
		}
	}
	m := c.model(p)
	m.Runs += n
	if r.StopReason != "" {
		c.tally(m).stops[r.StopReason] += n
	}
	switch r.Verdict {
	case schemas.VerdictError:
		s.Error += n
		m.Error += n
	case schemas.VerdictCancelled:
		s.Cancelled += n
		m.Cancelled += n
	case schemas.VerdictUnjudged:
		s.Unjudged += n
		m.Unjudged += n
	case schemas.VerdictWorked, schemas.VerdictFailed:
	default:
		s.Incomplete += n
		m.Incomplete += n
	}
	if !r.Verdict.Judged() {
		s.NotJudged += n
		m.NotJudged += n
		for _, g := range gs {
			g.NotJudged += n
		}
		return
	}
	s.Judged += n
	m.Judged += n
	sc := c.tally(m)
	sc.judged += n
	if r.Verdict == schemas.VerdictWorked {
		m.Worked += n
		sc.worked += n
	} else {
		m.Failed += n
		sc.failed += n
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
	t.Judged += n
	ps.Judged += n
	countTags(sc.tags, r.Tags, r.Verdict == schemas.VerdictWorked, n)
	for _, g := range gs {
		g.Judged += n
	}
	if r.ModelSteps == 0 {
		sc.noModel.Runs += n
		if r.Verdict == schemas.VerdictWorked {
			sc.noModel.Correct += n
		}
	}
	if r.Verdict == schemas.VerdictWorked {
		s.Worked += n
		t.Worked += n
		ps.Worked += n
		for _, g := range gs {
			g.Worked += n
		}
		return
	}
	s.Failed += n
	t.Failed += n
	for _, g := range gs {
		g.Failed += n
	}
	sc.classes[r.FailureClass] += n
	cd := &sc.claimed
	cd.Failures += n
	if r.ClaimedDone {
		cd.Claimed += n
		if r.Writes == 0 {
			cd.WroteNothing += n
		}
	}
}

// countTags counts n judged runs, worked or failed, under each of their
// tags.
func countTags(tags map[string]*TagFailures, names []string, worked bool, n int) {
	for _, name := range names {
		tf := tags[name]
		if tf == nil {
			tf = &TagFailures{Tag: name}
			tags[name] = tf
		}
		tf.Judged += n
		if worked {
			tf.Worked += n
		} else {
			tf.Failed += n
		}
	}
}

// model is the headline row of a partition's model.
func (c *collector) model(p dataset.Partition) *ModelRuns {
	m := c.models[p.Model]
	if m == nil {
		m = &ModelRuns{Model: p.Model, Scripted: schemas.LabelHandWritten(p.Model)}
		c.models[p.Model] = m
	}
	return m
}

// tally is the score tables a model's runs count in.
func (c *collector) tally(m *ModelRuns) *scoreTally {
	return c.scores[scoreIndex(m.Scripted)]
}

// scoreIndex is the index in collector.scores of the tally of models' runs
// or of scripted ones.
func scoreIndex(scripted bool) int {
	if scripted {
		return 1
	}
	return 0
}

// isExample reports whether a run is among the failures that claimed
// DONE, which ClaimedDone lists the first of.
func isExample(r *dataset.RunSummary) bool {
	return r.Verdict == schemas.VerdictFailed && r.ClaimedDone
}

// example lists a run, counted by addRun, among the failures that claimed
// DONE when it is one and the list is not full.
func (c *collector) example(p dataset.Partition, r *dataset.RunSummary) {
	if !isExample(r) {
		return
	}
	cd := &c.tally(c.model(p)).claimed
	if len(cd.Examples) < maxExamples {
		cd.Examples = append(cd.Examples, ClaimedRun{RunID: r.RunID, Case: r.CaseID, Pass: int(r.Pass), Writes: len(r.Writes), FirstFailure: r.FirstFailure})
	}
}

// examplesWanted is how many failures that claimed DONE each score tally
// will list, once addRun counted them.
func (c *collector) examplesWanted() [2]int {
	var want [2]int
	for i, sc := range c.scores {
		want[i] = min(maxExamples, sc.claimed.Claimed)
	}
	return want
}

// addTurn counts n turns alike.
func (c *collector) addTurn(p dataset.Partition, t dataset.TurnSummary, n int) {
	c.s.Turns.Total += n
	c.kinds[t.Kind] += n
	for _, code := range t.WarningCodes {
		switch schemas.Code(code) {
		case schemas.CodeContextFull:
			c.s.Turns.ContextFull += n
		case schemas.CodeContextTruncated:
			c.s.Turns.ContextTruncated += n
		case schemas.CodeContextOverflow:
			c.s.Turns.ContextOverflow += n
		}
	}
	if form, ok := actionForm(t); ok {
		f := c.lastForms.forms
		if f == nil || c.lastForms.model != p.Model {
			if f = c.forms[p.Model]; f == nil {
				f = map[string]int{}
				c.forms[p.Model] = f
			}
			c.lastForms.model, c.lastForms.forms = p.Model, f
		}
		f[form] += n
	}
	if t.LabelFrom == turnlabel.FromRules {
		c.s.Turns.RulesLabelled += n
	}
	if t.ReasoningSource != "" {
		c.s.Turns.Reasoning += n
		c.s.Turns.ReasoningTokens += int64(n) * int64(t.ReasoningTokens)
	}
	if t.OutcomeCode == schemas.CodeReasoningCut {
		c.s.Turns.ReasoningCut += n
	}
	g := c.group(p, t.Tier, t.CaseID)
	if g != nil {
		g.Turns += n
	}
	if t.Kind != schemas.KindRefusalOrNudge && t.Kind != schemas.KindParseFailure {
		return
	}
	if g != nil {
		g.refusals += n
	}
	code := t.Code
	if code == "" {
		code = "(no code)"
	}
	nc := c.lastNudge.count
	if nc == nil || c.lastNudge.code != code {
		if nc = c.nudges[code]; nc == nil {
			nc = &nudgeCount{kind: t.Kind, messages: map[string]int{}}
			c.nudges[code] = nc
		}
		c.lastNudge.code, c.lastNudge.count = code, nc
	}
	nc.count += n
	// The first maxMessages wordings met are counted, each every time it
	// occurs: turns counted n at a time in the order of their first
	// occurrence give the same counts.
	msg := t.Feedback
	if _, ok := nc.messages[msg]; ok {
		nc.messages[msg] += n
	} else if len(nc.messages) < maxMessages {
		// A copy: the feedback of a dataset's turns shares its memory
		// with the other wordings of its row group (tally.Turns).
		nc.messages[strings.Clone(msg)] = n
	}
}

// mergeTurns adds the turns counted by t, a collector that counted turns
// only, to c's: what addTurn counts, every table of it c has none of but
// the breakdown's groups, which both count into.
func (c *collector) mergeTurns(t *collector) {
	c.s.Turns = t.s.Turns
	c.kinds, c.nudges, c.forms = t.kinds, t.nudges, t.forms
	for key, tg := range t.groups {
		g := c.groups[key]
		if g == nil {
			g = &Group{Value: tg.Value, Scripted: tg.Scripted, noRefusals: tg.noRefusals}
			c.groups[key] = g
		}
		g.Turns += tg.Turns
		g.refusals += tg.refusals
	}
}

// actionForm is the form a turn's action was written in, and false for a
// turn the model wrote nothing for (its call failed or was cancelled). A
// reply read as no action is refused; a call that failed is not.
func actionForm(t dataset.TurnSummary) (string, bool) {
	switch {
	case !t.ModelStep:
		return "", false
	case t.OutcomeCode == schemas.CodeParseFailed || t.OutcomeCode == schemas.CodeEmptyReply:
		return formUnparsed, true
	case t.Shape == "none" || t.Shape == "" && t.Verb == "":
		if t.Status == schemas.StatusRefused {
			return formUnparsed, true
		}
		return "", false
	case t.Shape == "":
		return formNotRecorded, true
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
	s.Scored.Runs = scoredModels
	if !models {
		sc = c.scores[1]
		s.Scored.Runs = scoredScripted
	}
	s.Scored.Judged, s.Scored.Worked, s.Scored.Failed = sc.judged, sc.worked, sc.failed
	s.ClaimedDone, s.NoModelSteps = sc.claimed, sc.noModel
	s.Reasons = mostCommon(sc.reasons, sc.failed, maxReasons)
	stopped := 0
	for _, n := range sc.stops {
		stopped += n
	}
	s.StopReasons = mostCommon(stopReasonNames(sc.stops), stopped, len(sc.stops))
	stuck := map[string]int{}
	for code, n := range sc.stuckOn {
		stuck[string(code)] = n
	}
	s.StuckOn = mostCommon(stuck, sc.stops[schemas.StopStuck], len(stuck))
	s.Cost = c.cost.Models()
	slices.SortFunc(s.Models, func(a, b ModelRuns) int {
		return cmp.Or(compareBool(a.Scripted, b.Scripted), cmp.Compare(a.Model, b.Model))
	})

	s.ActionForms = actionForms(c.forms)
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
	// Commonest first, as every other count of the summary is listed.
	slices.SortStableFunc(s.Kinds, func(a, b Count) int { return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Name, b.Name)) })

	s.Nudges = nudgeList(c.nudges, s.Turns.Total)

	s.TurnsPerRun = turnsPerRunBars(c.perRun)

	if c.by != "" {
		s.By = &Breakdown{Dimension: c.by, Groups: []Group{}}
		for _, g := range c.groups {
			g.RefusalsShare = share(g.refusals, g.Turns)
			s.By.Groups = append(s.By.Groups, *g)
		}
		slices.SortFunc(s.By.Groups, func(a, b Group) int {
			if c.by == byTier {
				ai, _ := strconv.Atoi(a.Value)
				bi, _ := strconv.Atoi(b.Value)
				return cmp.Or(cmp.Compare(ai, bi), compareBool(a.Scripted, b.Scripted))
			}
			return cmp.Or(cmp.Compare(a.Value, b.Value), compareBool(a.Scripted, b.Scripted))
		})
	}
	return s
}

// actionForms is each model's turns by the form its actions were read
// in: canonical first, the other shapes by count, unparsed last; models
// before scripted backends.
func actionForms(formsByModel map[string]map[string]int) []ActionForms {
	out := []ActionForms{}
	for label, forms := range formsByModel {
		af := ActionForms{Model: label, Scripted: schemas.LabelHandWritten(label), Forms: []Count{}}
		for _, n := range forms {
			af.Turns += n
		}
		var shapes []Count
		for form, n := range forms {
			if form != formCanonical && form != formUnparsed {
				shapes = append(shapes, Count{Name: form, Count: n, Share: share(n, af.Turns)})
			}
		}
		slices.SortFunc(shapes, func(a, b Count) int { return cmp.Or(-cmp.Compare(a.Count, b.Count), cmp.Compare(a.Name, b.Name)) })
		af.Forms = append(af.Forms, Count{Name: formCanonical, Count: forms[formCanonical], Share: share(forms[formCanonical], af.Turns)})
		af.Forms = append(af.Forms, shapes...)
		af.Forms = append(af.Forms, Count{Name: formUnparsed, Count: forms[formUnparsed], Share: share(forms[formUnparsed], af.Turns)})
		out = append(out, af)
	}
	slices.SortFunc(out, func(a, b ActionForms) int {
		return cmp.Or(compareBool(a.Scripted, b.Scripted), cmp.Compare(a.Model, b.Model))
	})
	return out
}

// nudgeList is the refusals and nudges by code, most frequent first, each
// with its most common message; turns is the number of turns read.
func nudgeList(nudges map[schemas.Code]*nudgeCount, turns int) []Nudge {
	out := []Nudge{}
	for code, n := range nudges {
		msg, best := "", 0
		for m, k := range n.messages {
			if k > best || k == best && m < msg {
				msg, best = m, k
			}
		}
		out = append(out, Nudge{Code: code, Kind: n.kind, Count: n.count, Share: share(n.count, turns), Message: msg, Distinct: len(n.messages)})
	}
	slices.SortFunc(out, func(a, b Nudge) int { return cmp.Or(-cmp.Compare(a.Count, b.Count), cmp.Compare(a.Code, b.Code)) })
	return out
}

// turnsPerRunBars is the runs by their number of turns, a bar for every
// number from the fewest to the most.
func turnsPerRunBars(perRun map[int]int) []TurnsPerRunBar {
	out := []TurnsPerRunBar{}
	if len(perRun) > 0 {
		lo, hi := -1, 0
		for n := range perRun {
			if lo < 0 || n < lo {
				lo = n
			}
			hi = max(hi, n)
		}
		for n := lo; n <= hi; n++ {
			out = append(out, TurnsPerRunBar{Turns: n, Runs: perRun[n]})
		}
	}
	return out
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

func stopReasonNames(stops map[schemas.StopReason]int) map[string]int {
	out := make(map[string]int, len(stops))
	for r, n := range stops {
		out[string(r)] = n
	}
	return out
}

// traceRun counts what only a run's trace holds: the code a stuck run
// repeated, and what its model calls cost.
func (c *collector) traceRun(p dataset.Partition, run *trace.Run) {
	m := c.model(p)
	if run.End != nil && run.End.Stuck != nil {
		c.tally(m).stuckOn[run.End.Stuck.Code]++
	}
	c.cost.Add(p.Model, m.Scripted, runcost.Of(run.Start, run.Turns, run.End))
}

// reason counts a failed run's one-line reason under its model's score.
func (c *collector) reason(p dataset.Partition, reason string) {
	if reason != "" {
		c.tally(c.model(p)).reasons[reason]++
	}
}

// maxReasons bounds the reasons a summary lists.
const maxReasons = 10

// mostCommon is the n most common names of counts, most first, each with
// its share of of.
func mostCommon(counts map[string]int, of, n int) []Count {
	out := []Count{}
	for name, k := range counts {
		out = append(out, Count{Name: name, Count: k, Share: share(k, of)})
	}
	slices.SortFunc(out, func(a, b Count) int { return cmp.Or(-cmp.Compare(a.Count, b.Count), cmp.Compare(a.Name, b.Name)) })
	return out[:min(len(out), n)]
}
