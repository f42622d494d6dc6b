package export

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/pyharness/pyharness/dedupe"
	"github.com/pyharness/pyharness/schemas/trace"
)

// SplitCounts are the figures of one split.
type SplitCounts struct {
	Groups int `json:"groups"`
	// Pairs are distinct pairs (one per near-duplicate cluster, or one per
	// preference pair); Rows the rows written, weights materialised.
	Pairs int `json:"pairs"`
	Rows  int `json:"rows"`
}

// GroupRow is one group's line in the summary and the card.
type GroupRow struct {
	Group  string  `json:"group"`
	Split  string  `json:"split"`
	Pairs  int     `json:"pairs"`
	Weight float64 `json:"weight"`
	Rows   int     `json:"rows"`
}

// Summary is what an export did.
type Summary struct {
	Format   string `json:"format"`
	In       string `json:"in"`
	Out      string `json:"out"`
	Runs     int    `json:"runs"`
	SetAside int    `json:"earlier_attempts_set_aside"`
	// BadLines are the bad lines of the trace files read; their good
	// records were used.
	trace.BadLines
	RunsLeftOut Tally `json:"runs_left_out"`
	// RunsConsidered passed the run filters; ScriptedRuns of them are from
	// the scripted or replay backends (--include-scripted).
	RunsConsidered int   `json:"runs_considered"`
	ScriptedRuns   int   `json:"scripted_runs"`
	Turns          int   `json:"turns_considered"`
	TurnsLeftOut   Tally `json:"turns_left_out"`
	// Selected are the raw turns taken as SFT pairs (or as sides of
	// preference pairs), before dedupe.
	Selected int            `json:"selected"`
	Dedupe   dedupe.Figures `json:"dedupe"`
	// ZeroCopies counts training pairs whose fractional weight drew no row.
	ZeroCopies int                    `json:"zero_copies"`
	Splits     map[string]SplitCounts `json:"splits"`
	Groups     []GroupRow             `json:"groups"`
	// Redactions is the number of secrets replaced; SecretValues the
	// number of distinct values learned from environment files and
	// assignments.
	Redactions   int      `json:"redactions"`
	SecretValues int      `json:"secret_values"`
	SourceRuns   []string `json:"source_runs"`
	// Drafters are the models that wrote the exported drafts (the chosen
	// side of preference pairs), by pairs.
	Drafters []Drafter `json:"drafters"`
	// Unmatched says which --tag and --model values no run read has: a
	// filter that matches nothing is most often a typo.
	Unmatched []string `json:"unmatched_filters,omitempty"`
	// Rewritten counts the pairs whose trained draft is written in the
	// protocol's canonical form where the model wrote it otherwise (its
	// own text in the provenance's as_written); Reasoned those whose
	// trained draft carries its reasoning in reasoning_content.
	Rewritten int      `json:"rewritten_canonical"`
	Reasoned  int      `json:"with_reasoning"`
	Files     []string `json:"files"`
	// Template is what checking the rows against --chat-template found.
	Template *TemplateCheck `json:"chat_template,omitempty"`
	Why      string         `json:"why,omitempty"`
	// FromStore counts the runs the first pass took from classify's store
	// (Options.Dataset) instead of their trace: how much decoding it
	// spared. It is in neither the summary nor the card, which are the
	// same either way.
	FromStore int `json:"-"`
	// Unread counts those of them whose trace was not even read, its
	// stamp the one classify read it with (trace.Stamp).
	Unread int `json:"-"`
	// GroupsFromStore counts the runs ordered by the group the facts store
	// holds for them, their run_start not read for it; Regrouped says one
	// of those groups no longer held and the export was made again with
	// every group read from its run_start. Neither is in the summary.
	GroupsFromStore int  `json:"-"`
	Regrouped       bool `json:"-"`

	opts Options
}

// Drafter is a model that wrote exported drafts.
type Drafter struct {
	// Model is backend:name as recorded on the runs' run_start.
	Model string `json:"model"`
	Pairs int    `json:"pairs"`
	// NumCtx is the largest context window of its runs: the harness built
	// the prompts to fit it.
	NumCtx int `json:"num_ctx"`
}

// writeText writes the summary for a person.
func (s *Summary) writeText(w io.Writer) error {
	var b strings.Builder
	what := "supervised pairs"
	if s.Format == FormatDPO {
		what = "preference pairs"
	}
	fmt.Fprintf(&b, "Export of %s (%s, %s)\n", s.In, s.Format, what)
	fmt.Fprintf(&b, "runs read: %d", s.Runs)
	if s.SetAside > 0 {
		fmt.Fprintf(&b, " (%d earlier attempts set aside)", s.SetAside)
	}
	fmt.Fprintf(&b, "; considered: %d", s.RunsConsidered)
	if s.ScriptedRuns > 0 {
		fmt.Fprintf(&b, ", %d of them scripted or replay (--include-scripted)", s.ScriptedRuns)
	}
	b.WriteString("\n")
	for _, l := range s.RunsLeftOut.lines(runWhys) {
		fmt.Fprintf(&b, "  left out: %s\n", l)
	}
	fmt.Fprintf(&b, "turns considered: %d; selected: %d\n", s.Turns, s.Selected)
	for _, l := range s.TurnsLeftOut.lines(turnWhys) {
		fmt.Fprintf(&b, "  left out: %s\n", l)
	}
	s.WriteBadLines(&b)
	if s.Why != "" {
		fmt.Fprintf(&b, "\nNothing exported: %s.\n", s.Why)
		_, err := io.WriteString(w, b.String())
		return err
	}
	if s.Format != FormatDPO {
		d := s.Dedupe
		fmt.Fprintf(&b, "dedupe: %d selected turns, %d exact-unique, %d near-unique clusters, %d groups; variety ratio %.2f\n",
			d.RawTurns, d.ExactUnique, d.Clusters, d.Groups, d.VarietyRatio)
		if sentence := dedupe.Sentence(s.RunsConsidered, d, !strings.Contains(strings.Join(groupNames(s.Groups), " "), "/")); sentence != "" {
			fmt.Fprintf(&b, "%s\n", sentence)
		}
	}
	b.WriteString("\n")
	for _, sp := range []string{SplitTrain, splitValidation, splitTest} {
		sc, ok := s.Splits[sp]
		if !ok {
			continue
		}
		fmt.Fprintf(&b, "%-10s %3d groups  %5d pairs  %5d rows\n", sp, sc.Groups, sc.Pairs, sc.Rows)
	}
	if sc := s.Splits[splitValidation]; sc.Groups == 0 {
		fmt.Fprintf(&b, "no validation split: splits are by group and the export has %d group(s)\n", len(s.Groups))
	}
	for _, sp := range []struct {
		name  string
		asked float64
	}{{splitValidation, s.opts.Valid}, {splitTest, s.opts.Test}} {
		if w := s.wholeGroupWarning(sp.name, sp.asked); w != "" {
			fmt.Fprintf(&b, "warning: %s\n", w)
		}
	}
	if s.ZeroCopies > 0 {
		fmt.Fprintf(&b, "%d training pair(s) drew no row (weight below 1; --seed draws)\n", s.ZeroCopies)
	}
	for _, d := range s.Drafters {
		fmt.Fprintf(&b, "drafts by %s: %d pairs\n", d.Model, d.Pairs)
	}
	b.WriteString(trainedText(s))
	if s.opts.For != "" {
		whom, _ := forWhom(s.opts.For, s.Drafters)
		fmt.Fprintf(&b, "meant for %s: %s\n", s.opts.For, whom)
	}
	for _, u := range s.Unmatched {
		fmt.Fprintf(&b, "note: %s\n", u)
	}
	s.Template.writeText(&b)
	fmt.Fprintf(&b, "secrets redacted: %d (%d values learned from environment files and assignments, and token shapes)\n", s.Redactions, s.SecretValues)
	fmt.Fprintf(&b, "\nwrote %s:\n", s.Out)
	for _, f := range s.Files {
		fmt.Fprintf(&b, "  %s\n", filepath.ToSlash(filepath.Join(s.Out, f)))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// wholeGroupWarning says when a held-out split took far more of the pairs
// than the share asked for, as it does when there are few groups: splits
// are by group (a case, a task), so with two tasks one whole task is held
// out. "" when the split is near its share.
func (s *Summary) wholeGroupWarning(split string, asked float64) string {
	total, in := 0, 0
	var names []string
	for _, g := range s.Groups {
		total += g.Pairs
		if g.Split == split {
			in += g.Pairs
			names = append(names, fmt.Sprintf("%s: %d pairs", g.Group, g.Pairs))
		}
	}
	share := float64(in) / float64(max(total, 1))
	if asked <= 0 || in == 0 || share <= 2*asked {
		return ""
	}
	return fmt.Sprintf("the %s split is %d whole group(s) of the %d (%s), %d of %d pairs (%.0f%%), where %.0f%% was asked: splits are by group, never by pair, so that no case is in two splits; collect on more cases or repositories for a closer share, or give --%s 0 to train on them all",
		split, len(names), len(s.Groups), strings.Join(names, "; "), in, total, 100*share, 100*asked, map[string]string{splitValidation: "valid", splitTest: "test"}[split])
}

func groupNames(gs []GroupRow) []string {
	out := make([]string, len(gs))
	for i, g := range gs {
		out[i] = g.Group
	}
	return out
}

// trainedText says what each row trains and in which form: the layout, how
// many drafts were rewritten in canonical form, what became of reasoning.
func trainedText(s *Summary) string {
	o := s.opts
	// What is trained, and what becomes of the context's earlier drafts.
	what, context := "the completion of each row", "; the earlier drafts of its context are in the prompt, untrained"
	switch {
	case s.Format == FormatDPO:
		what, context = "the chosen draft against the rejected one", ""
	case o.Layout == layoutMessages:
		what, context = "the last message of each row (weight 1)", "; the earlier drafts of its context have weight 0"
	case o.Layout == layoutAssistantOnly:
		what, context = "the one assistant message of each row", "; the earlier drafts of its context are folded into its user message, untrained"
	}
	form := fmt.Sprintf("in canonical form (%d pair(s) rewritten, the model's text in as_written)", s.Rewritten)
	if o.AsWritten {
		form = "as the model wrote it (--as-written)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "trained: %s, %s%s\n", what, form, context)
	if s.Reasoned > 0 || o.Reasoning == reasoningDrop {
		if o.Reasoning == reasoningKeep {
			fmt.Fprintf(&b, "reasoning: kept in reasoning_content for %d pair(s)\n", s.Reasoned)
		} else {
			b.WriteString("reasoning: dropped (--reasoning drop)\n")
		}
	}
	return b.String()
}
