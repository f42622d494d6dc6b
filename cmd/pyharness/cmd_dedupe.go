package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/pyharness/pyharness/dedupe"
)

type dedupeOptions struct {
	in        string
	threshold float64
	json      bool
}

func newDedupeCmd(a *app) *cobra.Command {
	opts := dedupeOptions{}
	cmd := &cobra.Command{
		Use:   "dedupe",
		Short: "Count exact and near-duplicate turns in traces, and say how much variety they hold",
		Long: fmt.Sprintf(`Reads the traces under --in (DIR/runs/*.jsonl or DIR/*.jsonl, last attempt of
each run), takes every model turn as a pair (the exact prompt it was sent and
the draft that answered it) and prints:

  raw turns             model turns whose prompt rebuilt to its prompt_hash
  exact-unique          distinct xxhash64 keys over the normalised training text
                        (equal keys confirmed byte for byte)
  near-unique clusters  MinHash over token %d-grams of the draft and the message
                        it answered, %d bands x %d rows, confirmed by Jaccard
                        >= --threshold, within a case or dogfood task
  groups                cases and dogfood tasks
  variety ratio         clusters / raw turns

and a plain sentence when the variety is low. export runs the same dedupe on
the turns it selects.`, dedupe.ShingleSize, dedupe.Bands, dedupe.Rows),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDedupe(cmd.Context(), a, opts)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&opts.in, "in", defaultOut, "trace directory")
	fs.Float64Var(&opts.threshold, "threshold", dedupe.DefaultThreshold, "Jaccard similarity that makes a near-duplicate")
	fs.BoolVar(&opts.json, "json", false, "print the report as one JSON document")
	return cmd
}

func runDedupe(ctx context.Context, a *app, opts dedupeOptions) error {
	tunePipelineGC()
	in, err := readInput("dedupe", "--in", opts.in, false)
	if err != nil {
		return err
	}
	_, err = dedupe.Run(ctx, in, dedupe.Options{Threshold: opts.threshold, JSON: opts.json}, a.stdout)
	return err
}
