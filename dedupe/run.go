package dedupe

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/pyharness/pyharness/trace"
)

// Options are the knobs of a dedupe run.
type Options struct {
	// Threshold is the Jaccard similarity that makes a near-duplicate
	// (DefaultThreshold when 0).
	Threshold float64
	// JSON writes the report as one JSON document instead of text.
	JSON bool
}

// lowVariety is the variety ratio under which the report says plainly that
// more passes will not help.
const lowVariety = 0.5

// Report is what a dedupe run found.
type Report struct {
	In       string `json:"in"`
	Runs     int    `json:"runs"`
	SetAside int    `json:"earlier_attempts_set_aside"`
	// BadLines are the bad lines of the trace files read; their good
	// records were used.
	trace.BadLines
	// NoModel counts turns settled without the model: they have no draft.
	NoModel int `json:"turns_without_model"`
	// NotRebuilt counts turns whose prompt did not rebuild to its
	// prompt_hash: their context is not known exactly, so they are no pair.
	NotRebuilt int `json:"prompts_not_rebuilt"`
	Figures
	Threshold float64        `json:"threshold"`
	Bands     int            `json:"bands"`
	Rows      int            `json:"rows"`
	ByGroup   []GroupFigures `json:"by_group"`
	// Sentence says plainly when variety is low; empty otherwise.
	Sentence string `json:"sentence,omitempty"`
}

// Run dedupes every model turn of the traces in dir and writes the report
// to w.
func Run(ctx context.Context, dir string, opts Options, w io.Writer) (*Report, error) {
	c, err := trace.OpenCorpus(ctx, dir, GroupOf)
	if err != nil {
		return nil, err
	}
	ix := NewIndex(opts.Threshold, CorpusTexts{Corpus: c}, nil)
	rep := &Report{In: dir, SetAside: c.SetAside(), Threshold: ix.threshold, Bands: Bands, Rows: Rows}
	for run, err := range trace.MapRuns(ctx, c, fingerprints, rep.AddFile) {
		if err != nil {
			return nil, err
		}
		if run.Start == nil {
			continue
		}
		rep.Runs++
		for i, t := range run.Turns {
			if !t.ModelStep {
				rep.NoModel++
				continue
			}
			if run.Prompts[i] == nil {
				rep.NotRebuilt++
				continue
			}
			it := Item{Ref: Ref{Run: run.Index, Turn: int32(i)}, Group: run.Group(), Worked: run.Worked(), Time: run.Time(i)}
			if _, err := ix.AddFingerprint(ctx, it, &run.Value[i]); err != nil {
				return nil, fmt.Errorf("dedupe: %w", err)
			}
		}
	}
	if err := ix.Close(); err != nil {
		return nil, fmt.Errorf("dedupe: %w", err)
	}
	rep.Figures = ix.Figures()
	rep.ByGroup = ix.ByGroup()
	rep.Sentence = Sentence(rep.Runs, rep.Figures, allCases(rep.ByGroup))
	if opts.JSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return rep, fmt.Errorf("write dedupe report: %w", err)
		}
		return rep, nil
	}
	if err := rep.writeText(w); err != nil {
		return rep, fmt.Errorf("write dedupe report: %w", err)
	}
	return rep, nil
}

// fingerprints makes the fingerprint of each model turn of run whose
// prompt was rebuilt (Fingerprinter.Make); the other turns' are zero. It runs
// on the worker that read the run.
func fingerprints(run *trace.RebuiltRun) []Fingerprint {
	fps := make([]Fingerprint, len(run.Turns))
	var f Fingerprinter
	for i, t := range run.Turns {
		if t.ModelStep && run.Prompts[i] != nil {
			fps[i] = f.Make(run.Prompts[i], t.Reply)
		}
	}
	return fps
}

// allCases reports whether every group is a benchmark case (named without
// a source prefix).
func allCases(groups []GroupFigures) bool {
	for _, g := range groups {
		if strings.Contains(g.Group, "/") {
			return false
		}
	}
	return true
}

// Sentence is the plain statement of low variety, or "" when the variety
// ratio is at least lowVariety.
func Sentence(runs int, f Figures, onlyCases bool) string {
	if f.RawTurns == 0 || f.VarietyRatio >= lowVariety {
		return ""
	}
	what := "cases"
	if !onlyCases {
		what = "cases and tasks"
	}
	return fmt.Sprintf("%d runs gave %d turns but %d distinct pairs, from %d %s: collect on more repositories, not more passes.",
		runs, f.RawTurns, f.Clusters, f.Groups, what)
}

// writeText writes the report for a person.
func (r *Report) writeText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Dedupe of %s: %d runs", r.In, r.Runs)
	if r.SetAside > 0 {
		fmt.Fprintf(&b, " (%d earlier attempts set aside)", r.SetAside)
	}
	b.WriteString("\n\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "raw turns\t%d\tmodel turns with a rebuilt prompt\n", r.RawTurns)
	fmt.Fprintf(tw, "exact-unique\t%d\tafter normalising; most copies of one pair: %d\n", r.ExactUnique, r.MaxMultiplicity)
	fmt.Fprintf(tw, "near-unique clusters\t%d\tJaccard ≥ %.2f on token 5-grams of draft + last message, %d bands × %d rows\n", r.Clusters, r.Threshold, r.Bands, r.Rows)
	fmt.Fprintf(tw, "groups\t%d\tcases and dogfood tasks\n", r.Groups)
	fmt.Fprintf(tw, "variety ratio\t%.2f\tclusters ÷ raw turns\n", r.VarietyRatio)
	tw.Flush()
	if r.NoModel > 0 || r.NotRebuilt > 0 || r.FilesWithErrors > 0 || r.KeyCollisions > 0 {
		b.WriteString("\n")
		if r.NoModel > 0 {
			fmt.Fprintf(&b, "%d turn(s) settled without the model are not pairs.\n", r.NoModel)
		}
		if r.NotRebuilt > 0 {
			fmt.Fprintf(&b, "%d turn(s) left out: their prompt did not rebuild to its prompt_hash.\n", r.NotRebuilt)
		}
		r.WriteBadLines(&b)
		if r.KeyCollisions > 0 {
			fmt.Fprintf(&b, "%d key collision(s): equal keys over different text, kept apart.\n", r.KeyCollisions)
		}
	}
	if len(r.ByGroup) > 0 {
		b.WriteString("\n")
		tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "group\tturns\texact-unique\tclusters\t\n")
		for _, g := range r.ByGroup {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t\n", g.Group, g.RawTurns, g.ExactUnique, g.Clusters)
		}
		tw.Flush()
	}
	if r.Sentence != "" {
		fmt.Fprintf(&b, "\n%s\n", r.Sentence)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
