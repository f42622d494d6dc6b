package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pyharness/pyharness/report"
	"github.com/pyharness/pyharness/report/stats"
	"github.com/pyharness/pyharness/schemas/trace"
)

type reportOptions struct {
	in, out, by, title, traces string
}

func newReportCmd(a *app) *cobra.Command {
	opts := reportOptions{}
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Write the stats tables and charts as one self-contained HTML file",
		Long: `Reads a trace directory or a classified dataset, as stats does, and writes one
HTML file with the stats tables and five bar charts: turn-kind shares, pass
rate per tier, failures by class, worked per pass, and turns per run. CSS and
SVG are inline and the page loads nothing, so it opens offline and can be
sent as it is.

Every row that counts runs links to a list of them, and every run to a page
of its own with its transcript (as pyharness show prints it): the pages go
in a folder beside the report, OUT without .html plus -runs (report-runs/
for report.html). They are read from the trace directory: --in when it is
one, else --traces.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReport(cmd.Context(), a, opts)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&opts.in, "in", defaultOut, "a trace directory or a classified dataset (IN/dataset when IN holds no traces)")
	fs.StringVar(&opts.out, "out", "", "the HTML file to write (default IN/report.html)")
	fs.StringVar(&opts.by, "by", "", "add a breakdown by model, tier, case, source or tag")
	fs.StringVar(&opts.title, "title", "pyharness report", "the page's title")
	fs.StringVar(&opts.traces, "traces", "", "the trace directory of the runs to link (default: --in when it is one)")
	return cmd
}

func runReport(ctx context.Context, a *app, o reportOptions) (err error) {
	opts := stats.Options{By: o.by}
	if err := stats.CheckOptions(opts); err != nil {
		return &exitError{code: exitUsage, msg: "report: " + err.Error()}
	}
	in, err := readInput("report", "--in", o.in, true)
	if err != nil {
		return err
	}
	if o.out == "" {
		// Given OUT/runs, the report goes beside the runs, in OUT, as it
		// does for --in OUT: never among the trace files.
		dir := o.in
		if filepath.Base(filepath.Clean(dir)) == trace.RunsDir {
			dir = filepath.Dir(filepath.Clean(dir))
		}
		o.out = filepath.Join(dir, "report.html")
	}
	s, err := stats.Load(ctx, in, opts)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	f, err := os.Create(o.out)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("report: %w", cerr)
		}
	}()
	traces := o.traces
	if traces == "" && s.Kind == stats.InputTraces {
		traces = in
	}
	var pages *report.RunPages
	if traces != "" {
		if pages, err = writeRunPages(ctx, traces, o.out, o.title); err != nil {
			return err
		}
	}
	bw := bufio.NewWriter(f)
	ro := report.Options{Title: o.title, Generated: a.now().UTC().Format(time.RFC3339), Runs: pages}
	if err := report.Write(ctx, bw, s, ro); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	fmt.Fprintf(a.stdout, "Wrote %s from the %s %s: %d runs, %d turns", o.out, s.Kind, o.in, s.Runs.Read, s.Turns.Total)
	if len(s.Problems) > 0 {
		fmt.Fprintf(a.stdout, "; %d problem(s), listed in the report", len(s.Problems))
	}
	fmt.Fprintln(a.stdout)
	if pages != nil {
		fmt.Fprintf(a.stdout, "Wrote a page for each of %d runs in %s", len(pages.Runs), runPagesDir(o.out))
		if len(pages.Problems) > 0 {
			fmt.Fprintf(a.stdout, "; %d trace file(s) had no run to show:\n  %s", len(pages.Problems), strings.Join(pages.Problems, "\n  "))
		}
		fmt.Fprintln(a.stdout)
	} else {
		fmt.Fprintln(a.stdout, "No run pages: the report was read from a dataset; --traces DIR links each run to its page")
	}
	return nil
}

// runPagesDir is the folder of a report's run pages: beside it, named
// after it.
func runPagesDir(reportPath string) string {
	return strings.TrimSuffix(reportPath, filepath.Ext(reportPath)) + "-runs"
}

// writeRunPages writes the run pages of a report about to be written to
// reportPath.
func writeRunPages(ctx context.Context, traces, reportPath, title string) (*report.RunPages, error) {
	dir := runPagesDir(reportPath)
	return report.WriteRunPages(ctx, traces, dir, report.PagesOptions{
		Title: title, Report: filepath.Base(reportPath), Rel: filepath.Base(dir),
	})
}
