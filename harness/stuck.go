package harness

import (
	"encoding/json"
	"strings"

	"github.com/pyharness/pyharness/harness/draft"
	"github.com/pyharness/pyharness/schemas"
)

// DefaultStuckAfter is how many times in a row the same draft may be
// refused with the same code before the run stops stuck: the commands'
// --stuck-after defaults to it.
const DefaultStuckAfter = 3

// stuckCount follows the run's refusals in a row: the draft refused last,
// its code, how many times in a row, and from which step.
type stuckCount struct {
	key   string
	code  schemas.Code
	times int
	from  int
	draft string
}

// see counts a turn and returns how many times in a row its draft has now
// been refused with its code: 0 for a turn that was not refused, which
// ends the row.
func (s *stuckCount) see(t *schemas.Turn, syn *draft.Syntax) int {
	if !t.ModelStep || t.Outcome.Status != schemas.StatusRefused {
		*s = stuckCount{}
		return 0
	}
	syn = syn.ForReply(t.Reply)
	answer, _ := draft.ReadReasoningWith(syn, t.Reply)
	key := draftKey(t, answer, syn)
	if s.times > 0 && key == s.key && t.Outcome.Code == s.code {
		s.times++
		return s.times
	}
	*s = stuckCount{key: key, code: t.Outcome.Code, times: 1, from: t.Step, draft: firstLine(answer, t.Reply)}
	return 1
}

// record is the run_end's account of the refusal that repeated.
func (s *stuckCount) record() *schemas.Stuck {
	return &schemas.Stuck{Code: s.code, Times: s.times, FromStep: s.from, Draft: s.draft}
}

// draftKey is what a refused draft is compared by: the action the parser
// read from it (whatever format it was written in, with the path the
// harness resolved), or, for a draft that held no action, its answer with
// the whitespace collapsed. The code is compared apart.
func draftKey(t *schemas.Turn, answer string, syn *draft.Syntax) string {
	a, err := draft.ParseWith(syn, t.Reply.Content, t.Reply.ToolCalls)
	if err != nil || t.Action.Shape == "none" {
		calls, _ := json.Marshal(t.Reply.ToolCalls)
		return "text\x00" + strings.Join(strings.Fields(answer), " ") + "\x00" + string(calls)
	}
	if t.Action.Path != "" {
		a.Path = t.Action.Path
	}
	// A DONE's summary and an ASK's question are part of the action: a
	// summary refused for lacking a quote that now quotes something is a
	// new attempt.
	b, _ := json.Marshal(struct {
		Verb, Path          string
		Start, End, Last    int
		Body, Find, Replace string
		Hunks               []draft.Hunk
		Skill               string
		Args                []string
		Text                string
	}{a.Verb, a.Path, a.Start, a.End, a.Last, a.Body, a.Find, a.Replace, a.Hunks, a.Skill, a.Args, strings.Join(strings.Fields(a.Text), " ")})
	return "action\x00" + string(b)
}

// firstLine is the first non-blank line of a draft's answer (or of its
// first tool call), cut to what a summary line holds.
func firstLine(answer string, reply schemas.Reply) string {
	for _, l := range strings.Split(answer, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return cutRunes(l, 80)
		}
	}
	if len(reply.ToolCalls) > 0 {
		args, _ := json.Marshal(reply.ToolCalls[0].Arguments)
		return cutRunes(reply.ToolCalls[0].Name+" "+string(args), 80)
	}
	return "(an empty reply)"
}

func cutRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
