package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/pyharness/pyharness/export"
)

type exportOptions struct {
	export.Options
	seed uint64
}

func newExportCmd(a *app) *cobra.Command {
	opts := exportOptions{Options: export.DefaultOptions()}
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write variety-weighted SFT pairs (jsonl, parquet) or preference pairs (dpo) from traces",
		Long: `Reads the traces under --in, selects the pairs worth learning from (by default:
drafts that parsed and were applied, in runs that worked, from a model — not
the scripted or replay backends), dedupes them, weights each case by its
variety, splits by case, redacts secrets, and writes to --out
(default IN/export/FORMAT):

  --format jsonl    train.jsonl, valid.jsonl (test.jsonl with --test), rows
                    {"messages": [...]} only, provenance in meta.jsonl
  --format parquet  data/<split>-0000i-of-0000N.parquet, Hugging Face layout,
                    messages list<struct<role, content>> plus weight and
                    provenance columns
  --format dpo      {"prompt", "chosen", "rejected"} rows for TRL's DPOTrainer

The filters (--model, --source, --case, --tier, --tag, --kind) each take
runs matching any of their values; a --tag or --model value no run has is
named. --model openai:TEACHER --for ollama:STUDENT exports a teacher's
worked runs for a student: the card says who wrote the drafts and that they
are meant for a different model (docs/loop.md walks the whole loop).

Every format writes a README.md dataset card. When the selection leaves
nothing, it says why and writes nothing. docs/export.md has the details.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runExport(cmd.Context(), a, opts)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&opts.In, "in", defaultOut, "trace directory")
	fs.StringVar(&opts.Out, "out", "", "output directory (default IN/export/FORMAT)")
	fs.StringVar(&opts.Format, "format", opts.Format, "jsonl, parquet or dpo")
	fs.StringArrayVar(&opts.Models, "model", nil, "only runs of this model: name, backend or backend:name (repeatable)")
	fs.StringArrayVar(&opts.Sources, "source", nil, "only runs of this source: bench, dogfood, adhoc (repeatable)")
	fs.StringArrayVar(&opts.Cases, "case", nil, "only runs of this case or dogfood id (repeatable)")
	fs.IntSliceVar(&opts.Tiers, "tier", nil, "only runs of this tier (repeatable)")
	fs.StringArrayVar(&opts.Tags, "tag", nil, "only runs carrying this tag, from their manifest entry (repeatable: any of them)")
	fs.StringVar(&opts.For, "for", "", "the model the export is meant to train, as backend:name; the card says whether it wrote the drafts")
	fs.StringArrayVar(&opts.Kinds, "kind", nil, "only turns sent this kind: opening, tool-result, refusal-or-nudge, parse-failure (repeatable)")
	fs.BoolVar(&opts.IncludeFailedRuns, "include-failed-runs", false, "take applied drafts from failed runs too")
	fs.BoolVar(&opts.IncludeScripted, "include-scripted", false, "take runs of the scripted and replay backends (drafts written by hand)")
	fs.BoolVar(&opts.KeepToolCalls, "keep-tool-calls", false, "keep native tool calls as tool_calls instead of the text protocol")
	fs.Float64Var(&opts.Alpha, "alpha", opts.Alpha, "variety exponent: a group of K clusters weighs K^alpha")
	fs.Float64Var(&opts.Cap, "cap", opts.Cap, "the most one pair may weigh (copies in train)")
	fs.Float64Var(&opts.Valid, "valid", opts.Valid, "share of groups in the validation split")
	fs.Float64Var(&opts.Test, "test", opts.Test, "share of groups in a test split (none when 0)")
	fs.Uint64Var(&opts.seed, "seed", 0, "seed of the splits and the fractional copies")
	fs.Float64Var(&opts.Threshold, "threshold", opts.Threshold, "Jaccard similarity that makes a near-duplicate")
	fs.IntVar(&opts.ShardRows, "shard-rows", opts.ShardRows, "the most rows in one Parquet shard")
	return cmd
}

func runExport(ctx context.Context, a *app, opts exportOptions) error {
	o := opts.Options
	o.Seed = opts.seed
	if o.Out == "" {
		o.Out = filepath.Join(o.In, "export", o.Format)
	}
	// The options first: a wrong flag is said whatever --in holds.
	if err := o.Validate(); err != nil {
		return &exitError{code: exitUsage, msg: "export: " + err.Error()}
	}
	in, err := readInput("export", "--in", o.In, false)
	if err != nil {
		return err
	}
	o.In = in
	_, err = export.Run(ctx, o, a.stdout)
	var nothing *export.NothingError
	if errors.As(err, &nothing) {
		// The summary on stdout has said why; say it again where errors go.
		return &exitError{code: exitFailure, msg: fmt.Sprintf("nothing exported from %s: %s", o.In, nothing.Why)}
	}
	return err
}
