package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/pyharness/pyharness/collect/synthetic"
)

type genCorpusOptions struct {
	synthetic.Options
	out   string
	bench string
	json  bool
}

func newGenCorpusCmd(a *app) *cobra.Command {
	opts := genCorpusOptions{Options: synthetic.DefaultOptions()}
	cmd := &cobra.Command{
		Use:   "gen-corpus",
		Short: "Write a large, realistic, deterministic trace directory for measuring the pipeline",
		Long: `Writes --turns turn records into OUT/runs/ as schema-v1 traces shaped like the
scripted benchmark's: delta messages proved by prompt hashes, its turns per
run, turn-kind and verb mix, and message and draft sizes, with code-like text.
Each case is run --passes times; of the passes after the first, --exact
repeat the case's first run exactly (another run id, the same messages and
drafts) and --near repeat it with about one word in sixty changed. The same
--seed and options give the same bytes.

The runs are labelled --backend/--model (ollama, gen-corpus:synthetic by
default) so that export selects them as it selects a real model's runs.

It prints the corpus's distribution beside the scripted benchmark's: pass
--bench DIR (a directory written by bench --model scripted) to measure that
one; without it the figures the generator was fitted to are printed.
docs/performance.md says how the pipeline's figures were measured with it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runGenCorpus(cmd.Context(), a, opts)
		},
	}
	fs := cmd.Flags()
	fs.IntVar(&opts.Turns, "turns", opts.Turns, "turn records to write")
	fs.StringVar(&opts.out, "out", "", "the directory to write (its runs/ must hold no traces)")
	fs.Uint64Var(&opts.Seed, "seed", opts.Seed, "the seed of every choice")
	fs.IntVar(&opts.Passes, "passes", opts.Passes, "runs of each case")
	fs.Float64Var(&opts.ExactShare, "exact", opts.ExactShare, "share of later passes that repeat the first exactly")
	fs.Float64Var(&opts.NearShare, "near", opts.NearShare, "share of later passes that repeat the first with a few words changed")
	fs.StringVar(&opts.Backend, "backend", opts.Backend, "the model backend recorded on every run")
	fs.StringVar(&opts.Model, "model", opts.Model, "the model name recorded on every run")
	fs.IntVar(&opts.Jobs, "jobs", 0, "runs written at once (default: the number of CPUs)")
	fs.StringVar(&opts.bench, "bench", "", "a scripted bench's output directory to compare with")
	fs.BoolVar(&opts.json, "json", false, "print both profiles as one JSON document")
	_ = cmd.MarkFlagRequired("out")
	return cmd
}

func runGenCorpus(ctx context.Context, a *app, o genCorpusOptions) error {
	if err := o.Validate(); err != nil {
		return &exitError{code: exitUsage, msg: "gen-corpus: " + err.Error()}
	}
	ref, refName := synthetic.ScriptedBench(), "scripted bench (fitted)"
	if o.bench != "" {
		p, err := synthetic.Measure(ctx, o.bench)
		if err != nil {
			return err
		}
		ref, refName = p, "scripted bench ("+o.bench+")"
	}
	start := a.now()
	p, err := synthetic.Generate(ctx, o.out, o.Options)
	if err != nil {
		return err
	}
	elapsed := a.now().Sub(start)
	if o.json {
		return writeJSON(a.stdout, map[string]any{"out": o.out, "corpus": p, "bench": ref, "seconds": elapsed.Seconds()})
	}
	fmt.Fprintf(a.stdout, "Wrote %d turns in %d runs to %s in %.1fs (%.1f MB, %.0f bytes on disk per turn)\n\n",
		p.Turns, p.Runs, o.out, elapsed.Seconds(), float64(p.DiskBytes)/1e6, p.BytesPerTurn)
	return synthetic.WriteComparison(a.stdout, refName, ref, "generated", p)
}
