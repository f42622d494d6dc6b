package loop

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/pyharness/pyharness/bench"
	"github.com/pyharness/pyharness/draft"
	"github.com/pyharness/pyharness/internal/tabletext"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/trace"
)

// Side is one bench's figures for the before/after table.
type side struct {
	Model string `json:"model"`
	// Turns are the model's turns (steps the model answered) of judged
	// runs; Actions of them were read as an action, Canonical were in
	// the protocol's canonical shape, ParseFailures were not read.
	Turns         int `json:"turns"`
	Actions       int `json:"actions"`
	Canonical     int `json:"canonical"`
	ParseFailures int `json:"parse_failures"`
	Worked        int `json:"worked"`
	Judged        int `json:"judged"`
	NotJudged     int `json:"not_judged"`
	PromptTokens  int `json:"prompt_tokens"`
	OutputTokens  int `json:"output_tokens"`
	// Seconds is the bench stage's wall time.
	Seconds float64 `json:"seconds"`
	// FirstActions says, for each judged run by "case pass N", whether
	// its first model turn was read as an action. A run's first turn has
	// the same prompt before and after training, so the two benches'
	// first turns pair up exactly (see pairFirstTurns).
	FirstActions map[string]bool `json:"-"`
}

// firstTurnPairs is the paired comparison of the first model turns of
// the runs both benches judged: the turn is asked with the same prompt on
// both sides, so a change in whether it is read as an action is the
// model's.
type firstTurnPairs struct {
	Matched int
	// Before and After count matched first turns read as an action.
	Before, After int
	// OnlyBefore and OnlyAfter are the discordant pairs.
	OnlyBefore, OnlyAfter int
	// P is the two-sided exact McNemar test over the discordant pairs.
	P float64
}

// pairFirstTurns pairs the first turns of the runs judged on both sides.
func pairFirstTurns(before, after side) firstTurnPairs {
	var p firstTurnPairs
	for key, a := range before.FirstActions {
		b, ok := after.FirstActions[key]
		if !ok {
			continue
		}
		p.Matched++
		if a {
			p.Before++
		}
		if b {
			p.After++
		}
		switch {
		case a && !b:
			p.OnlyBefore++
		case b && !a:
			p.OnlyAfter++
		}
	}
	p.P = bench.ExactMcNemar(p.OnlyBefore, p.OnlyAfter)
	return p
}

// readSide reads a bench directory's traces into a Side.
func readSide(ctx context.Context, dir, model string, seconds float64) (side, error) {
	s := side{Model: model, Seconds: seconds, FirstActions: map[string]bool{}}
	for run, err := range trace.Runs(ctx, dir) {
		if err != nil {
			return s, fmt.Errorf("read %s: %w", dir, err)
		}
		if run.End == nil || !run.End.Verdict.Judged() {
			s.NotJudged++
			continue
		}
		s.Judged++
		if run.End.Verdict == schemas.VerdictWorked {
			s.Worked++
		}
		first := true
		for _, t := range run.Turns {
			if !t.ModelStep {
				continue
			}
			if first && run.Start != nil {
				s.FirstActions[fmt.Sprintf("%s pass %d", run.Start.CaseID, run.Start.Pass)] = t.Action.Verb != ""
				first = false
			}
			s.Turns++
			switch {
			case t.Action.Verb != "":
				s.Actions++
				if t.Action.Shape == draft.ShapeCanonical {
					s.Canonical++
				}
			case t.Outcome.Code == schemas.CodeParseFailed:
				s.ParseFailures++
			}
			if n, ok := schemas.Count(t.Metrics.PromptTokens); ok {
				s.PromptTokens += n
			}
			if n, ok := schemas.Count(t.Metrics.OutputTokens); ok {
				s.OutputTokens += n
			}
		}
	}
	return s, nil
}

func share(n, of int) string { return fmt.Sprintf("%d (%s)", n, tabletext.Percent(n, of)) }

// writeTable writes the before/after table.
func writeTable(w io.Writer, before, after side) {
	rows := [][]string{
		{"", "before: " + before.Model, "after: " + after.Model},
		{"model turns", fmt.Sprint(before.Turns), fmt.Sprint(after.Turns)},
		{"read as an action", share(before.Actions, before.Turns), share(after.Actions, after.Turns)},
		{"in canonical form", share(before.Canonical, before.Turns), share(after.Canonical, after.Turns)},
		{"parse failures", share(before.ParseFailures, before.Turns), share(after.ParseFailures, after.Turns)},
		{"runs worked", fmt.Sprintf("%d of %d", before.Worked, before.Judged), fmt.Sprintf("%d of %d", after.Worked, after.Judged)},
		{"runs not judged", fmt.Sprint(before.NotJudged), fmt.Sprint(after.NotJudged)},
		{"prompt tokens", fmt.Sprint(before.PromptTokens), fmt.Sprint(after.PromptTokens)},
		{"output tokens", fmt.Sprint(before.OutputTokens), fmt.Sprint(after.OutputTokens)},
		{"bench wall time", seconds(before.Seconds), seconds(after.Seconds)},
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	tw.Flush()
	p := pairFirstTurns(before, after)
	fmt.Fprintf(w, "\nFirst turns (same prompt on both sides) of %d runs judged in both: read as an action %d before, %d after; %d only before, %d only after; exact McNemar p = %.3g.\n",
		p.Matched, p.Before, p.After, p.OnlyBefore, p.OnlyAfter, p.P)
}

func seconds(s float64) string {
	if s == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f s", s)
}

// compare writes bench compare's comparison and the table, to w and to
// compare.txt.
func (o *Options) compare(ctx context.Context, st *State, w io.Writer) error {
	var b strings.Builder
	oa, err := bench.ReadOutcomes(ctx, o.path(benchBaseDir))
	if err != nil {
		return err
	}
	ob, err := bench.ReadOutcomes(ctx, o.path(benchTrainedDir))
	if err != nil {
		return err
	}
	bench.Compare(o.path(benchBaseDir), oa, o.path(benchTrainedDir), ob, o.Alpha).WriteText(&b)
	b.WriteString("\n")
	before, err := readSide(ctx, o.path(benchBaseDir), o.Base, st.Stages[StageBenchBase].Seconds)
	if err != nil {
		return err
	}
	after, err := readSide(ctx, o.path(benchTrainedDir), o.Student, st.Stages[StageBenchTrained].Seconds)
	if err != nil {
		return err
	}
	writeTable(&b, before, after)
	if err := os.WriteFile(o.path(compareFile), []byte(b.String()), 0o644); err != nil {
		return err
	}
	_, err = io.WriteString(w, b.String())
	return err
}
