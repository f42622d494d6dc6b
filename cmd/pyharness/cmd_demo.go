package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pyharness/pyharness/classify"
	"github.com/pyharness/pyharness/collect"
	"github.com/pyharness/pyharness/collect/bench"
	"github.com/pyharness/pyharness/datasets"
	"github.com/pyharness/pyharness/dedupe"
	"github.com/pyharness/pyharness/export"
	"github.com/pyharness/pyharness/report"
	"github.com/pyharness/pyharness/report/stats"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

type demoOptions struct {
	out    string
	passes int
}

func newDemoCmd(a *app) *cobra.Command {
	opts := demoOptions{}
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the main job on the embedded default, with no model server needed",
		Long: `Runs the whole pipeline on the embedded benchmark with the scripted backend
(each case's own drafts; no model is called, and every record says so): a
collect of four passes, validation of every trace, the benchmark's tables,
classify, dedupe, export to JSONL and Parquet (with --include-scripted, which
the dataset card states), stats and the HTML report; then it prints where each
output is. With Ollama running, pyharness collect --passes 4 does the same
with a real model.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDemo(cmd.Context(), a, opts)
		},
	}
	cmd.Flags().StringVar(&opts.out, "out", filepath.Join(defaultOut, "demo"), "output directory (kept apart from real collections)")
	cmd.Flags().IntVar(&opts.passes, "passes", 4, "passes over the benchmark")
	return cmd
}

func runDemo(ctx context.Context, a *app, o demoOptions) error {
	if o.passes < 1 {
		return &exitError{code: exitUsage, msg: "demo: --passes must be at least 1"}
	}
	w := a.stdout
	fmt.Fprintln(w, "pyharness demo: the model is SCRIPTED — each benchmark case plays its own recorded-style drafts, and no model is called.")
	fmt.Fprintln(w, "With Ollama running, `pyharness collect --passes 4` does the same with a real model (default ollama:llama3.1:8b).")
	fmt.Fprintln(w)
	cases, err := datasets.Cases()
	if err != nil {
		return err
	}
	bar := newProgress(a, "collect")
	sum, err := collect.Run(ctx, collect.Options{
		Cases: cases, Passes: o.passes, Jobs: 2, OutDir: o.out, Resume: true, Now: a.now, Progress: bar.update,
		Model: func(ctx context.Context, it collect.Item, pass int, opts schemas.Options, slot int) (collect.Backend, error) {
			return collect.CaseScript(*it.Case, pass, opts)
		},
	})
	bar.finish()
	if errors.Is(err, collect.ErrOtherPlan) {
		// A directory of another plan (more passes, a collect's) would
		// have its runs in every table below.
		return &exitError{code: exitUsage, msg: "demo: " + err.Error()}
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "1. collect: %d runs planned, %d already there, %d run now (%d worked, %d failed)\n",
		sum.Planned, sum.Skipped, sum.Ran, sum.Worked, sum.Failed)

	files, records, bad, err := validateTraces(o.out)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "2. validate: %d trace files, %d records, %d with errors\n", files, records, bad)

	outcomes, err := bench.ReadOutcomes(ctx, o.out)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "3. the benchmark's tables:\n\n")
	bench.NewReport(outcomes, len(cases), o.passes).WriteText(w)

	dataset := filepath.Join(o.out, "dataset")
	cres, err := classify.Update(ctx, o.out, dataset, laterStagesDerivers()...)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\n4. classify: %d runs (%d new) into %s\n", cres.Runs, cres.Classified, dataset)

	fmt.Fprintf(w, "\n5. dedupe:\n")
	if _, err := dedupe.Run(ctx, o.out, dedupe.Options{}, indent(w)); err != nil {
		return err
	}
	exports, err := demoExports(ctx, w, o.out)
	if err != nil {
		return err
	}

	st, err := stats.FromTraces(ctx, o.out, stats.Options{})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\n8. stats:\n\n")
	if err := st.WriteText(w); err != nil {
		return err
	}
	reportPath := filepath.Join(o.out, "report.html")
	pages, err := writeDemoReport(ctx, o.out, reportPath, st)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\n9. report: %s, and a page for each of its %d runs in %s\n", reportPath, len(pages.Runs), runPagesDir(reportPath))

	fmt.Fprintf(w, "\nOutputs (the model was scripted throughout):\n")
	fmt.Fprintf(w, "  traces    %s\n  plan      %s\n  patches   %s\n  dataset   %s\n  jsonl     %s\n  parquet   %s\n  report    %s\n  run pages %s\n",
		filepath.Join(o.out, trace.RunsDir), sum.PlanPath, filepath.Join(o.out, "patches"), dataset,
		exports[export.FormatJSONL], exports[export.FormatParquet], reportPath, runPagesDir(reportPath))
	if example := demoExample(pages); example != "" {
		fmt.Fprintf(w, "\nRead one run turn by turn:\n  pyharness show --in %s %s\n", o.out, example)
		fmt.Fprintf(w, "  (a unique prefix of its id will do; --patch adds its patch, --full its drafts whole)\n")
		fmt.Fprintf(w, "or open its page, linked from every table of the report:\n  %s\n",
			report.RunPagePath(runPagesDir(reportPath), example))
	}
	if bad > 0 {
		return &exitError{code: exitFailure, msg: fmt.Sprintf("demo: %d trace file(s) did not validate", bad)}
	}
	return nil
}

// validateTraces validates every trace file under out against the trace
// schema: it returns how many files and records it read, and how many
// files did not validate.
func validateTraces(out string) (files, records, bad int, err error) {
	v, err := trace.NewValidator()
	if err != nil {
		return 0, 0, 0, err
	}
	list, err := trace.ListFiles(out)
	if err != nil {
		return 0, 0, 0, err
	}
	for _, f := range list {
		rep := v.ValidateFile(f.Path)
		records += rep.Records
		if rep.Errors() > 0 {
			bad++
		}
	}
	return len(list), records, bad, nil
}

// demoExports exports the demo's runs as JSONL and as Parquet, scripted
// runs included, into out/export/FORMAT, and returns each directory by
// format.
func demoExports(ctx context.Context, w io.Writer, out string) (map[string]string, error) {
	exports := map[string]string{}
	for i, format := range []string{export.FormatJSONL, export.FormatParquet} {
		eo := export.DefaultOptions()
		eo.In, eo.Format, eo.IncludeScripted = out, format, true
		eo.Out = filepath.Join(out, "export", format)
		if err := os.RemoveAll(eo.Out); err != nil {
			return nil, err
		}
		sum, err := export.Run(ctx, eo, io.Discard)
		if err != nil {
			return nil, fmt.Errorf("demo: export %s: %w", format, err)
		}
		exports[format] = eo.Out
		fmt.Fprintf(w, "\n%d. export --format %s --include-scripted: %s", 6+i, format, splitsLine(sum))
		fmt.Fprintf(w, " (scripted drafts, for the demo only: the dataset card says so)\n")
	}
	return exports, nil
}

// writeDemoReport writes the HTML report of st to reportPath and a page
// for each run of out beside it.
func writeDemoReport(ctx context.Context, out, reportPath string, st *stats.Summary) (*report.RunPages, error) {
	const title = "pyharness demo (scripted model)"
	pages, err := writeRunPages(ctx, out, reportPath, title)
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	f, err := os.Create(reportPath)
	if err != nil {
		return nil, fmt.Errorf("demo: write report: %w", err)
	}
	if err := report.Write(ctx, f, st, report.Options{Title: title, Runs: pages}); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("demo: write report: %w", err)
	}
	return pages, nil
}

// demoExample is the run the demo points a reader to: the first that
// failed, since a failure is what one reads a run for.
func demoExample(pages *report.RunPages) string {
	for _, e := range pages.Runs {
		if e.Verdict == schemas.VerdictFailed {
			return e.RunID
		}
	}
	if len(pages.Runs) > 0 {
		return pages.Runs[0].RunID
	}
	return ""
}

// splitsLine says how many pairs each split of an export holds, and in how
// many rows: a pair is written as many times as its weight says (a
// fractional weight is a copy drawn with the seed), so the rows of two
// formats of one selection can differ while the pairs agree.
func splitsLine(s *export.Summary) string {
	var parts []string
	for _, name := range []string{"train", "validation", "test"} {
		if c, ok := s.Splits[name]; ok {
			parts = append(parts, fmt.Sprintf("%s %d pairs as %d rows (%d group(s))", name, c.Pairs, c.Rows, c.Groups))
		}
	}
	return strings.Join(parts, ", ") + "; a pair is written once per copy its weight asks for"
}

// indent writes through to w with each line indented.
func indent(w io.Writer) io.Writer { return &indentWriter{w: w, start: true} }

type indentWriter struct {
	w     io.Writer
	start bool
}

func (iw *indentWriter) Write(p []byte) (int, error) {
	for _, line := range bytes.SplitAfter(p, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		if iw.start {
			if _, err := iw.w.Write([]byte("   ")); err != nil {
				return 0, err
			}
		}
		if _, err := iw.w.Write(line); err != nil {
			return 0, err
		}
		iw.start = line[len(line)-1] == '\n'
	}
	return len(p), nil
}
