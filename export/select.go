package export

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pyharness/pyharness/classify/turnlabel"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

// Why a run or a turn was left out. The order is the order they are
// checked in and printed.
const (
	whyNoStart     = "no run_start record"
	whyIncomplete  = "incomplete: no run_end record"
	whySource      = "source not in --source"
	whyCase        = "case not in --case"
	whyTier        = "tier not in --tier"
	whyTag         = "no tag in --tag"
	whyModel       = "model not in --model"
	whyScripted    = "scripted or replay backend: drafts written by hand, not by a model, would teach nothing true (--include-scripted takes them)"
	whyUnjudged    = "unjudged: its suite ran no test, so nothing judged the change"
	whyNotJudged   = "not judged: ended error or cancelled"
	whyFailed      = "failed run (--include-failed-runs takes its applied drafts)"
	whyStuck       = "stopped stuck: the model repeated a refused draft it could not leave; its drafts are DPO rejected examples, never SFT targets"
	whyNoModel     = "settled without the model: no draft"
	whyNotRebuilt  = "prompt did not rebuild to its prompt_hash"
	whyKind        = "kind not in --kind"
	whyNotParsed   = "draft did not parse"
	whyNotApplied  = "not applied (refused, failed or stopped)"
	whyAlternation = "messages do not alternate user/assistant after the system prompt"
	whyNoCanonical = "no canonical form: a READ of the last lines or a PATCH diff of several hunks (--as-written takes it)"
	whyNeither     = "neither chosen (applied in a worked run) nor rejected (refused, or from a failed run)"
)

var runWhys = []string{whyNoStart, whyIncomplete, whySource, whyCase, whyTier, whyTag, whyModel, whyScripted, whyUnjudged, whyNotJudged, whyStuck, whyFailed}

var turnWhys = []string{whyNoModel, whyNotRebuilt, whyKind, whyNotParsed, whyNotApplied, whyAlternation, whyNoCanonical, whyNeither}

// Tally counts what was left out, and why.
type Tally map[string]int

// Lines returns "N reason" lines in the fixed order of the reasons.
func (t Tally) lines(order []string) []string {
	var out []string
	for _, why := range order {
		if n := t[why]; n > 0 {
			out = append(out, fmt.Sprintf("%d %s", n, why))
		}
	}
	return out
}

// Total is the number of things left out.
func (t Tally) total() int {
	n := 0
	for _, v := range t {
		n += v
	}
	return n
}

func modelMatches(m schemas.Model, want []string) bool {
	for _, w := range want {
		if w == m.Name || w == m.Backend || w == m.Spec() {
			return true
		}
	}
	return false
}

// runWhy says why a run is left out, or "" when its turns are considered.
// forDPO keeps failed runs: their drafts are the rejected side.
func (o Options) runWhy(s *schemas.RunStart, end *schemas.RunEnd, forDPO bool) string {
	switch {
	case s == nil:
		return whyNoStart
	case end == nil:
		return whyIncomplete
	case len(o.Sources) > 0 && !slices.Contains(o.Sources, s.Source):
		return whySource
	case len(o.Cases) > 0 && !slices.Contains(o.Cases, s.CaseID):
		return whyCase
	case len(o.Tiers) > 0 && !slices.Contains(o.Tiers, s.Tier):
		return whyTier
	case len(o.Tags) > 0 && !slices.ContainsFunc(s.Tags, func(t string) bool { return slices.Contains(o.Tags, t) }):
		return whyTag
	case len(o.Models) > 0 && !modelMatches(s.Model, o.Models):
		return whyModel
	case s.Model.HandWritten() && !o.IncludeScripted:
		return whyScripted
	case end.Verdict == schemas.VerdictUnjudged:
		return whyUnjudged
	case !end.Verdict.Judged():
		return whyNotJudged
	case end.StopReason == schemas.StopStuck && !forDPO:
		return whyStuck
	case end.Verdict == schemas.VerdictFailed && !o.IncludeFailedRuns && !forDPO:
		return whyFailed
	}
	return ""
}

// accepted reports whether the harness took a draft: applied, or a DONE it
// accepted (which ends the run, so it is recorded as stopped).
func accepted(t *schemas.Turn) bool {
	switch t.Outcome.Status {
	case schemas.StatusApplied:
		return true
	case schemas.StatusStopped:
		return t.Action.Verb == "DONE" && t.Outcome.Code == ""
	}
	return false
}

func parsed(t *schemas.Turn) bool {
	return t.Action.Verb != "" && t.Action.Shape != "none"
}

// turnWhy says why turn i of a considered run is no SFT pair, or "". p
// holds the parse of the turn's draft, made here when it is needed first.
func (o Options) turnWhy(r *trace.RebuiltRun, i int, p *parsedDraft) string {
	return o.whyOf(factsOf(r, i, p, !o.AsWritten), o.kindWanted(r.Turns[i]))
}

// kindWanted reports whether a turn's kind is in --kind. The kind is the
// one classify gives the turn (turnlabel.Of): the recorded one, or the
// text rules' for a turn recorded without one, so that export --kind and the
// classified dataset agree on every trace.
func (o Options) kindWanted(t *schemas.Turn) bool {
	return len(o.Kinds) == 0 || slices.Contains(o.Kinds, string(turnlabel.Of(t).Kind))
}

// side is which side of a preference pair a draft can be.
type side int

const (
	sideNone side = iota
	sideChosen
	sideRejected
)

// dpoSide says which side of a preference pair turn i can be, or why none.
// A stuck run is never the chosen side, even one its checks judged
// worked: it ended repeating a refused draft.
func (o Options) dpoSide(r *trace.RebuiltRun, i int) (side, string) {
	t := r.Turns[i]
	stuck := r.End.StopReason == schemas.StopStuck
	switch {
	case !t.ModelStep:
		return sideNone, whyNoModel
	case r.Prompts[i] == nil:
		return sideNone, whyNotRebuilt
	case !o.kindWanted(t):
		return sideNone, whyKind
	case !alternates(r.Prompts[i]):
		return sideNone, whyAlternation
	case r.Worked() && !stuck && parsed(t) && accepted(t) && (o.AsWritten || hasCanonical(t, &parsedDraft{})):
		return sideChosen, ""
	case t.Outcome.Status == schemas.StatusRefused || r.End.Verdict == schemas.VerdictFailed || stuck:
		return sideRejected, ""
	}
	return sideNone, whyNeither
}

// alternates reports whether a prompt is what every trainer takes before
// the draft: an optional system message, then user (or tool) and assistant
// messages alternating, ending with a user or tool message, so that the
// draft makes the last message an assistant turn (LLaMA-Factory's
// converter.py skips anything else).
func alternates(prompt []schemas.Message) bool {
	msgs := prompt
	if len(msgs) > 0 && msgs[0].Role == "system" {
		msgs = msgs[1:]
	}
	if len(msgs) == 0 {
		return false
	}
	for i, m := range msgs {
		user := m.Role == "user" || m.Role == "tool"
		if (i%2 == 0) != user || (!user && m.Role != "assistant") {
			return false
		}
	}
	return len(msgs)%2 == 1
}

// nothingWhy builds the sentence that says why nothing was exported.
func nothingWhy(runs int, runTally, turnTally Tally, pairs int) string {
	var b strings.Builder
	switch {
	case runs == 0:
		b.WriteString("no runs were read")
	case runTally.total() == runs:
		fmt.Fprintf(&b, "all %d runs were left out: %s", runs, strings.Join(runTally.lines(runWhys), "; "))
	case pairs == 0:
		fmt.Fprintf(&b, "no turn of the %d runs considered is a pair: %s", runs-runTally.total(), strings.Join(turnTally.lines(turnWhys), "; "))
		if lines := runTally.lines(runWhys); len(lines) > 0 {
			fmt.Fprintf(&b, " (and runs left out: %s)", strings.Join(lines, "; "))
		}
	default:
		b.WriteString("no preference pairs: no prompt was answered both by a draft applied in a worked run and by a different draft refused or from a failed run")
	}
	return b.String()
}

// mostListed bounds the tags and models named in a note on a filter that
// matches no run.
const mostListed = 12

// unmatched says which --tag and --model values no run read has, and what
// the runs do have.
func (e *exporter) unmatched() []string {
	var out []string
	for _, t := range e.opts.Tags {
		if e.tags[t] {
			continue
		}
		if len(e.tags) == 0 {
			out = append(out, fmt.Sprintf("no run read carries tag %q, nor any other tag (a dogfood run carries the tags: of its manifest entry)", t))
			continue
		}
		out = append(out, fmt.Sprintf("no run read carries tag %q (the runs' tags: %s)", t, listed(mapKeys(e.tags))))
	}
	for _, w := range e.opts.Models {
		found := false
		var names []string
		for m := range e.models {
			found = found || modelMatches(m, []string{w})
			names = append(names, m.Spec())
		}
		if !found {
			slices.Sort(names)
			out = append(out, fmt.Sprintf("no run read is of model %q (the runs' models: %s)", w, listed(names)))
		}
	}
	return out
}

// unmatchedWhy is the start of the reason nothing was exported when a
// filter matched no run, or "".
func unmatchedWhy(u []string) string {
	if len(u) == 0 {
		return ""
	}
	return strings.Join(u, "; ") + "; "
}

func listed(names []string) string {
	if len(names) > mostListed {
		return strings.Join(names[:mostListed], ", ") + fmt.Sprintf(" and %d more", len(names)-mostListed)
	}
	return strings.Join(names, ", ")
}

// forWhom says how the model an export is meant for (--for) stands to the
// models that wrote its drafts, and whether it wrote them all.
func forWhom(target string, drafters []Drafter) (string, bool) {
	own, all := 0, 0
	var others []string
	for _, d := range drafters {
		backend, name, _ := strings.Cut(d.Model, ":")
		all += d.Pairs
		if modelMatches(schemas.Model{Backend: backend, Name: name}, []string{target}) {
			own += d.Pairs
		} else {
			others = append(others, d.Model)
		}
	}
	switch {
	case own == all:
		return "the model that wrote the drafts: its own worked runs", true
	case own == 0:
		return fmt.Sprintf("a different model from the one that wrote the drafts (%s): another model's worked drafts, for it to learn from", strings.Join(others, ", ")), false
	}
	return fmt.Sprintf("it wrote %d of the %d pairs; the others are drafts of %s", own, all, strings.Join(others, ", ")), false
}
