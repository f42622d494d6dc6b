package export

import (
	"cmp"
	"context"
	"iter"
	"slices"
	"strconv"
	"strings"

	"github.com/cespare/xxhash/v2"
	"github.com/pyharness/pyharness/dedupe"
	"github.com/pyharness/pyharness/harness/draft"
	"github.com/pyharness/pyharness/schemas"
)

// dpoCand is a draft that can be one side of a preference pair.
type dpoCand struct {
	ref     dedupe.Ref
	draft   uint64 // key of the normalised draft
	action  uint64 // key of the parsed action, 0 when it did not parse
	refused bool
	side    side
	time    int64
	group   string
}

// actionKey hashes what a draft does, not how it is worded: verb, path,
// window, body, blocks, skill and arguments (a DONE's summary and an ASK's
// wording aside). 0 when the draft does not parse.
func actionKey(r schemas.Reply) uint64 {
	a, err := draft.Parse(r.Content, r.ToolCalls)
	if err != nil {
		return 0
	}
	text := ""
	if a.Verb != draft.VerbDone {
		text = a.Text
	}
	return xxhash.Sum64String(strings.Join([]string{a.Verb, a.Path, strconv.Itoa(a.Start), strconv.Itoa(a.End),
		a.Body, a.Find, a.Replace, a.Skill, strings.Join(a.Args, "\x00"), text}, "\x01"))
}

func (e *exporter) runDPO(ctx context.Context) error {
	rd := newRenderer(e.opts, nil)
	byPrompt := map[string][]dpoCand{}
	var buf []byte
	err := considered(ctx, e, true, func(*passRun) struct{} { return struct{}{} }, func(pr *passRun, _ struct{}) error {
		run := pr.run // a preference export decodes every run it considers
		group := e.corpus.Group(int(run.Index))
		for i, t := range run.Turns {
			sd, why := e.opts.dpoSide(run, i)
			if sd == sideNone {
				e.sum.TurnsLeftOut[why]++
				continue
			}
			e.sum.Selected++
			_, d := rd.training(nil, t.Reply)
			buf = dedupe.AppendNearText(buf[:0], nil, d)
			h := t.Sent.PromptHash
			if h == "" {
				h = schemas.PromptHash(run.Prompts[i])
			}
			byPrompt[h] = append(byPrompt[h], dpoCand{ref: dedupe.Ref{Run: run.Index, Turn: int32(i)}, draft: dedupe.Key(buf),
				action: actionKey(t.Reply), refused: t.Outcome.Status == schemas.StatusRefused,
				side: sd, time: run.Time(i), group: group})
		}
		return nil
	})
	if err != nil {
		return err
	}
	var rows []pairRow
	groups := map[string]int{}
	for _, h := range mapKeys(byPrompt) {
		for _, p := range preferencePairs(byPrompt[h]) {
			rows = append(rows, p)
			groups[p.group]++
		}
	}
	if len(rows) == 0 {
		e.sum.Unmatched = e.unmatched()
		e.sum.Why = unmatchedWhy(e.sum.Unmatched) + nothingWhy(e.sum.Runs, e.sum.RunsLeftOut, e.sum.TurnsLeftOut, e.sum.Selected)
		return &NothingError{Why: e.sum.Why}
	}
	names := mapKeys(groups)
	num := make(map[string]int32, len(names))
	for g, name := range names {
		num[name] = int32(g)
	}
	splits := assignSplits(names, e.opts.Valid, e.opts.Test, e.opts.Seed)
	weights := map[string]float64{}
	pairs := map[string]int{}
	for i := range rows {
		rows[i].gnum = num[rows[i].group]
		rows[i].split = splits[rows[i].group]
		rows[i].weight = 1
		weights[rows[i].group] = 1
		pairs[rows[i].split]++
	}
	slices.SortFunc(rows, func(a, b pairRow) int {
		return cmp.Or(cmp.Compare(a.ref.Run, b.ref.Run), cmp.Compare(a.ref.Turn, b.ref.Turn))
	})
	inSplit := func(split string) iter.Seq2[*pairRow, error] {
		return func(yield func(*pairRow, error) bool) {
			for i := range rows {
				if rows[i].split == split && !yield(&rows[i], nil) {
					return
				}
			}
		}
	}
	return e.write(ctx, pairs, inSplit, names, splits, weights)
}

// preferencePairs pairs the drafts that answered one prompt: every
// distinct rejected draft (refused, or from a failed run) that differs from
// every chosen one, each with a chosen draft (applied in a worked run), the
// newest first, taken in turn. A draft of a failed run that does what a
// chosen draft does, in other words, is no rejected side: the preference
// would be for wording, which nothing recorded supports.
func preferencePairs(cands []dpoCand) []pairRow {
	var chosen, rejected []dpoCand
	seenChosen := map[uint64]int{}
	chosenActions := map[uint64]bool{}
	for _, c := range cands {
		if c.side != sideChosen {
			continue
		}
		chosenActions[c.action] = true
		if k, ok := seenChosen[c.draft]; ok {
			if c.time > chosen[k].time {
				chosen[k] = c
			}
			continue
		}
		seenChosen[c.draft] = len(chosen)
		chosen = append(chosen, c)
	}
	if len(chosen) == 0 {
		return nil
	}
	seenRejected := map[uint64]bool{}
	for _, c := range cands {
		if c.side != sideRejected || seenRejected[c.draft] {
			continue
		}
		if _, ok := seenChosen[c.draft]; ok {
			continue // the same draft cannot be both
		}
		if !c.refused && c.action != 0 && chosenActions[c.action] {
			continue
		}
		seenRejected[c.draft] = true
		rejected = append(rejected, c)
	}
	slices.SortFunc(chosen, func(a, b dpoCand) int {
		if c := cmp.Compare(b.time, a.time); c != 0 {
			return c
		}
		return cmp.Compare(a.draft, b.draft)
	})
	slices.SortFunc(rejected, func(a, b dpoCand) int { return cmp.Compare(a.draft, b.draft) })
	out := make([]pairRow, len(rejected))
	for i, r := range rejected {
		c := chosen[i%len(chosen)]
		out[i] = pairRow{ref: c.ref, rejRef: r.ref, group: c.group, key: r.draft}
	}
	return out
}
