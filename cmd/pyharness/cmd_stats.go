package main

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/pyharness/pyharness/classify/dataset"
	"github.com/pyharness/pyharness/report/stats"
)

type statsOptions struct {
	in   string
	json bool
	by   string
}

func newStatsCmd(a *app) *cobra.Command {
	opts := statsOptions{}
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "Print what worked, what failed and why, and what the model is told, from traces or a classified dataset",
		Long: `Reads a trace directory or a classified dataset (it says which) and prints:
runs worked and failed for each model, and how many were not judged (error,
cancelled, unjudged: a suite that ran no test, incomplete), with the scripted and replayed runs in a section of
their own, never totalled with a model's; why runs failed, by failure class;
failures by tier, and by tag when runs have tags (a dogfood manifest entry's);
worked per pass (these count the runs of models when there are any, and say
so); turns, turns per run and the share of each turn kind;
the refusals, nudges and parse failures sent most often, with their message;
the failures that ended claiming DONE and how many of them wrote nothing; the
runs settled with no model step; and how each model wrote its actions
(canonical, each tolerated shape, unparsed). --by adds a breakdown by model,
tier, case, source or tag (a run counted under each of its tags); --json prints the same numbers as one JSON document.

Bad lines and files in a trace directory are listed as file:line after the
tables, which hold every good record.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runStats(cmd.Context(), a, opts)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&opts.in, "in", defaultOut, "a trace directory or a classified dataset (IN/dataset when IN holds no traces)")
	fs.BoolVar(&opts.json, "json", false, "print the numbers as one JSON document")
	fs.StringVar(&opts.by, "by", "", "break the numbers down by model, tier, case, source or tag")
	return cmd
}

func runStats(ctx context.Context, a *app, o statsOptions) error {
	opts := stats.Options{By: o.by}
	if err := stats.CheckOptions(opts); err != nil {
		return &exitError{code: exitUsage, msg: "stats: " + err.Error()}
	}
	in, err := readInput("stats", "--in", o.in, true)
	if err != nil {
		return err
	}
	if dataset.IsDataset(in) {
		tuneDatasetGC()
	} else {
		tunePipelineGC()
	}
	s, err := stats.Load(ctx, in, opts)
	if err != nil {
		return err
	}
	if o.json {
		if err := writeJSON(a.stdout, s); err != nil {
			return fmt.Errorf("stats: %w", err)
		}
		return nil
	}
	if err := s.WriteText(a.stdout); err != nil {
		return fmt.Errorf("stats: %w", err)
	}
	return nil
}

// datasetGCLimit is the heap at which stats on a classified dataset first
// collects garbage. Counting allocates the column chunks' values, handed
// from the readers to the counter, and keeps little of them, so a
// collection would only mark strings soon dropped (docs/performance.md has
// the figures). Under the limit it never runs; a larger dataset collects
// at the limit, its live heap far below it.
const datasetGCLimit = 256 << 20

// tuneDatasetGC turns the collector off up to datasetGCLimit, unless the
// environment sets GOGC or GOMEMLIMIT.
func tuneDatasetGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		tunePipelineGC()
		return
	}
	debug.SetMemoryLimit(datasetGCLimit)
	debug.SetGCPercent(-1)
}
