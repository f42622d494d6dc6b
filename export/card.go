package export

import (
	"fmt"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/pyharness/pyharness/dedupe"
)

// cardYAML is the front matter of the dataset card: the Hugging Face
// `configs` that drive loading, and the split sizes (which `datasets`
// checks against the files it reads).
type cardYAML struct {
	PrettyName     string       `yaml:"pretty_name"`
	Tags           []string     `yaml:"tags"`
	TaskCategories []string     `yaml:"task_categories"`
	Configs        []cardConfig `yaml:"configs"`
	DatasetInfo    cardInfo     `yaml:"dataset_info"`
}

type cardConfig struct {
	ConfigName string         `yaml:"config_name"`
	DataFiles  []cardDataFile `yaml:"data_files"`
}

type cardDataFile struct {
	Split string `yaml:"split"`
	Path  string `yaml:"path"`
}

type cardInfo struct {
	Splits []cardSplit `yaml:"splits"`
}

type cardSplit struct {
	Name        string `yaml:"name"`
	NumExamples int    `yaml:"num_examples"`
}

// cardTitle heads every card; an export only ever replaces a README.md
// that has it.
const cardTitle = "# pyharness export"

// writeCard writes README.md: YAML configs and split sizes, then what the
// export holds and how it was made, and the lines each trainer needs.
func writeCard(w io.Writer, s *Summary, files []string) error {
	front, err := cardFront(s)
	if err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "---\n%s---\n\n", front)

	kind := "supervised pairs (SFT)"
	if s.Format == FormatDPO {
		kind = "preference pairs (DPO)"
	}
	fmt.Fprintf(&b, "%s: %s, %s\n\n", cardTitle, kind, s.Format)
	fmt.Fprintf(&b, "Made by `%s` from the traces in `%s`: %d runs read, %d considered.\n\n", commandLine(s.opts), s.In, s.Runs, s.RunsConsidered)
	if s.ScriptedRuns > 0 {
		fmt.Fprintf(&b, "> **Scripted runs included.** %d of the runs considered are from the scripted or replay backend "+
			"(`--include-scripted`): their drafts were written by hand to exercise the pipeline, not produced by a model. "+
			"Use this export to check a training setup, not to train a model you mean to keep.\n\n", s.ScriptedRuns)
	}

	writeDrafters(&b, s)
	writeCounts(&b, s)
	b.WriteString(rowsText(s))
	writeSelection(&b, s)
	if s.Format != FormatDPO {
		writeWeighting(&b, s)
	} else {
		b.WriteString("## Groups\n\n| group | split | pairs |\n|---|---|---:|\n")
		for _, g := range s.Groups {
			fmt.Fprintf(&b, "| %s | %s | %d |\n", g.Group, g.Split, g.Pairs)
		}
		b.WriteString("\n")
	}
	writeSplitting(&b, s)

	s.Template.writeCard(&b)
	b.WriteString("## Redaction\n\n")
	fmt.Fprintf(&b, "%d secret(s) replaced by `%s`: values of environment files (in each run's repository, and shown to or written by "+
		"the model) that look like secrets, and strings shaped like API keys and tokens.\n\n", s.Redactions, redacted)

	b.WriteString("## Loading it\n\n")
	writeLoading(&b, s, files)
	writeSourceRuns(&b, s, files)
	_, err = io.WriteString(w, b.String())
	return err
}

// cardFront is the card's YAML front matter: the configs and splits the
// Hugging Face dataset viewer reads, and the tags.
func cardFront(s *Summary) (string, error) {
	front := cardYAML{PrettyName: "pyharness " + s.Format + " export", Tags: []string{"pyharness", "code", "agent"},
		TaskCategories: []string{"text-generation"}}
	cfg := cardConfig{ConfigName: "default"}
	for _, sp := range []string{SplitTrain, splitValidation, splitTest} {
		sc, ok := s.Splits[sp]
		if !ok {
			continue
		}
		p := jsonlNames[sp]
		if s.Format == FormatParquet {
			p = "data/" + sp + "-*"
		}
		cfg.DataFiles = append(cfg.DataFiles, cardDataFile{Split: sp, Path: p})
		front.DatasetInfo.Splits = append(front.DatasetInfo.Splits, cardSplit{Name: sp, NumExamples: sc.Rows})
	}
	front.Configs = []cardConfig{cfg}
	if s.Format == FormatDPO {
		front.Tags = append(front.Tags, "dpo")
	} else {
		front.Tags = append(front.Tags, "sft")
	}
	var y strings.Builder
	enc := yaml.NewEncoder(&y)
	enc.SetIndent(2)
	if err := enc.Encode(front); err != nil {
		return "", err
	}
	if err := enc.Close(); err != nil {
		return "", err
	}
	return y.String(), nil
}

// writeCounts writes the card's table of groups, pairs and rows by split.
func writeCounts(b *strings.Builder, s *Summary) {
	b.WriteString("## Counts\n\n| split | file | groups | pairs | rows |\n|---|---|---:|---:|---:|\n")
	for _, sp := range []string{SplitTrain, splitValidation, splitTest} {
		sc, ok := s.Splits[sp]
		if !ok {
			continue
		}
		f := jsonlNames[sp]
		if s.Format == FormatParquet {
			f = "data/" + sp + "-*.parquet"
		}
		fmt.Fprintf(b, "| %s | `%s` | %d | %d | %d |\n", sp, f, sc.Groups, sc.Pairs, sc.Rows)
	}
	b.WriteString("\n")
}

// writeSelection writes what made a turn a pair, the filters and forms
// the export applied, and what it left out and why.
func writeSelection(b *strings.Builder, s *Summary) {
	o := s.opts
	b.WriteString("## Selection\n\n")
	if s.Format == FormatDPO {
		b.WriteString("- chosen: a draft that parsed and was applied (or a DONE the harness accepted) in a run that worked;\n" +
			"- rejected: a different draft for the same prompt that was refused, or came from a failed run or one that stopped stuck (never chosen);\n")
	} else {
		b.WriteString("- a pair is the exact prompt a turn was sent (rebuilt from the trace and checked against its prompt hash) " +
			"and the draft that answered it;\n- the draft parsed and was applied (or was a DONE the harness accepted)")
		if o.IncludeFailedRuns {
			b.WriteString(", in a run that worked or failed (`--include-failed-runs`), never one that stopped stuck;\n")
		} else {
			b.WriteString(", in a run that worked, never one that stopped stuck;\n")
		}
	}
	fmt.Fprintf(b, "- filters: %s;\n", filterText(o))
	if o.AsWritten {
		b.WriteString("- the trained draft is written as the model wrote it (`--as-written`);\n")
	} else {
		fmt.Fprintf(b, "- the trained draft is written in the protocol's canonical form (the form the harness shows as \"Read as:\"); "+
			"%d were written otherwise by the model, whose own text is kept in `as_written`;\n", s.Rewritten)
	}
	if o.Reasoning == reasoningKeep {
		fmt.Fprintf(b, "- a trained draft's reasoning is in its message's `reasoning_content` (%d pair(s)), never in its content;\n", s.Reasoned)
	} else {
		b.WriteString("- reasoning is dropped (`--reasoning drop`);\n")
	}
	if o.KeepToolCalls {
		b.WriteString("- native tool calls kept as OpenAI-style `tool_calls` (arguments a JSON object, ids of nine letters and digits) and `tool` " +
			"messages with the `tool_call_id` of the call they answer, the harness's tools in the `tools` column (`--keep-tool-calls`).\n")
	} else {
		b.WriteString("- native tool calls rendered as the text protocol's actions, tool results as user messages.\n")
	}
	b.WriteString("\nLeft out, and why:\n\n")
	lines := append(s.RunsLeftOut.lines(runWhys), s.TurnsLeftOut.lines(turnWhys)...)
	if len(lines) == 0 {
		b.WriteString("- nothing\n")
	}
	for i, l := range lines {
		unit := "runs"
		if i >= len(s.RunsLeftOut.lines(runWhys)) {
			unit = "turns"
		}
		fmt.Fprintf(b, "- %s: %s\n", unit, l)
	}
	b.WriteString("\n")
}

// writeWeighting writes how the pairs were deduplicated and weighed, and
// each group's weight.
func writeWeighting(b *strings.Builder, s *Summary) {
	o := s.opts
	d := s.Dedupe
	b.WriteString("## Variety\n\n")
	fmt.Fprintf(b, "| selected turns | exact-unique | near-unique clusters | groups | variety ratio |\n|---:|---:|---:|---:|---:|\n| %d | %d | %d | %d | %.2f |\n\n",
		d.RawTurns, d.ExactUnique, d.Clusters, d.Groups, d.VarietyRatio)
	fmt.Fprintf(b, "Exact duplicates share an xxhash64 key over the normalised training text (confirmed byte for byte); "+
		"near-duplicates have a Jaccard similarity of %.2f or more over token %d-grams of the draft and the message it answered "+
		"(MinHash, %d bands × %d rows), within a group. One pair is kept per cluster: from a run that worked, then the newest.\n\n",
		o.Threshold, dedupe.ShingleSize, dedupe.Bands, dedupe.Rows)
	b.WriteString("## Weighting\n\n")
	fmt.Fprintf(b, "A group is a benchmark case or a dogfood task. A pair in a group of K clusters weighs s·K^(α−1) with α = %g, "+
		"at most %g (`--cap`), s chosen so the weights have mean 1 over the export: a group weighs K^α in all, so a case with many "+
		"distinct pairs does not drown the others. ", o.Alpha, o.Cap)
	if s.Format == FormatJSONL {
		fmt.Fprintf(b, "No trainer takes a per-row weight, so in `train.jsonl` a pair of weight w is written ⌊w⌋ times and once more "+
			"with probability frac(w), drawn from `--seed %d`; validation and test hold each pair once. The weight is in `meta.jsonl`.\n\n", o.Seed)
	} else {
		b.WriteString("The weight is the `weight` column, not materialised: sample or repeat by it.\n\n")
	}
	b.WriteString("| group | split | pairs | weight | rows |\n|---|---|---:|---:|---:|\n")
	for _, g := range s.Groups {
		fmt.Fprintf(b, "| %s | %s | %d | %.3f | %d |\n", g.Group, g.Split, g.Pairs, g.Weight, g.Rows)
	}
	b.WriteString("\n")
}

// writeSplitting writes how the groups were split.
func writeSplitting(b *strings.Builder, s *Summary) {
	o := s.opts
	fmt.Fprintf(b, "Splits are by group, never by turn: no case is in two splits. Groups are ordered by a hash of `--seed %d` and their name; "+
		"%g of them go to validation (at least one when there are two or more)", o.Seed, o.Valid)
	if o.Test > 0 {
		fmt.Fprintf(b, ", %g to test", o.Test)
	}
	b.WriteString(".")
	if s.Splits[splitValidation].Groups == 0 {
		fmt.Fprintf(b, " With %d group(s), there is no validation split: collect on more cases or repositories.", len(s.Groups))
	}
	b.WriteString("\n\n")
}

// writeSourceRuns writes the runs that contributed rows (the first few
// hundred) and the files of the export.
func writeSourceRuns(b *strings.Builder, s *Summary, files []string) {
	fmt.Fprintf(b, "## Source runs\n\n%d runs contributed rows:\n\n", len(s.SourceRuns))
	const most = 200
	for i, id := range s.SourceRuns {
		if i == most {
			fmt.Fprintf(b, "- … and %d more (meta.jsonl or the run_id column names every one)\n", len(s.SourceRuns)-most)
			break
		}
		fmt.Fprintf(b, "- `%s`\n", id)
	}
	b.WriteString("\nFiles: ")
	for i, f := range files {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(b, "`%s`", f)
	}
	b.WriteString(".\n")
}

func filterText(o Options) string {
	var parts []string
	add := func(flag string, vals []string) {
		if len(vals) > 0 {
			parts = append(parts, fmt.Sprintf("--%s %s", flag, strings.Join(vals, ",")))
		}
	}
	add("model", o.Models)
	add("source", o.Sources)
	add("case", o.Cases)
	var tiers []string
	for _, t := range o.Tiers {
		tiers = append(tiers, fmt.Sprint(t))
	}
	add("tier", tiers)
	add("tag", o.Tags)
	add("kind", o.Kinds)
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " ")
}

// commandLine is the export command that made the card, without paths.
func commandLine(o Options) string {
	parts := []string{"pyharness export --format " + o.Format}
	if f := filterText(o); f != "none" {
		parts = append(parts, f)
	}
	if o.IncludeScripted {
		parts = append(parts, "--include-scripted")
	}
	if o.IncludeFailedRuns {
		parts = append(parts, "--include-failed-runs")
	}
	if o.KeepToolCalls {
		parts = append(parts, "--keep-tool-calls")
	}
	if o.Format != FormatDPO {
		parts = append(parts, "--layout "+o.Layout)
	}
	if o.AsWritten {
		parts = append(parts, "--as-written")
	}
	if o.Reasoning != reasoningKeep {
		parts = append(parts, "--reasoning "+o.Reasoning)
	}
	if o.For != "" {
		parts = append(parts, "--for "+o.For)
	}
	if o.ChatTemplate != nil {
		parts = append(parts, "--chat-template "+o.ChatTemplate.Name)
	}
	parts = append(parts, fmt.Sprintf("--alpha %g --cap %g --valid %g", o.Alpha, o.Cap, o.Valid))
	if o.Test > 0 {
		parts = append(parts, fmt.Sprintf("--test %g", o.Test))
	}
	parts = append(parts, fmt.Sprintf("--seed %d", o.Seed))
	return strings.Join(parts, " ")
}

// rowsText says what a row holds and which part of it is trained.
func rowsText(s *Summary) string {
	o := s.opts
	tools := ""
	if o.KeepToolCalls {
		tools = ", and `tools`"
	}
	switch {
	case s.Format == FormatDPO:
		return "Rows are `{\"prompt\": [...], \"chosen\": [assistant], \"rejected\": [assistant]}`, TRL DPOTrainer's " +
			"conversational form. Both drafts answered the identical prompt (the same prompt hash). `meta.jsonl` names the runs " +
			"and steps of both sides.\n"
	case o.Layout == layoutMessages && s.Format == FormatParquet:
		return "Columns: `messages` (list of struct role, content, reasoning_content, weight)" + tools + ", then the provenance: `weight` (the " +
			"pair's variety weight), `case_id`, `group`, `run_id`, `step`, `source`, `model`, `verdict`, `kind`, `key`, `multiplicity`, " +
			"`cluster_turns`, `as_written`. The last message is the draft to learn, its `weight` 1; every earlier message has " +
			"`weight` 0: the earlier drafts of the context, refused ones among them, are never trained.\n"
	case o.Layout == layoutAssistantOnly && s.Format == FormatParquet:
		return "Columns: `messages` (list of struct role, content, reasoning_content, weight), then the provenance: `weight` (the " +
			"pair's variety weight), `case_id`, `group`, `run_id`, `step`, `source`, `model`, `verdict`, `kind`, `key`, `multiplicity`, " +
			"`cluster_turns`, `as_written`. " + assistantOnlyRows + "\n"
	case s.Format == FormatParquet:
		return "Columns: `prompt` and `completion` (lists of struct role, content, reasoning_content)" + tools + ", then the provenance: " +
			"`weight` (the pair's variety weight), `case_id`, `group`, `run_id`, `step`, `source`, `model`, `verdict`, `kind`, `key`, " +
			"`multiplicity`, `cluster_turns`, `as_written`. The completion is the one draft to learn; the prompt holds the context it " +
			"answered, refused drafts among it, never trained.\n"
	case o.Layout == layoutAssistantOnly:
		return "Rows are `{\"messages\": [system, user, assistant]}`. " + assistantOnlyRows + " `meta.jsonl` has one line per row, in order.\n"
	case o.Layout == layoutMessages:
		return "Rows are `{\"messages\": [...]}`" + tools + ": the system prompt first, then user and assistant alternating, the last " +
			"message the draft to learn, with `\"weight\": 1`; every earlier assistant message has `\"weight\": 0` (the earlier drafts " +
			"of the context, refused ones among them, are never trained). `meta.jsonl` has one line per row, in order.\n"
	}
	return "Rows are `{\"prompt\": [...], \"completion\": [assistant]}`" + tools + ", TRL's conversational prompt-completion: the " +
		"prompt is what the harness sent (system prompt first), the completion the one draft to learn. Earlier drafts, refused ones " +
		"among them, are in the prompt and never trained. `meta.jsonl` has one line per row, in order.\n"
}

// assistantOnlyRows says what a row of the assistant-only layout holds,
// and what it costs.
const assistantOnlyRows = "The assistant message is the draft to learn (`weight` 1), the row's only one, so a trainer that trains " +
	"every assistant message trains it alone. The system prompt is what the harness sent; everything after it, the task, the " +
	"earlier drafts as written (refused ones among them) and the harness's answers, is one user message, a transcript in which " +
	"each earlier draft follows a line `" + foldedDraft + "` and each answer a line `" + foldedAnswer + "`. No earlier draft is an " +
	"assistant message, so none is trained, in its row or in a later one. The cost: past a run's first step, the context is not " +
	"laid out as the harness sends it (there each earlier draft is an assistant turn of its own)."

// writeLoading writes the lines each trainer needs, per format and
// layout, as the trainers document them (docs/export.md cites where), and
// names the trainers that must not read the layout.
func writeLoading(b *strings.Builder, s *Summary, files []string) {
	o := s.opts
	switch {
	case s.Format == FormatDPO:
		b.WriteString("- **TRL** `DPOTrainer`: `load_dataset(\"json\", data_files={\"train\": \"train.jsonl\", \"validation\": \"valid.jsonl\"})`; " +
			"the prompt, chosen and rejected columns are its conversational preference format.\n\n")
		return
	case o.Layout == layoutPromptCompletion:
		load := "`load_dataset(\"json\", data_files={\"train\": \"train.jsonl\", \"validation\": \"valid.jsonl\"})`"
		if s.Format == FormatParquet {
			load = "`load_dataset(\"DIR\")`"
		}
		b.WriteString("- **TRL** `SFTTrainer`: " + load + "; a conversational prompt-completion dataset is trained on the completion " +
			"alone (`completion_only_loss`, on by default for it).\n" +
			"- **Unsloth**: render `prompt` with the tokenizer's chat template and `add_generation_prompt=True`, and `prompt + completion` " +
			"without it; train on the tokens after the prompt's (docs/loop.md has the script).\n\n" +
			"Do **not** give this layout to mlx-lm (its `prompt`/`completion` mode takes strings and makes them one user and one assistant " +
			"message), Axolotl, LLaMA-Factory or torchtune: export with `--layout messages` for them.\n\n")
		if o.KeepToolCalls && s.Format == FormatParquet {
			b.WriteString("The `tools` column and each message's `tool_calls` are JSON strings: `json.loads` them where the row is given to " +
				"the chat template.\n\n")
		}
		return
	}
	if o.Layout == layoutAssistantOnly {
		writeAssistantOnlyLoading(b, s, files)
		return
	}
	if s.Format == FormatJSONL {
		b.WriteString("- **mlx-lm**: `mlx_lm.lora --train --data DIR --mask-prompt` (reads `train.jsonl`, `valid.jsonl`, `test.jsonl`); " +
			"`--mask-prompt` trains the last message only, the draft.\n" +
			"- **Axolotl**: `datasets: [{path: DIR/train.jsonl, ds_type: json, type: chat_template, field_messages: messages, " +
			"message_field_training: weight}]`: each message's weight decides whether it is trained.\n\n" +
			"**LLaMA-Factory** needs an entry in `dataset_info.json`:\n\n```json\n" +
			"{\n  \"pyharness\": {\n    \"file_name\": \"train.jsonl\",\n    \"formatting\": \"sharegpt\",\n" +
			"    \"columns\": {\"messages\": \"messages\"},\n    \"tags\": {\"role_tag\": \"role\", \"content_tag\": \"content\", " +
			"\"user_tag\": \"user\", \"assistant_tag\": \"assistant\", \"system_tag\": \"system\"}\n  }\n}\n```\n\n" +
			"with `mask_history: true`, which trains the last turn only.\n\n" +
			"**torchtune**, with a release whose chat dataset takes a masking strategy:\n\n```yaml\ndataset:\n  _component_: torchtune.datasets.chat_dataset\n" +
			"  source: json\n  data_files: train.jsonl\n  conversation_column: messages\n  conversation_style: openai\n" +
			"  masking_strategy: train_on_last\n  split: train\n```\n\n")
	} else {
		var train []string
		for _, f := range files {
			if strings.HasPrefix(f, "data/"+SplitTrain+"-") {
				train = append(train, f)
			}
		}
		shard := "data/train-00000-of-00001.parquet"
		if len(train) > 0 {
			shard = train[0]
		}
		b.WriteString("- **Hugging Face `datasets`**: `load_dataset(\"DIR\")` reads the splits from the `configs` above.\n" +
			"- **Axolotl**: `datasets: [" + axolotlEntries(train) + "]`.\n\n" +
			"**LLaMA-Factory** (`dataset_info.json`; one entry per training shard), with `mask_history: true`:\n\n```json\n" +
			"{\n  \"pyharness\": {\n    \"file_name\": \"" + shard + "\",\n    \"formatting\": \"sharegpt\",\n" +
			"    \"columns\": {\"messages\": \"messages\"},\n    \"tags\": {\"role_tag\": \"role\", \"content_tag\": \"content\", " +
			"\"user_tag\": \"user\", \"assistant_tag\": \"assistant\", \"system_tag\": \"system\"}\n  }\n}\n```\n\n" +
			"**torchtune**, with a release whose chat dataset takes a masking strategy:\n\n```yaml\ndataset:\n  _component_: torchtune.datasets.chat_dataset\n  source: parquet\n" +
			"  data_dir: DIR/data\n  conversation_column: messages\n  conversation_style: openai\n  masking_strategy: train_on_last\n  split: train\n```\n\n")
		if o.KeepToolCalls {
			b.WriteString("The `tools` column and each message's `tool_calls` are JSON strings, which Axolotl does not take: for tool calls, " +
				"give it the JSONL export.\n\n")
		}
	}
	b.WriteString("Do **not** train this layout with TRL's `assistant_only_loss` or Unsloth's `train_on_responses_only`: both train every " +
		"assistant message and ignore the weights, refused drafts among them. Export with `--layout prompt-completion` for them.\n\n")
}

// writeAssistantOnlyLoading writes the trainer lines of the
// assistant-only layout: the trainers that train every assistant message.
func writeAssistantOnlyLoading(b *strings.Builder, s *Summary, files []string) {
	load, qvac, axolotl := "`load_dataset(\"json\", data_files={\"train\": \"train.jsonl\", \"validation\": \"valid.jsonl\"})`",
		"- **QVAC Fabric** `llama-finetune-lora --assistant-loss-only` on `train.jsonl` (it finds the assistant turns by their ChatML "+
			"or Gemma markers).\n",
		"{path: DIR/train.jsonl, ds_type: json, type: chat_template, field_messages: messages}"
	if s.Format == FormatParquet {
		load, qvac = "`load_dataset(\"DIR\")`", ""
		var train []string
		for _, f := range files {
			if strings.HasPrefix(f, "data/"+SplitTrain+"-") {
				train = append(train, "{path: DIR/"+f+", ds_type: parquet, type: chat_template, field_messages: messages}")
			}
		}
		axolotl = strings.Join(train, ", ")
	}
	b.WriteString("For trainers that train every assistant message of a row, each trains the draft alone here:\n\n" +
		"- **TRL** `SFTTrainer` with `assistant_only_loss=True`: " + load + "; the chat template needs its `{% generation %}` markers.\n" +
		"- **Unsloth**: `train_on_responses_only` with the template's user and assistant headers as `instruction_part` and " +
		"`response_part`.\n" + qvac +
		"- **Axolotl**: `datasets: [" + axolotl + "]`, its default `roles_to_train: [assistant]`.\n" +
		"- **torchtune**: the OpenAI-style chat dataset with its default `masking_strategy: train_on_assistant`.\n" +
		"- **mlx-lm** (JSONL): `mlx_lm.lora --train --data DIR --mask-prompt`.\n\n" +
		"Where a trainer can train the completion alone (TRL without `assistant_only_loss`) or reads a per-message flag (Axolotl's " +
		"`message_field_training`, mlx-lm's `--mask-prompt`), `--layout prompt-completion` or `--layout messages` keep the context as " +
		"the harness sends it.\n\n")
}

// axolotlEntries is one Axolotl dataset entry per training shard.
func axolotlEntries(shards []string) string {
	var out []string
	for _, sh := range shards {
		out = append(out, "{path: DIR/"+sh+", ds_type: parquet, type: chat_template, field_messages: messages, message_field_training: weight}")
	}
	return strings.Join(out, ", ")
}

// writeDrafters says which models wrote the drafts and which model the
// export is meant for: a teacher's drafts train a student that was never
// sent these prompts, and the card must not let that pass unsaid.
func writeDrafters(b *strings.Builder, s *Summary) {
	side := "drafts"
	if s.Format == FormatDPO {
		side = "chosen drafts"
	}
	fmt.Fprintf(b, "## Who wrote the %s\n\n| model | pairs | num_ctx of its runs |\n|---|---:|---:|\n", side)
	for _, d := range s.Drafters {
		fmt.Fprintf(b, "| `%s` | %d | %d |\n", d.Model, d.Pairs, d.NumCtx)
	}
	b.WriteString("\n")
	if s.opts.For == "" {
		b.WriteString("No `--for` was given: the card does not say which model this export is meant to train.\n\n")
		return
	}
	whom, own := forWhom(s.opts.For, s.Drafters)
	fmt.Fprintf(b, "**Meant for `%s`** (`--for`): %s.", s.opts.For, whom)
	if !own {
		b.WriteString(" The prompts are the ones the harness built for the drafting model, within its context window (num_ctx above); " +
			"run the student with a `--num-ctx` at least as large, and train with a sequence length that holds the longest row, " +
			"or it learns from prompts it will never be sent.")
	}
	b.WriteString("\n\n")
}
