package export

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/pyharness/pyharness/dedupe"
	"github.com/pyharness/pyharness/harness/chattemplate"
	"github.com/pyharness/pyharness/schemas"
)

// Formats of an export.
const (
	FormatJSONL   = "jsonl"
	FormatParquet = "parquet"
	FormatDPO     = "dpo"
)

// Layouts of an SFT row (jsonl and parquet).
const (
	// layoutPromptCompletion is TRL's conversational prompt-completion:
	// {"prompt": [messages], "completion": [the draft]}. The draft is the
	// completion, and a trainer that reads the layout trains it alone.
	layoutPromptCompletion = "prompt-completion"
	// layoutMessages is {"messages": [...]}, the draft last, with a
	// per-message weight on every assistant message: 1 on the draft, 0 on
	// the earlier drafts of the context.
	layoutMessages = "messages"
	// layoutAssistantOnly is {"messages": [system, user, draft]}, for
	// trainers that train every assistant message of a row (TRL's
	// assistant_only_loss, Unsloth's train_on_responses_only, QVAC
	// Fabric's --assistant-loss-only): the draft is the row's one
	// assistant message, and the conversation before it, earlier drafts
	// and the harness's answers, is folded into one user message as a
	// transcript (foldHistory), so no earlier draft is trained, in its
	// own row or any later one.
	layoutAssistantOnly = "assistant-only"
)

// Layouts are the SFT row layouts, as --layout names them.
var Layouts = []string{layoutPromptCompletion, layoutMessages, layoutAssistantOnly}

// What --reasoning does with a draft's reasoning.
const (
	// reasoningKeep writes it in the trained message's reasoning_content.
	reasoningKeep = "keep"
	// reasoningDrop leaves it out.
	reasoningDrop = "drop"
)

// Options choose what is exported and how.
type Options struct {
	// In is the trace directory (DIR/runs/*.jsonl or DIR/*.jsonl).
	In string
	// Out is the directory the export is written to.
	Out    string
	Format string

	// Filters; empty means all, and a run matches a filter when it matches
	// any of its values. Models match the model name, the backend, or
	// backend:name; Tags the tags recorded on a run's run_start (a dogfood
	// manifest entry's tags).
	Models  []string
	Sources []string
	Cases   []string
	Tiers   []int
	Tags    []string
	// Kinds are the kinds of what the model was sent (schemas.Kind*), as
	// classify labels them.
	Kinds []string
	// IncludeFailedRuns takes SFT pairs from failed runs too (never from
	// runs that ended error or cancelled).
	IncludeFailedRuns bool
	// IncludeScripted takes runs of the scripted and replay backends, whose
	// drafts were written by hand, not by a model.
	IncludeScripted bool
	// KeepToolCalls keeps native tool calls as OpenAI-style tool_calls and
	// tool messages instead of rendering them in the text protocol.
	KeepToolCalls bool
	// Layout is the shape of an SFT row: layoutPromptCompletion,
	// layoutMessages or layoutAssistantOnly. Preference rows are always prompt, chosen, rejected.
	Layout string
	// AsWritten trains each draft as the model wrote it, where by default
	// it is written in the protocol's canonical form (the model's own text
	// kept in the row's provenance).
	AsWritten bool
	// Reasoning is reasoningKeep or reasoningDrop: what becomes of a
	// draft's reasoning. It never goes into the trained content.
	Reasoning string
	// For names the model the export is meant to train, as backend:name.
	// It selects nothing; the dataset card says whether the drafts are that
	// model's own or another model's (a teacher's, for a student).
	For string
	// ChatTemplate, when set, is the chat template of the model to train:
	// every row is rendered through it as trainers render it, adapted
	// where the template needs it, and a row it cannot render fails the
	// export (template.go).
	ChatTemplate *chattemplate.Template

	// Alpha is the variety exponent: a group of K distinct clusters weighs
	// K^Alpha in all, each pair K^(Alpha−1).
	Alpha float64
	// Cap is the most a pair may weigh (copies in the training split).
	Cap float64
	// Valid and Test are the shares of groups held out for the validation
	// and test splits.
	Valid, Test float64
	// Seed draws the splits and the fractional copies.
	Seed uint64
	// Threshold is the near-duplicate Jaccard threshold.
	Threshold float64
	// ShardRows is the most rows in one Parquet shard.
	ShardRows int
	// Dataset is the dataset classify wrote of these traces: the facts it
	// stored of each run (Deriver) serve the first pass for every run
	// whose trace is byte for byte the one classify read, and only the
	// others are decoded there. Empty, or a dataset without them: every
	// run is decoded. The export is the same either way.
	Dataset string
}

// DefaultOptions are the documented defaults of `pyharness export`.
func DefaultOptions() Options {
	return Options{Format: FormatJSONL, Layout: layoutPromptCompletion, Reasoning: reasoningKeep, Alpha: 0.3, Cap: 3, Valid: 0.1, Threshold: dedupe.DefaultThreshold, ShardRows: 100_000}
}

var kinds = []schemas.Kind{schemas.KindOpening, schemas.KindToolResult, schemas.KindRefusalOrNudge, schemas.KindParseFailure}

var sources = []string{schemas.SourceBench, schemas.SourceDogfood, schemas.SourceAdhoc}

// Validate checks the options before anything is read.
func (o Options) Validate() error {
	var errs []error
	if o.In == "" {
		errs = append(errs, errors.New("no input directory"))
	}
	if o.Out == "" {
		errs = append(errs, errors.New("no output directory"))
	}
	if !slices.Contains([]string{FormatJSONL, FormatParquet, FormatDPO}, o.Format) {
		errs = append(errs, fmt.Errorf("format %q: want jsonl, parquet or dpo", o.Format))
	}
	if !slices.Contains(Layouts, o.Layout) {
		errs = append(errs, fmt.Errorf("layout %q: want prompt-completion, messages or assistant-only", o.Layout))
	}
	if o.Layout == layoutAssistantOnly && o.KeepToolCalls && o.Format != FormatDPO {
		errs = append(errs, errors.New("layout assistant-only folds the earlier drafts into text, and --keep-tool-calls keeps them as calls: export one or the other"))
	}
	if !slices.Contains([]string{reasoningKeep, reasoningDrop}, o.Reasoning) {
		errs = append(errs, fmt.Errorf("reasoning %q: want keep or drop", o.Reasoning))
	}
	for _, k := range o.Kinds {
		if !slices.Contains(kinds, schemas.Kind(k)) {
			errs = append(errs, fmt.Errorf("kind %q: want one of %v", k, kinds))
		}
	}
	for _, s := range o.Sources {
		if !slices.Contains(sources, s) {
			errs = append(errs, fmt.Errorf("source %q: want one of %v", s, sources))
		}
	}
	if math.IsNaN(o.Alpha) || o.Alpha < 0 || o.Alpha > 1 {
		errs = append(errs, fmt.Errorf("alpha %g: want 0 (equal weight per group) to 1 (weight by size)", o.Alpha))
	}
	if math.IsNaN(o.Cap) || o.Cap < 1 {
		errs = append(errs, fmt.Errorf("cap %g: want at least 1 (weights have mean 1)", o.Cap))
	}
	if math.IsNaN(o.Valid) || o.Valid < 0 || o.Valid >= 1 || math.IsNaN(o.Test) || o.Test < 0 || o.Test >= 1 || o.Valid+o.Test >= 1 {
		errs = append(errs, fmt.Errorf("valid %g, test %g: want shares of groups in [0, 1) that leave some for training", o.Valid, o.Test))
	}
	if math.IsNaN(o.Threshold) || o.Threshold <= 0 || o.Threshold > 1 {
		errs = append(errs, fmt.Errorf("threshold %g: want a Jaccard similarity in (0, 1]", o.Threshold))
	}
	if o.ChatTemplate != nil && o.Format == FormatParquet {
		errs = append(errs, errors.New("a chat template checks jsonl and dpo exports; export jsonl to check against it"))
	}
	if o.ShardRows < 1 {
		errs = append(errs, fmt.Errorf("shard rows %d: want at least 1", o.ShardRows))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("check export options: %w", err)
	}
	return nil
}
