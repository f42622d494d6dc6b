package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pyharness/pyharness/export"
	"github.com/pyharness/pyharness/export/rawtext"
	"github.com/pyharness/pyharness/harness/chattemplate"
)

type exportOptions struct {
	export.Options
	seed uint64
	// chatTemplate is --chat-template FILE; baseURL --base-url, where
	// the template of --for openai:NAME is read from /props.
	chatTemplate, baseURL string
}

// exportHelp is export's help: what it selects and writes, by format and
// layout, and what its filters and options do.
const exportHelp = `Reads the traces under --in, selects the pairs worth learning from (by default:
drafts that parsed and were applied, in runs that worked, from a model — not
the scripted or replay backends), dedupes them, weights each case by its
variety, splits by case, redacts secrets, and writes to --out
(default IN/export/FORMAT):

  --format jsonl    train.jsonl, valid.jsonl (test.jsonl with --test),
                    provenance in meta.jsonl
  --format parquet  data/<split>-0000i-of-0000N.parquet, Hugging Face layout,
                    the rows plus weight and provenance columns
  --format dpo      {"prompt", "chosen", "rejected"} rows for TRL's DPOTrainer
  --format text      the jsonl rows, and under text/ each row rendered through
                    --chat-template for raw-text trainers: plain/train.txt
                    (llama.cpp's llama-finetune -f) and text-jsonl/
                    ({"text": ...} rows, mlx-lm); such a trainer learns every
                    token of a row, and text/README.md says so

Only the selected draft of a row is ever trained; the earlier drafts of its
context, refused ones among them, are not:

  --layout prompt-completion  {"prompt": [...], "completion": [draft]}, which
                              TRL trains on the completion alone (default)
  --layout messages           {"messages": [...]}, the draft last, weight 1 on
                              it and 0 on every earlier assistant message
                              (mlx-lm --mask-prompt, Axolotl
                              message_field_training: weight)
  --layout assistant-only     {"messages": [system, user, draft]}: the draft
                              the one assistant message, the task, earlier
                              drafts and the harness's answers one user
                              message, for trainers that train every
                              assistant message (TRL assistant_only_loss,
                              Unsloth train_on_responses_only, QVAC
                              --assistant-loss-only)

The trained draft is written in the protocol's canonical form (the form the
harness shows as "Read as:"), the model's own text kept in the provenance
(as_written); --as-written trains it as the model wrote it. Its reasoning goes
to reasoning_content (--reasoning keep) or is dropped, never into the content.

The filters (--model, --source, --case, --tier, --tag, --kind) each take
runs matching any of their values; a --tag or --model value no run has is
named. --model openai:TEACHER --for ollama:STUDENT exports a teacher's
worked runs for a student: the card says who wrote the drafts and that they
are meant for a different model (docs/loop.md walks the whole loop).

--chat-template FILE (a .jinja file, a tokenizer_config.json or a GGUF
model) renders every jsonl or dpo row through the chat template of the
model to train, as trainers do; with --for openai:NAME --base-url URL the
template is the one that llama.cpp server reports at /props. Rows are
adapted where the template needs it (a system prompt it refuses is folded
into the first user message, …); a row it cannot render fails the export.

Every format writes a README.md dataset card. When the selection leaves
nothing, it says why and writes nothing. docs/export.md has the details.

classify stores what export's first pass reads of each run (the fields the
run filters read, its secret values, each turn's facts and the fingerprint of
its training text) in its dataset (--dataset, IN/dataset unless told), keyed
by each trace file's size and content hash: export takes a run's from there
when its trace is byte for byte the one classify read, and decodes the others
(runs added or changed since; --as-written, --keep-tool-calls and dpo decode
the runs they consider). The files written are the same either way.`

func newExportCmd(a *app) *cobra.Command {
	opts := exportOptions{Options: export.DefaultOptions()}
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write variety-weighted SFT pairs (jsonl, parquet) or preference pairs (dpo) from traces",
		Long:  exportHelp,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runExport(cmd.Context(), a, opts)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&opts.In, "in", defaultOut, "trace directory")
	fs.StringVar(&opts.Dataset, "dataset", "", "the dataset classify wrote of these traces, whose stored facts spare decoding them again (default IN/dataset when it exists)")
	fs.StringVar(&opts.Out, "out", "", "output directory (default IN/export/FORMAT)")
	fs.StringVar(&opts.Format, "format", opts.Format, "jsonl, parquet, dpo or text")
	fs.StringArrayVar(&opts.Models, "model", nil, "only runs of this model: name, backend or backend:name (repeatable)")
	fs.StringArrayVar(&opts.Sources, "source", nil, "only runs of this source: bench, dogfood, adhoc (repeatable)")
	fs.StringArrayVar(&opts.Cases, "case", nil, "only runs of this case or dogfood id (repeatable)")
	fs.IntSliceVar(&opts.Tiers, "tier", nil, "only runs of this tier (repeatable)")
	fs.StringArrayVar(&opts.Tags, "tag", nil, "only runs carrying this tag, from their manifest entry (repeatable: any of them)")
	fs.StringVar(&opts.For, "for", "", "the model the export is meant to train, as backend:name; the card says whether it wrote the drafts")
	fs.StringArrayVar(&opts.Kinds, "kind", nil, "only turns sent this kind: opening, tool-result, refusal-or-nudge, parse-failure (repeatable)")
	fs.BoolVar(&opts.IncludeFailedRuns, "include-failed-runs", false, "take applied drafts from failed runs too")
	fs.BoolVar(&opts.IncludeScripted, "include-scripted", false, "take runs of the scripted and replay backends (drafts written by hand)")
	fs.BoolVar(&opts.KeepToolCalls, "keep-tool-calls", false, "keep native tool calls as tool_calls (and a tools column) instead of the text protocol")
	fs.StringVar(&opts.Layout, "layout", opts.Layout, "SFT row layout: prompt-completion, messages or assistant-only")
	fs.BoolVar(&opts.AsWritten, "as-written", false, "train each draft as the model wrote it, not in the protocol's canonical form")
	fs.StringVar(&opts.Reasoning, "reasoning", opts.Reasoning, "a draft's reasoning: keep (in reasoning_content) or drop")
	fs.Float64Var(&opts.Alpha, "alpha", opts.Alpha, "variety exponent: a group of K clusters weighs K^alpha")
	fs.Float64Var(&opts.Cap, "cap", opts.Cap, "the most one pair may weigh (copies in train)")
	fs.Float64Var(&opts.Valid, "valid", opts.Valid, "share of groups in the validation split")
	fs.Float64Var(&opts.Test, "test", opts.Test, "share of groups in a test split (none when 0)")
	fs.Uint64Var(&opts.seed, "seed", 0, "seed of the splits and the fractional copies")
	fs.Float64Var(&opts.Threshold, "threshold", opts.Threshold, "Jaccard similarity that makes a near-duplicate")
	fs.IntVar(&opts.ShardRows, "shard-rows", opts.ShardRows, "the most rows in one Parquet shard")
	fs.StringVar(&opts.chatTemplate, "chat-template", "", "check every row against this chat template: .jinja, tokenizer_config.json or GGUF file")
	fs.StringVar(&opts.baseURL, "base-url", "", "with --for openai:NAME, the llama.cpp server (its /v1 URL) whose /props gives the chat template")
	return cmd
}

// formatText is --format text: the jsonl export, and its rows rendered
// through the chat template for raw-text trainers (package rawtext).
const formatText = "text"

func runExport(ctx context.Context, a *app, opts exportOptions) error {
	tunePipelineGC()
	o := opts.Options
	o.Seed = opts.seed
	if o.Out == "" {
		o.Out = filepath.Join(o.In, "export", o.Format)
	}
	// The options first: a wrong flag is said whatever --in holds. Text
	// is the jsonl export rendered further, so the library checks it as
	// jsonl.
	if !slices.Contains([]string{export.FormatJSONL, export.FormatParquet, export.FormatDPO, formatText}, o.Format) {
		return &exitError{code: exitUsage, msg: fmt.Sprintf("export: format %q: want jsonl, parquet, dpo or text", o.Format)}
	}
	text := o.Format == formatText
	if text {
		o.Format = export.FormatJSONL
	}
	if err := o.Validate(); err != nil {
		return &exitError{code: exitUsage, msg: "export: " + err.Error()}
	}
	in, err := readInput("export", "--in", o.In, false)
	if err != nil {
		return err
	}
	o.In = in
	if o.Dataset == "" {
		o.Dataset = filepath.Join(in, "dataset")
	} else if st, err := os.Stat(o.Dataset); err != nil || !st.IsDir() {
		return &exitError{code: exitUsage, msg: fmt.Sprintf("export: --dataset %s: no such directory", o.Dataset)}
	}
	tmpl, err := exportChatTemplate(ctx, opts)
	if err != nil {
		return err
	}
	if text && tmpl == nil {
		return &exitError{code: exitUsage, msg: "--format text renders each row through the chat template of the model to train: give --chat-template FILE (or --for openai:NAME --base-url URL)"}
	}
	o.ChatTemplate = tmpl
	_, err = export.Run(ctx, o, a.stdout)
	var nothing *export.NothingError
	if errors.As(err, &nothing) {
		// The summary on stdout has said why; say it again where errors go.
		return &exitError{code: exitFailure, msg: fmt.Sprintf("nothing exported from %s: %s", o.In, nothing.Why)}
	}
	if err != nil || !text {
		return err
	}
	return exportText(ctx, a, o.Out, tmpl)
}

// exportText renders the rows of a jsonl export under OUT/text and adds
// what a raw-text trainer learns to the dataset card.
func exportText(ctx context.Context, a *app, out string, tmpl *chattemplate.Template) error {
	dir := filepath.Join(out, "text")
	s, err := rawtext.Write(ctx, out, dir, rawtext.Jinja{T: tmpl}, rawtext.Layouts)
	if err != nil {
		return err
	}
	card, err := os.OpenFile(filepath.Join(out, "README.md"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = io.WriteString(card, "\n"+s.CardSection())
	if cerr := card.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "\nrendered through %s into %s (%d train, %d valid rows): plain/train.txt for llama-finetune -f, text-jsonl/ for mlx-lm; a raw-text trainer learns every token of a row, the prompt too\n",
		s.Template, dir, s.Rows["train"], s.Rows["valid"])
	return nil
}

// exportChatTemplate loads the chat template to check rows against:
// --chat-template FILE, or the /props of the server --base-url names for
// --for openai:NAME. None when neither is given.
func exportChatTemplate(ctx context.Context, opts exportOptions) (*chattemplate.Template, error) {
	switch {
	case opts.chatTemplate != "":
		return chattemplate.Load(opts.chatTemplate)
	case opts.baseURL == "":
		return nil, nil
	case !strings.HasPrefix(opts.For, "openai:"):
		return nil, &exitError{code: exitUsage, msg: "--base-url reads the chat template of --for openai:NAME from its llama.cpp server's /props; give --for openai:NAME, or --chat-template FILE"}
	}
	client := &http.Client{Timeout: 30 * time.Second}
	return chattemplate.FetchProps(ctx, client, opts.baseURL)
}
