package stats

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/pyharness/pyharness/collect/runcost"
	"github.com/pyharness/pyharness/internal/tabletext"
	"github.com/pyharness/pyharness/schemas"
)

// ClassTitle says what a failure class means, in the seeds' words.
func ClassTitle(class string) string {
	switch schemas.FailureClass(class) {
	case schemas.FailWrongThing:
		return "wrote something, but not the thing asked for"
	case schemas.FailWroteNothing:
		return "wrote nothing at all"
	case schemas.FailDidNotDoTheJob:
		return "wrote something, it did not do the job"
	case "":
		return "no failure class recorded"
	}
	return class
}

// KindTitle says what a turn kind means, in the seeds' words.
func KindTitle(kind string) string {
	switch schemas.Kind(kind) {
	case schemas.KindToolResult:
		return "a tool result"
	case schemas.KindRefusalOrNudge:
		return "a refusal or a nudge"
	case schemas.KindOpening:
		return "the opening turn"
	case schemas.KindParseFailure:
		return "the draft did not parse"
	}
	return kind
}

// WriteText prints the summary's tables the way the second seed sets them
// out: aligned columns, counts and whole percentages.
func (s *Summary) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	s.writeText(ew)
	return ew.err
}

func (s *Summary) writeText(w io.Writer) {
	r := s.Runs
	what := "trace directory"
	if s.Kind == inputDataset {
		what = "classified dataset"
	}
	fmt.Fprintf(w, "Read the %s %s: %d run(s)", what, s.Input, r.Read)
	if r.SetAside > 0 {
		fmt.Fprintf(w, " (%d earlier attempt(s) set aside)", r.SetAside)
	}
	fmt.Fprintln(w)

	s.writeHeadline(w)

	of, ofRuns := "", ""
	if l := s.ScoredLabel(); l != "" {
		of, ofRuns = ", "+l, " ("+l+")"
	}
	fmt.Fprintf(w, "\nWhy runs failed (%d failures%s)\n", s.Scored.Failed, of)
	tw := table(w)
	fmt.Fprintln(tw, "class\tshare\truns")
	for _, c := range s.FailureClasses {
		fmt.Fprintf(tw, "%s (%s)\t%s\t%d\n", ClassTitle(c.Name), tabletext.Dash(c.Name), tabletext.Share(c.Share, s.Scored.Failed), c.Count)
	}
	tw.Flush()

	if len(s.Reasons) > 0 {
		fmt.Fprintf(w, "\nWhy runs failed, in one line: the most common reasons%s\n", ofRuns)
		tw := table(w)
		fmt.Fprintln(tw, "reason\tshare\truns")
		for _, r := range s.Reasons {
			fmt.Fprintf(tw, "%s\t%s\t%d\n", tabletext.Truncate(r.Name, 90), tabletext.Share(r.Share, s.Scored.Failed), r.Count)
		}
		tw.Flush()
	}

	fmt.Fprintf(w, "\nFailures by tier%s\n", ofRuns)
	tw = table(w)
	fmt.Fprintln(tw, "tier\tfailed\tworked")
	for _, t := range s.Tiers {
		fmt.Fprintf(tw, "%d · %s\t%d of %d\t%d\n", t.Tier, t.Title, t.Failed, t.Judged, t.Worked)
	}
	tw.Flush()

	if len(s.Tags) > 0 {
		fmt.Fprintf(w, "\nFailures by tag%s (a run counts under each of its tags)\n", ofRuns)
		tw = table(w)
		fmt.Fprintln(tw, "tag\tfailed\tworked")
		for _, t := range s.Tags {
			fmt.Fprintf(tw, "%s\t%d of %d\t%d\n", t.Tag, t.Failed, t.Judged, t.Worked)
		}
		tw.Flush()
	}

	fmt.Fprintf(w, "\nWorked per pass%s\n", ofRuns)
	tw = table(w)
	fmt.Fprintln(tw, "pass\tworked")
	for _, p := range s.Passes {
		fmt.Fprintf(tw, "%d\t%d of %d\n", p.Pass, p.Worked, p.Judged)
	}
	tw.Flush()

	t := s.Turns
	fmt.Fprintf(w, "\nTurns: %d over %d runs, %.1f a run\n", t.Total, t.Runs, t.PerRun)
	if t.RulesLabelled > 0 {
		fmt.Fprintf(w, "(%d turn(s) recorded without a kind were labelled by the text rules)\n", t.RulesLabelled)
	}
	if t.ContextFull+t.ContextTruncated+t.ContextOverflow > 0 {
		fmt.Fprintf(w, "Context limits: %d replies cut by a full context, %d prompts the server cut, %d prompts it refused as too long\n",
			t.ContextFull, t.ContextTruncated, t.ContextOverflow)
	}
	if t.Reasoning+t.ReasoningCut > 0 {
		fmt.Fprintf(w, "Reasoning: %d turn(s) with reasoning, about %d tokens of it; %d reply(ies) refused reasoning-cut (ended inside it)\n",
			t.Reasoning, t.ReasoningTokens, t.ReasoningCut)
	}
	tw = table(w)
	fmt.Fprintln(tw, "what the model is sent\tshare\tturns")
	for _, k := range s.Kinds {
		fmt.Fprintf(tw, "%s (%s)\t%s\t%d\n", KindTitle(k.Name), k.Name, tabletext.Share(k.Share, t.Total), k.Count)
	}
	tw.Flush()

	fmt.Fprintln(w, "\nTurns per run")
	tw = table(w)
	fmt.Fprintln(tw, "turns\truns")
	for _, b := range s.TurnsPerRun {
		if b.Runs > 0 {
			fmt.Fprintf(tw, "%d\t%d\n", b.Turns, b.Runs)
		}
	}
	tw.Flush()

	fmt.Fprintln(w, "\nWhat it is told, most often")
	if len(s.Nudges) == 0 {
		fmt.Fprintln(w, "  nothing: no refusal, nudge or parse failure was sent")
	}
	tw = table(w)
	for _, n := range s.Nudges {
		fmt.Fprintf(tw, "%d\t%s\t%s\n", n.Count, n.Code, tabletext.Truncate(strings.TrimSpace(n.Message), 90))
	}
	tw.Flush()

	cd := s.ClaimedDone
	fmt.Fprintf(w, "\nFailures that ended claiming DONE%s: %d of %d; %d of them wrote nothing\n", ofRuns, cd.Claimed, cd.Failures, cd.WroteNothing)
	tw = table(w)
	for i, e := range cd.Examples {
		if i == 10 {
			break
		}
		name := e.Case
		if name == "" {
			name = e.RunID
		}
		fmt.Fprintf(tw, "%s\twrites=%d\t%s\n", name, e.Writes, tabletext.Truncate(strings.TrimSpace(e.FirstFailure), 70))
	}
	tw.Flush()
	if cd.Claimed > 10 {
		fmt.Fprintf(w, "… and %d more\n", cd.Claimed-10)
	}

	fmt.Fprintf(w, "\nRuns with no model steps%s: %d, of which correct: %d\n", ofRuns, s.NoModelSteps.Runs, s.NoModelSteps.Correct)

	s.writeStops(w, ofRuns)

	fmt.Fprintln(w, "\nHow the model wrote its actions (each turn with a reply, by the form its action was read in)")
	if len(s.ActionForms) == 0 {
		fmt.Fprintln(w, "  no turn with a reply")
	}
	tw = table(w)
	if len(s.ActionForms) > 0 {
		fmt.Fprintln(tw, "model\tform\tturns\tshare")
	}
	for _, af := range s.ActionForms {
		for i, f := range af.Forms {
			label := ""
			if i == 0 {
				label = fmt.Sprintf("%s, %d turns", modelTitle(af.Model, af.Scripted), af.Turns)
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", label, f.Name, f.Count, tabletext.Share(f.Share, af.Turns))
		}
	}
	tw.Flush()

	if s.By != nil {
		fmt.Fprintf(w, "\nBy %s\n", s.By.Dimension)
		tw = table(w)
		fmt.Fprintf(tw, "%s\truns\tworked\tfailed\tnot judged\tturns\trefusals and nudges\n", s.By.Dimension)
		for _, g := range s.By.Groups {
			value := tabletext.Dash(g.Value)
			if g.Scripted {
				value += " (scripted)"
			}
			refusals := tabletext.Share(g.RefusalsShare, g.Turns)
			if g.noRefusals {
				refusals = "-"
			}
			fmt.Fprintf(tw, "%s\t%d\t%d of %d\t%d (%s)\t%d\t%d\t%s\n", value, g.Runs, g.Worked, g.Judged,
				g.Failed, tabletext.Share(share(g.Failed, g.Judged), g.Judged), g.NotJudged, g.Turns, refusals)
		}
		tw.Flush()
	}

	if len(s.Problems) > 0 {
		fmt.Fprintf(w, "\nProblems (%d); every good record was read:\n", len(s.Problems))
		for _, p := range s.Problems {
			fmt.Fprintf(w, "  %s\n", p)
		}
	}
}

// writeStops prints how runs stopped, which refusal the stuck ones
// repeated, and what the runs cost in model calls.
func (s *Summary) writeStops(w io.Writer, ofRuns string) {
	fmt.Fprintf(w, "\nHow runs stopped%s, judged or not\n", ofRuns)
	stopped := 0
	for _, c := range s.StopReasons {
		stopped += c.Count
	}
	tw := table(w)
	fmt.Fprintln(tw, "stop reason\tshare\truns")
	for _, c := range s.StopReasons {
		fmt.Fprintf(tw, "%s\t%s\t%d\n", c.Name, tabletext.Share(c.Share, stopped), c.Count)
	}
	tw.Flush()
	if len(s.StuckOn) > 0 {
		var on []string
		for _, c := range s.StuckOn {
			on = append(on, fmt.Sprintf("%s %d", c.Name, c.Count))
		}
		fmt.Fprintf(w, "Stuck (the same draft refused with the same code again and again), by the refusal that repeated: %s\n", strings.Join(on, ", "))
	}

	fmt.Fprintf(w, "\n%s\n", runcost.Heading)
	if s.Kind == inputDataset {
		fmt.Fprintln(w, "  read from traces only: run stats on the trace directory for it")
		return
	}
	runcost.WriteTable(w, s.Cost)
}

// ScoredLabel names the runs the score tables count when they are not
// simply all runs of models: the runs of models alone when scripted or
// replayed runs were read too, or the scripted and replayed runs when no
// model's were. Headings carry it, so no scripted figure passes for a
// model's.
func (s *Summary) ScoredLabel() string {
	switch {
	case s.Scored.Runs == scoredScripted:
		return "scripted and replayed runs"
	case s.Mixed:
		return "runs of models"
	}
	return ""
}

// writeHeadline prints runs by verdict for each model, and the scripted
// and replayed runs apart: drafts written in advance are never added to a
// model's figures.
func (s *Summary) writeHeadline(w io.Writer) {
	var models, scripted []ModelRuns
	for _, m := range s.Models {
		if m.Scripted {
			scripted = append(scripted, m)
		} else {
			models = append(models, m)
		}
	}
	rows := func(head string, ms []ModelRuns) {
		tw := table(w)
		fmt.Fprintf(tw, "%s\truns\tworked\tfailed\tnot judged\n", head)
		for _, m := range ms {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d of %d (%s)\t%s\n", tabletext.Dash(m.Model), m.Runs, m.Worked, m.Failed, m.Judged, tabletext.Share(m.FailedShare, m.Judged), notJudged(m))
		}
		tw.Flush()
	}
	fmt.Fprintln(w, "\nRuns of each model")
	if len(models) == 0 {
		fmt.Fprintln(w, "  none: every run read is scripted or replayed")
	} else {
		rows("model", models)
	}
	if len(scripted) > 0 {
		fmt.Fprintln(w, "\nScripted and replayed runs: drafts written in advance, which test the harness, not a model; in no model's figures")
		rows("backend", scripted)
	}
	fmt.Fprint(w, "\nRuns not judged (error, cancelled, unjudged: a suite that ran no test, incomplete) are in no score.")
	if s.Mixed {
		fmt.Fprintf(w, " The score tables below (failures, tiers, passes) count the runs of models only; the turn tables count all %d runs read.", s.Runs.Read)
	}
	fmt.Fprintln(w)
}

// notJudged says how many runs of a row were not judged, and why.
func notJudged(m ModelRuns) string {
	if m.NotJudged == 0 {
		return "0"
	}
	var why []string
	for _, c := range []struct {
		n    int
		what string
	}{{m.Error, "error"}, {m.Cancelled, "cancelled"}, {m.Unjudged, "unjudged"}, {m.Incomplete, "incomplete"}} {
		if c.n > 0 {
			why = append(why, fmt.Sprintf("%d %s", c.n, c.what))
		}
	}
	return fmt.Sprintf("%d (%s)", m.NotJudged, strings.Join(why, ", "))
}

// modelTitle is a model label, with the scripted and replayed backends
// said to be no model.
func modelTitle(label string, scripted bool) string {
	if scripted {
		return tabletext.Dash(label) + " (not a model)"
	}
	return tabletext.Dash(label)
}

func table(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
}

// errWriter keeps the first write error, so the printing code can stay
// straight-line.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return len(p), nil
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, nil
}
