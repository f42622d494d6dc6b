package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pyharness/pyharness/collect"
	"github.com/pyharness/pyharness/collect/bench"
	"github.com/pyharness/pyharness/collect/loop"
	"github.com/pyharness/pyharness/datasets"
	"github.com/pyharness/pyharness/export"
	"github.com/pyharness/pyharness/export/rawtext"
	"github.com/pyharness/pyharness/harness"
	"github.com/pyharness/pyharness/harness/chattemplate"
	"github.com/pyharness/pyharness/harness/model/ollama"
	"github.com/pyharness/pyharness/schemas"
)

type loopOptions struct {
	opts    loop.Options
	data    string
	repeat  int
	tier    int
	cases   []string
	jobs    int
	python  string
	steps   int
	stuck   int
	model   modelFlags
	teacher export.Options
	seed    uint64
	// chatTemplate is the student's chat template, for the text layouts.
	chatTemplate string
}

func newLoopCmd(a *app) *cobra.Command {
	o := loopOptions{teacher: export.DefaultOptions()}
	cmd := &cobra.Command{
		Use:   "loop",
		Short: "Bench a base model, train it on a teacher's worked runs with your trainer, import it into Ollama, bench again and compare",
		Long: `Runs the fine-tuning loop as one job, each stage in its own directory under
--out, recorded in --out/loop.json:

  bench-base     pyharness bench of --base (an Ollama model)
  export         the --teacher traces' worked runs, exported for the base
                 (--data plain or text-jsonl: rendered for a raw-text
                 trainer through --chat-template FILE, or else the base's
                 own Ollama template)
  train          the --train command, a shell command line in which {data},
                 {base} and {out} stand for the export, --base-file and the
                 file or directory the trained model must be written to;
                 or {adapter}, where a LoRA trainer writes its adapter GGUF
                 (train/adapter.gguf); its output is kept in train/train.log
  import         {out} created in Ollama as --student (a GGUF model with the
                 base's template and parameters, or an adapter on the base:
                 FROM --base, ADAPTER {adapter}); keys Ollama misreads (a
                 pooling key) are removed from a copy and named. With
                 --import llama-server, the --serve command is started
                 instead ({base} and {adapter} filled in: llama-server -m
                 {base} --lora {adapter} ...) and, once --student-url
                 lists the adapter at GET /lora-adapters, benched there
  bench-trained  pyharness bench of --student
  compare        bench compare of the two, and a before/after table

Run again, the loop skips every stage recorded done with the same inputs and
redoes one that was killed or failed, and every stage after it that reads its
output. Before any stage it names what is missing: the trainer's program, an
Ollama server, the base model, an F32 base for llama-finetune.

Example (llama.cpp's trainer on a small F32 model; docs/loop.md):

  pyharness loop --base tiny --base-file tiny.gguf --teacher teacher \
    --data plain --train 'llama-finetune -m {base} -f {data} -c 256 && mv finetuned-model.gguf {out}'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runLoop(cmd.Context(), a, o)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.opts.Out, "out", "pyharness-loop", "the loop's directory: a directory per stage and loop.json")
	fs.StringVar(&o.opts.Base, "base", "", "the base model in Ollama (NAME or ollama:NAME), benched first")
	fs.StringVar(&o.opts.BaseFile, "base-file", "", "what {base} stands for: the base's weights as the trainer reads them (an F32 GGUF for llama-finetune, a Hugging Face id for others)")
	fs.StringVar(&o.opts.Student, "student", "", "the name the trained model is created under in Ollama (default BASE-loop)")
	fs.StringVar(&o.opts.Teacher, "teacher", "", "the teacher's trace directory")
	fs.StringVar(&o.opts.Train, "train", "", "the train command: a shell command line with {data}, {base}, and {out} or {adapter} (a LoRA adapter GGUF)")
	fs.StringVar(&o.opts.Import, "import", loop.ImportOllama, "how the student is served: ollama (created as --student) or llama-server (--serve started with the adapter)")
	fs.StringVar(&o.opts.Serve, "serve", "", "with --import llama-server: the command that serves the base with the adapter, with {base} and {adapter} (llama-server -m {base} --lora {adapter} --port 8081 --jinja)")
	fs.StringVar(&o.opts.StudentURL, "student-url", "", "with --import llama-server: where the --serve command's server answers (http://127.0.0.1:8081)")
	fs.StringVar(&o.data, "data", "", "what {data} is: jsonl (the export's directory), plain (one text file of rendered rows, for llama-finetune) or text-jsonl (a directory of {\"text\"} rows, for mlx-lm); default plain for llama-finetune, jsonl otherwise")
	fs.StringVar(&o.chatTemplate, "chat-template", "", "the student's chat template (.jinja, tokenizer_config.json or GGUF) that --data plain and text-jsonl render rows through, and the export checks rows against; default: the base's own Ollama template")
	fs.Float64Var(&o.opts.Alpha, "alpha", 0.05, "significance level of the paired test")
	fs.IntVar(&o.repeat, "repeat", 5, "bench: passes over the cases")
	fs.IntVar(&o.tier, "tier", 0, "bench: only this tier")
	fs.StringArrayVar(&o.cases, "case", nil, "bench: only this case (repeatable)")
	fs.IntVar(&o.jobs, "jobs", 1, "bench: runs at once")
	fs.StringVar(&o.python, "python", "", "bench: the Python interpreter")
	fs.IntVar(&o.steps, "steps", harness.DefaultMaxSteps, "bench: the step budget of each run")
	registerStuckAfter(cmd, &o.stuck, "bench: ")
	fs.StringArrayVar(&o.teacher.Models, "teacher-model", nil, "export: only the teacher runs of this model (repeatable)")
	fs.StringArrayVar(&o.teacher.Sources, "teacher-source", nil, "export: only runs of this source: bench, dogfood, adhoc (repeatable)")
	fs.StringArrayVar(&o.teacher.Tags, "teacher-tag", nil, "export: only runs carrying this tag (repeatable)")
	fs.StringVar(&o.teacher.Layout, "layout", o.teacher.Layout, "export: the rows of --data jsonl, prompt-completion (TRL, Unsloth), messages (mlx-lm --mask-prompt, Axolotl) or assistant-only (trainers of every assistant message: TRL assistant_only_loss, Unsloth train_on_responses_only, QVAC --assistant-loss-only)")
	fs.BoolVar(&o.teacher.IncludeFailedRuns, "include-failed-runs", false, "export: take applied drafts from failed runs too")
	fs.BoolVar(&o.teacher.IncludeScripted, "include-scripted", false, "export: take runs of the scripted and replay backends (drafts written by hand)")
	fs.Uint64Var(&o.seed, "export-seed", 0, "export: seed of the splits and the fractional copies")
	o.model.register(cmd)
	cmd.Flags().Lookup("model").Hidden = true // the models are --base and --student
	return cmd
}

// loopData picks {data}'s layout: llama-finetune reads one plain file.
func loopData(flag, train string) loop.Data {
	if flag != "" {
		return loop.Data(flag)
	}
	if f := strings.Fields(train); len(f) > 0 && filepath.Base(f[0]) == "llama-finetune" {
		return loop.DataPlain
	}
	return loop.DataJSONL
}

// studentName is BASE-loop, the tag left out (tiny:latest → tiny-loop).
func studentName(base string) string {
	name, _, _ := strings.Cut(base, ":")
	return name + "-loop"
}

func runLoop(ctx context.Context, a *app, lo loopOptions) error {
	o := lo.opts
	o.Base = strings.TrimPrefix(o.Base, schemas.BackendOllama+":")
	if o.Student == "" && o.Base != "" {
		o.Student = studentName(o.Base)
	}
	o.Data = loopData(lo.data, o.Train)
	o.Export = lo.teacher
	o.Export.Seed = lo.seed
	if lo.chatTemplate != "" {
		tmpl, err := chattemplate.Load(lo.chatTemplate)
		if err != nil {
			return &exitError{code: exitUsage, msg: "loop: " + err.Error()}
		}
		o.Export.ChatTemplate, o.Renderer = tmpl, rawtext.Jinja{T: tmpl}
	}
	if err := o.Validate(); err != nil {
		return &exitError{code: exitUsage, msg: "loop: " + err.Error()}
	}
	if l := o.Export.Layout; !slices.Contains(export.Layouts, l) {
		return &exitError{code: exitUsage, msg: fmt.Sprintf("loop: --layout %q: want prompt-completion, messages or assistant-only", l)}
	}
	if lo.repeat < 1 {
		return &exitError{code: exitUsage, msg: "loop: --repeat must be at least 1"}
	}
	if err := checkStuckAfter(lo.stuck); err != nil {
		return &exitError{code: exitUsage, msg: "loop: " + err.Error()}
	}
	if err := lo.model.check(); err != nil {
		return &exitError{code: exitUsage, msg: "loop: " + err.Error()}
	}
	all, err := datasets.Cases()
	if err != nil {
		return err
	}
	cases, err := selectCases(all, lo.tier, lo.cases)
	if err != nil {
		return &exitError{code: exitUsage, msg: "loop: " + err.Error()}
	}
	client, err := ollama.New(ollama.Config{Host: lo.model.baseURL, Model: o.Base, Retry: a.retry})
	if err != nil {
		return &exitError{code: exitUsage, msg: "loop: " + err.Error()}
	}
	o.Ollama, o.Host = client.API(), client.Host()
	o.Now, o.Log = a.now, a.stderr
	o.Bench = func(ctx context.Context, t loop.Target, out string) error {
		return loopBench(ctx, a, lo, cases, t, out)
	}
	_, err = loop.Run(ctx, o, a.stdout)
	var missing *loop.MissingError
	if errors.As(err, &missing) {
		return &exitError{code: exitPreflight, msg: "loop: " + err.Error()}
	}
	return err
}

// loopBench is `pyharness bench --model ollama:NAME --out OUT` with the
// loop's bench flags, or `--model openai:NAME --base-url URL/v1` for a
// llama-server the loop started; its report goes to stderr and
// OUT/report.txt.
func loopBench(ctx context.Context, a *app, lo loopOptions, cases []datasets.Case, t loop.Target, out string) error {
	name := t.Model
	f := lo.model
	f.spec = schemas.Model{Backend: schemas.BackendOllama, Name: name}.Spec()
	// The student's template is the base's: its calls are read with it.
	f.chatTemplate = lo.chatTemplate
	spec := modelSpec{backend: schemas.BackendOllama, arg: name}
	if t.URL != "" {
		f.spec = schemas.Model{Backend: schemas.BackendOpenAI, Name: name}.Spec()
		f.baseURL = strings.TrimRight(t.URL, "/") + "/v1"
		spec = modelSpec{backend: schemas.BackendOpenAI, arg: name}
	}
	factory, pre, err := benchModel(ctx, a, spec, &f, lo.python, out)
	if err != nil {
		return err
	}
	if pre != nil {
		pre.Write(a.stderr)
		if pre.Failed() {
			return fmt.Errorf("the pre-flight of %s failed; nothing was run", name)
		}
	}
	bar := newProgress(a, "bench "+name)
	outcomes, err := bench.Run(ctx, collect.Options{
		Cases: cases, Passes: lo.repeat, Jobs: lo.jobs, OutDir: out, Model: factory, Options: f.options(),
		Python: lo.python, MaxSteps: lo.steps, StuckAfter: stuckLimit(lo.stuck), Now: a.now, Progress: bar.update,
	})
	bar.finish()
	if err != nil {
		return err
	}
	rep := bench.NewReport(outcomes, len(cases), lo.repeat)
	report, err := os.Create(filepath.Join(out, "report.txt"))
	if err != nil {
		return err
	}
	defer report.Close()
	rep.WriteText(io.MultiWriter(report, a.stderr))
	return nil
}
