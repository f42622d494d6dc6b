package loop

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/pyharness/pyharness/collect/bench"
	"github.com/pyharness/pyharness/harness/draft"
	"github.com/pyharness/pyharness/internal/tabletext"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

// Side is one bench's figures for the before/after table.
type side struct {
	Model string `json:"model"`
	// Served says how the model was served (the loop's import: an
	// Ollama ADAPTER, a whole model, or llama-server --lora); empty when
	// nobody said.
	Served string `json:"served,omitempty"`
	// Turns are the model's turns (steps the model answered) of judged
	// runs; Actions of them were read as an action, Canonical were in
	// the protocol's canonical shape, ParseFailures were not read.
	Turns         int `json:"turns"`
	Actions       int `json:"actions"`
	Canonical     int `json:"canonical"`
	ParseFailures int `json:"parse_failures"`
	// Teacher counts the turns whose action is one the teacher took at
	// that step of that case (verb and path), TeacherCanonical those of
	// them in canonical form.
	Teacher          int `json:"teacher"`
	TeacherCanonical int `json:"teacher_canonical"`
	Worked           int `json:"worked"`
	Judged           int `json:"judged"`
	NotJudged        int `json:"not_judged"`
	PromptTokens     int `json:"prompt_tokens"`
	OutputTokens     int `json:"output_tokens"`
	// Seconds is the bench stage's wall time.
	Seconds float64 `json:"seconds"`
	// FirstActions says, for each judged run by "case pass N", whether
	// its first model turn was read as an action. A run's first turn has
	// the same prompt before and after training, so the two benches'
	// first turns pair up exactly (see pairFirstTurns).
	FirstActions map[string]bool `json:"-"`
	// FirstTeacher says the same of the first turn taking the teacher's
	// action in canonical form.
	FirstTeacher map[string]bool `json:"-"`
}

// teacherActions are the actions a teacher's worked runs took, by case and
// step: what a student trained on its drafts should take at that step.
type teacherActions map[string]map[string]bool

func stepKey(caseID string, step int) string { return fmt.Sprintf("%s step %d", caseID, step) }

func actionKey(a schemas.Action) string { return a.Verb + " " + a.Path }

// readTeacher reads the actions of the teacher's worked runs in dir.
func readTeacher(ctx context.Context, dir string) (teacherActions, error) {
	ta := teacherActions{}
	for run, err := range trace.Runs(ctx, dir) {
		if err != nil {
			return nil, fmt.Errorf("read the teacher's runs in %s: %w", dir, err)
		}
		if run.Start == nil || run.End == nil || run.End.Verdict != schemas.VerdictWorked {
			continue
		}
		for _, t := range run.Turns {
			if !t.ModelStep || t.Action.Verb == "" || t.Outcome.Status != schemas.StatusApplied {
				continue
			}
			k := stepKey(run.Start.CaseID, t.Step)
			if ta[k] == nil {
				ta[k] = map[string]bool{}
			}
			ta[k][actionKey(t.Action)] = true
		}
	}
	return ta, nil
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
	return pairFirst(before.FirstActions, after.FirstActions)
}

// pairFirst pairs a yes/no of each run's first turn on both sides.
func pairFirst(before, after map[string]bool) firstTurnPairs {
	var p firstTurnPairs
	for key, a := range before {
		b, ok := after[key]
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

// readSide reads a bench directory's traces into a Side; teacher, when
// not nil, is what its turns are held against.
func readSide(ctx context.Context, dir, model string, seconds float64, teacher teacherActions) (side, error) {
	s := side{Model: model, Seconds: seconds, FirstActions: map[string]bool{}, FirstTeacher: map[string]bool{}}
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
			taught := run.Start != nil && t.Action.Verb != "" && teacher[stepKey(run.Start.CaseID, t.Step)][actionKey(t.Action)]
			canonical := t.Action.Shape == draft.ShapeCanonical
			if taught {
				s.Teacher++
				if canonical {
					s.TeacherCanonical++
				}
			}
			if first && run.Start != nil {
				key := fmt.Sprintf("%s pass %d", run.Start.CaseID, run.Start.Pass)
				s.FirstActions[key] = t.Action.Verb != ""
				s.FirstTeacher[key] = taught && canonical
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

// writeTable writes the before/after table; withTeacher adds the rows
// held against the teacher's actions.
func writeTable(w io.Writer, before, after side, withTeacher bool) {
	rows := [][]string{
		{"", "before: " + before.Model, "after: " + after.Model},
	}
	if before.Served != "" || after.Served != "" {
		rows = append(rows, []string{"served as", before.Served, after.Served})
	}
	rows = append(rows, [][]string{
		{"model turns", fmt.Sprint(before.Turns), fmt.Sprint(after.Turns)},
		{"read as an action", share(before.Actions, before.Turns), share(after.Actions, after.Turns)},
		{"in canonical form", share(before.Canonical, before.Turns), share(after.Canonical, after.Turns)},
		{"parse failures", share(before.ParseFailures, before.Turns), share(after.ParseFailures, after.Turns)},
	}...)
	if withTeacher {
		rows = append(rows,
			[]string{"the teacher's action", share(before.Teacher, before.Turns), share(after.Teacher, after.Turns)},
			[]string{"  in canonical form", share(before.TeacherCanonical, before.Turns), share(after.TeacherCanonical, after.Turns)})
	}
	rows = append(rows, [][]string{
		{"runs worked", fmt.Sprintf("%d of %d", before.Worked, before.Judged), fmt.Sprintf("%d of %d", after.Worked, after.Judged)},
		{"runs not judged", fmt.Sprint(before.NotJudged), fmt.Sprint(after.NotJudged)},
		{"prompt tokens", fmt.Sprint(before.PromptTokens), fmt.Sprint(after.PromptTokens)},
		{"output tokens", fmt.Sprint(before.OutputTokens), fmt.Sprint(after.OutputTokens)},
		{"bench wall time", seconds(before.Seconds), seconds(after.Seconds)},
	}...)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	tw.Flush()
	p := pairFirstTurns(before, after)
	fmt.Fprintf(w, "\nFirst turns (same prompt on both sides) of %d runs judged in both: read as an action %d before, %d after; %d only before, %d only after; exact McNemar p = %.3g.\n",
		p.Matched, p.Before, p.After, p.OnlyBefore, p.OnlyAfter, p.P)
	if withTeacher {
		p := pairFirst(before.FirstTeacher, after.FirstTeacher)
		fmt.Fprintf(w, "First turns taking the teacher's action in canonical form: %d before, %d after; %d only before, %d only after; exact McNemar p = %.3g.\n",
			p.Before, p.After, p.OnlyBefore, p.OnlyAfter, p.P)
	}
}

// Table writes the before/after table of two bench directories, held
// against the actions of the teacher's worked runs in teacherDir (none
// when it is empty).
func Table(ctx context.Context, w io.Writer, beforeDir, beforeName, afterDir, afterName, teacherDir string) error {
	var teacher teacherActions
	if teacherDir != "" {
		var err error
		if teacher, err = readTeacher(ctx, teacherDir); err != nil {
			return err
		}
	}
	before, err := readSide(ctx, beforeDir, beforeName, 0, teacher)
	if err != nil {
		return err
	}
	after, err := readSide(ctx, afterDir, afterName, 0, teacher)
	if err != nil {
		return err
	}
	writeTable(w, before, after, teacher != nil)
	return nil
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
	teacher, err := readTeacher(ctx, o.Teacher)
	if err != nil {
		return err
	}
	before, err := readSide(ctx, o.path(benchBaseDir), o.Base, st.Stages[stageBenchBase].Seconds, teacher)
	if err != nil {
		return err
	}
	after, err := readSide(ctx, o.path(benchTrainedDir), o.Student, st.Stages[stageBenchTrained].Seconds, teacher)
	if err != nil {
		return err
	}
	before.Served = "Ollama: " + o.Base
	if imp := st.Stages[stageImport]; imp != nil {
		after.Served = imp.Served
	}
	writeTable(&b, before, after, true)
	if err := os.WriteFile(o.path(compareFile), []byte(b.String()), 0o644); err != nil {
		return err
	}
	_, err = io.WriteString(w, b.String())
	return err
}
