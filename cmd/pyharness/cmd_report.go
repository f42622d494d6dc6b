package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/pyharness/pyharness/report"
	"github.com/pyharness/pyharness/stats"
)

type reportOptions struct {
	in, out, by, title string
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
sent as it is.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReport(cmd.Context(), a, opts)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&opts.in, "in", defaultOut, "a trace directory or a classified dataset")
	fs.StringVar(&opts.out, "out", "report.html", "the HTML file to write")
	fs.StringVar(&opts.by, "by", "", "add a breakdown by model, tier, case or source")
	fs.StringVar(&opts.title, "title", "pyharness report", "the page's title")
	return cmd
}

func runReport(ctx context.Context, a *app, o reportOptions) (err error) {
	opts := stats.Options{By: o.by}
	if err := stats.CheckOptions(opts); err != nil {
		return &exitError{code: exitUsage, msg: "report: " + err.Error()}
	}
	s, err := stats.Load(ctx, o.in, opts)
	if err != nil {
		return err
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
	bw := bufio.NewWriter(f)
	ro := report.Options{Title: o.title, Generated: a.now().UTC().Format(time.RFC3339)}
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
	return nil
}
