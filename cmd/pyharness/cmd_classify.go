package main

import (
	"context"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/pyharness/pyharness/classify"
	"github.com/pyharness/pyharness/classify/derivedcache"
	"github.com/pyharness/pyharness/dedupe"
	"github.com/pyharness/pyharness/export"
)

type classifyOptions struct {
	in, out string
	json    bool
}

func newClassifyCmd(a *app) *cobra.Command {
	opts := classifyOptions{}
	cmd := &cobra.Command{
		Use:   "classify",
		Short: "Label every turn and run of a trace directory and write them as Parquet tables",
		Long: `Reads the traces of --in (the last attempt of each run), labels every turn by
what the model was sent (opening, tool-result, refusal-or-nudge with its code,
parse-failure: from the codes recorded at capture, or by text rules for traces
recorded without them) and every run by its verdict, failure class, stop reason
and suite counts, and writes the Parquet tables DATASET/turns/ and DATASET/runs/,
Hive-partitioned by source and model, for DuckDB, Arrow or pandas to read as
they are. See docs/analysis.md for the schema and ready queries.

It is incremental: DATASET/classify-state.json records the runs classified, so
running it again on a directory that gained runs classifies only the new ones
(and replaces the rows of a run that gained a newer attempt). Bad lines in
trace files are listed as file:line and every good record is kept.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runClassify(cmd.Context(), a, opts)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&opts.in, "in", defaultOut, "the trace directory (DIR/runs/*.jsonl or DIR/*.jsonl)")
	fs.StringVar(&opts.out, "out", "", "the dataset directory to write (default IN/dataset)")
	fs.BoolVar(&opts.json, "json", false, "print what was done as one JSON document")
	return cmd
}

func runClassify(ctx context.Context, a *app, o classifyOptions) error {
	tunePipelineGC()
	in, err := readInput("classify", "--in", o.in, false)
	if err != nil {
		return err
	}
	if o.out == "" {
		o.out = filepath.Join(in, "dataset")
	}
	res, err := classify.Update(ctx, in, o.out, laterStagesDerivers()...)
	if err != nil {
		return err
	}
	if o.json {
		return writeJSON(a.stdout, res)
	}
	res.WriteText(a.stdout)
	return nil
}

// laterStagesDerivers are what the stages after classify keep of each run
// (package derivedcache): dedupe's fingerprints and export's facts, made while
// classify has the run decoded, so that dedupe --dataset and export
// --dataset decode only the traces that changed since.
func laterStagesDerivers() []derivedcache.Deriver {
	return []derivedcache.Deriver{dedupe.Deriver(), export.Deriver()}
}
