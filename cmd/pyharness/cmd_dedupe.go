package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/pyharness/pyharness/dedupe"
)

type dedupeOptions struct {
	in, dataset string
	threshold   float64
	json        bool
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
                        (equal keys confirmed by the SHA-256 of the text)
  near-unique clusters  MinHash over token %d-grams of the draft and the message
                        it answered, %d bands x %d rows, confirmed by Jaccard
                        >= --threshold, within a case or dogfood task
  groups                cases and dogfood tasks
  variety ratio         clusters / raw turns

and a plain sentence when the variety is low. export runs the same dedupe on
the turns it selects.

classify fingerprints every turn while it reads the traces, and stores the
fingerprints in its dataset (--dataset, IN/dataset unless told), keyed by each
trace file's size and content hash: dedupe takes a run's from there when its
trace is byte for byte the one classify read, and decodes the others (runs
added or changed since). The report is the same either way.`, dedupe.ShingleSize, dedupe.Bands, dedupe.Rows),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDedupe(cmd.Context(), a, opts)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&opts.in, "in", defaultOut, "trace directory")
	fs.StringVar(&opts.dataset, "dataset", "", "the dataset classify wrote of these traces, whose fingerprints spare decoding them again (default IN/dataset when it exists)")
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
	dataset := opts.dataset
	if dataset == "" {
		dataset = filepath.Join(in, "dataset")
	} else if st, err := os.Stat(dataset); err != nil || !st.IsDir() {
		return &exitError{code: exitUsage, msg: fmt.Sprintf("dedupe: --dataset %s: no such directory", dataset)}
	}
	_, err = dedupe.Run(ctx, in, dedupe.Options{Threshold: opts.threshold, JSON: opts.json, Dataset: dataset}, a.stdout)
	return err
}
