package loop

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/pyharness/pyharness/export"
	"github.com/pyharness/pyharness/export/rawtext"
)

// The stages, in the order they run.
const (
	stageBenchBase    = "bench-base"
	stageExport       = "export"
	stageTrain        = "train"
	stageImport       = "import"
	stageBenchTrained = "bench-trained"
	stageCompare      = "compare"
)

// stageOrder lists the stages in order.
var stageOrder = []string{stageBenchBase, stageExport, stageTrain, stageImport, stageBenchTrained, stageCompare}

// after names the stages whose output a stage reads: when one of them is
// run again, so is the stage.
var after = map[string][]string{
	stageTrain:        {stageExport},
	stageImport:       {stageTrain},
	stageBenchTrained: {stageImport},
	stageCompare:      {stageBenchBase, stageBenchTrained},
}

// Bencher benches a model, writing its traces under out; it is
// `pyharness bench` with the loop's bench options.
type Bencher func(ctx context.Context, t Target, out string) error

// Target is the model a bench asks: an Ollama model by name, or, when URL
// is set, the model of the llama-server answering there (its
// OpenAI-compatible API), under the name Model.
type Target struct {
	Model string
	URL   string
}

// How the import stage serves the student.
const (
	// ImportOllama creates the student in Ollama (the default).
	ImportOllama = "ollama"
	// importLlamaServer starts llama-server with the base and the
	// trained adapter (--lora) and benches it there.
	importLlamaServer = "llama-server"
)

// Data is what the train command's {data} is.
type Data string

const (
	// DataJSONL: the export's directory ({"messages": …} rows in
	// train.jsonl and valid.jsonl), for trainers that apply the chat
	// template themselves (mlx-lm, TRL, Unsloth, Axolotl).
	DataJSONL Data = "jsonl"
	// DataPlain: one text file of rendered rows (llama-finetune -f).
	DataPlain Data = "plain"
	// dataTextJSONL: a directory of {"text": …} rows (mlx-lm's text format).
	dataTextJSONL Data = "text-jsonl"
)

// Options are the loop's inputs.
type Options struct {
	// Out is the loop's directory: a directory per stage and loop.json.
	Out string
	// Base is the base model's name in Ollama, benched first.
	Base string
	// BaseFile is what the train command's {base} stands for: the base's
	// weights as the trainer reads them (a GGUF file for llama-finetune).
	BaseFile string
	// Student is the name the trained model is created under in Ollama.
	Student string
	// Teacher is the trace directory of the teacher's runs.
	Teacher string
	// Export holds the export's filters and weights; In, Out, Format and
	// For are set by the loop.
	Export export.Options
	// Data is the layout of {data}.
	Data Data
	// Renderer renders rows for the text layouts; nil means the base
	// model's own Ollama template (what Ollama prompts it with).
	Renderer rawtext.Renderer
	// Train is the train command, a shell command line with {data},
	// {base} and {out} or {adapter} (a LoRA adapter GGUF).
	Train string
	// Import is how the student is served: ImportOllama ("" too) or
	// importLlamaServer.
	Import string
	// Serve, for importLlamaServer, is the command that starts the
	// server: a shell command line with {base} and {adapter}, run in the
	// background for the trained model's bench; StudentURL is where it
	// answers (http://HOST:PORT) and ServeWait how long it may take to
	// answer (default two minutes).
	Serve      string
	StudentURL string
	ServeWait  time.Duration
	// Ollama is the client of the server the models are benched on and
	// the trained model is imported into.
	Ollama *api.Client
	// Host is that server's address, for messages.
	Host  string
	Bench Bencher
	// Alpha is the significance level of the paired test.
	Alpha float64
	Now   func() time.Time
	// Log receives a line per stage and what the stages print.
	Log io.Writer

	// srv is the server the loop started for importLlamaServer.
	srv *server
}

// Result is what the loop leaves for the caller to print.
type Result struct {
	State *State
	// Ran and Skipped list the stages run now and those found done.
	Ran, Skipped []string
}

// Paths of each stage's output, relative to Out.
const (
	benchBaseDir    = "bench-base"
	benchTrainedDir = "bench-trained"
	exportDir       = "export"
	textDir         = "text"
	trainDir        = "train"
	importDir       = "import"
	compareFile     = "compare.txt"
	trainOutput     = "output"
	trainAdapter    = "adapter.gguf"
	trainLog        = "train.log"
)

func (o *Options) path(rel ...string) string {
	return filepath.Join(append([]string{o.Out}, rel...)...)
}

// dataPath is what {data} stands for.
func (o *Options) dataPath() string {
	switch o.Data {
	case DataPlain:
		return o.path(textDir, string(rawtext.Plain), rawtext.FileName(rawtext.Plain, "train"))
	case dataTextJSONL:
		return o.path(textDir, string(rawtext.TextJSONL))
	}
	return o.path(exportDir)
}

// inputs are the options each stage's output depends on.
func (o *Options) inputs() map[string]string {
	in := map[string]string{
		stageBenchBase: "base=" + o.Base,
		stageExport: fmt.Sprintf("teacher=%s for=%s data=%s layout=%s models=%v sources=%v cases=%v tiers=%v tags=%v kinds=%v failed=%v scripted=%v alpha=%g cap=%g valid=%g seed=%d",
			o.Teacher, o.Base, o.Data, o.Export.Layout, o.Export.Models, o.Export.Sources, o.Export.Cases, o.Export.Tiers, o.Export.Tags, o.Export.Kinds,
			o.Export.IncludeFailedRuns, o.Export.IncludeScripted, o.Export.Alpha, o.Export.Cap, o.Export.Valid, o.Export.Seed),
		stageTrain:        fmt.Sprintf("train=%s base-file=%s", o.Train, o.BaseFile),
		stageImport:       fmt.Sprintf("student=%s from=%s", o.Student, o.Base),
		stageBenchTrained: "student=" + o.Student,
		stageCompare:      fmt.Sprintf("alpha=%g", o.Alpha),
	}
	if o.Data != DataJSONL && o.Renderer != nil {
		in[stageExport] += " template=" + o.Renderer.Name()
	}
	if o.Import == importLlamaServer {
		in[stageImport] += fmt.Sprintf(" import=llama-server serve=%s url=%s", o.Serve, o.StudentURL)
		in[stageBenchTrained] += " url=" + o.StudentURL
	}
	return in
}

// Validate checks the options before anything runs.
func (o *Options) Validate() error {
	var errs []error
	need := func(v, flag string) {
		if strings.TrimSpace(v) == "" {
			errs = append(errs, fmt.Errorf("%s is required", flag))
		}
	}
	need(o.Out, "--out")
	need(o.Base, "--base")
	need(o.Teacher, "--teacher")
	need(o.Train, "--train")
	need(o.Student, "--student")
	if o.Student != "" && o.Student == o.Base {
		errs = append(errs, fmt.Errorf("--student %s is the base model's name: the import would replace the base", o.Student))
	}
	switch o.Data {
	case DataJSONL, DataPlain, dataTextJSONL:
	default:
		errs = append(errs, fmt.Errorf("--data %q: want jsonl, plain or text-jsonl", o.Data))
	}
	if o.Train != "" {
		if _, err := parseTrain(o.Train); err != nil {
			errs = append(errs, err)
		}
		if strings.Contains(o.Train, "{base}") && o.BaseFile == "" {
			errs = append(errs, errors.New("--train uses {base}: --base-file must say what it is (the base's weights as the trainer reads them)"))
		}
	}
	switch o.Import {
	case "", ImportOllama:
		if o.Serve != "" || o.StudentURL != "" {
			errs = append(errs, errors.New("--serve and --student-url are for --import llama-server"))
		}
	case importLlamaServer:
		if !strings.Contains(o.Train, "{adapter}") {
			errs = append(errs, errors.New("--import llama-server serves the base with the trained adapter: --train must write a LoRA adapter GGUF to {adapter}"))
		}
		if !strings.Contains(o.Serve, "{adapter}") {
			errs = append(errs, fmt.Errorf("--serve %q has no {adapter}: the server must load the trained adapter (llama-server -m {base} --lora {adapter} --port PORT ...)", o.Serve))
		}
		if strings.Contains(o.Serve, "{base}") && o.BaseFile == "" {
			errs = append(errs, errors.New("--serve uses {base}: --base-file must say what it is (the base's GGUF)"))
		}
		if !strings.HasPrefix(o.StudentURL, "http://") && !strings.HasPrefix(o.StudentURL, "https://") {
			errs = append(errs, fmt.Errorf("--student-url %q: want the started server's address, http://HOST:PORT", o.StudentURL))
		}
	default:
		errs = append(errs, fmt.Errorf("--import %q: want ollama or llama-server", o.Import))
	}
	return errors.Join(errs...)
}

// Run runs every stage not found done, in order, and writes the
// comparison and the before/after table to w.
func Run(ctx context.Context, o Options, w io.Writer) (*Result, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	st, err := readState(o.Out)
	if err != nil {
		return nil, err
	}
	defer o.stopServer()
	inputs := o.inputs()
	plan := planStages(st, inputs, func(stage string) bool { return o.outputExists(ctx, stage) })
	if err := o.preflight(ctx, plan); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, fmt.Errorf("loop: %w", err)
	}
	res := &Result{State: st}
	if st.Inputs == nil {
		st.Inputs = map[string]string{}
	}
	for _, name := range stageOrder {
		if !plan[name] {
			fmt.Fprintf(o.Log, "loop: %s: done before (%s), skipped\n", name, st.Stages[name].Ended.Format(time.RFC3339))
			res.Skipped = append(res.Skipped, name)
			continue
		}
		fmt.Fprintf(o.Log, "loop: %s ...\n", name)
		ss := &StageState{Status: stageRunning, Started: o.Now().UTC()}
		st.Stages[name] = ss
		st.Inputs[name] = inputs[name]
		if err := st.write(o.Out); err != nil {
			return res, err
		}
		notes, err := o.runStage(ctx, name, st, ss, w)
		ss.Ended = o.Now().UTC()
		ss.Seconds = ss.Ended.Sub(ss.Started).Seconds()
		ss.Notes = notes
		if err != nil {
			ss.Status, ss.Error = failed, err.Error()
			if werr := st.write(o.Out); werr != nil {
				err = errors.Join(err, werr)
			}
			return res, fmt.Errorf("loop: %s: %w", name, err)
		}
		ss.Status = stageDone
		if err := st.write(o.Out); err != nil {
			return res, err
		}
		for _, n := range notes {
			fmt.Fprintf(o.Log, "loop: %s: %s\n", name, n)
		}
		fmt.Fprintf(o.Log, "loop: %s done in %s\n", name, time.Duration(ss.Seconds*float64(time.Second)).Round(time.Second))
		res.Ran = append(res.Ran, name)
	}
	return res, nil
}

// planStages says which stages run: those not recorded done, those whose
// inputs changed or whose output is gone, and those after a stage that
// runs and whose output they read. Compare always runs: it is cheap and
// prints the result.
func planStages(st *State, inputs map[string]string, exists func(stage string) bool) map[string]bool {
	plan := map[string]bool{}
	for _, name := range stageOrder {
		ss := st.Stages[name]
		run := ss == nil || ss.Status != stageDone || st.Inputs[name] != inputs[name] || name == stageCompare || !exists(name)
		for _, dep := range after[name] {
			run = run || plan[dep]
		}
		plan[name] = run
	}
	return plan
}

// outputExists reports whether a stage recorded done still has its output:
// a directory removed by hand, or a model deleted from Ollama, is made
// again.
func (o *Options) outputExists(ctx context.Context, stage string) bool {
	is := func(rel ...string) bool {
		_, err := os.Stat(o.path(rel...))
		return err == nil
	}
	switch stage {
	case stageBenchBase:
		return is(benchBaseDir, "runs")
	case stageBenchTrained:
		return is(benchTrainedDir, "runs")
	case stageExport:
		return is(exportDir, "train.jsonl") && (o.Data == DataJSONL || is(textDir, "README.md"))
	case stageTrain:
		c, err := parseTrain(o.Train)
		if err != nil {
			return false
		}
		return (!c.writesOut() || is(trainDir, trainOutput)) && (!c.writesAdapter() || is(trainDir, trainAdapter))
	case stageImport:
		if o.Import == importLlamaServer {
			// The server is started again when the bench needs it.
			return is(importDir, serveScript)
		}
		if !is(importDir, "Modelfile") {
			return false
		}
		if o.Ollama == nil {
			return true
		}
		_, err := o.Ollama.Show(ctx, &api.ShowRequest{Model: o.Student})
		var se api.StatusError
		return !(errors.As(err, &se) && se.StatusCode == 404)
	}
	return true
}

func (o *Options) runStage(ctx context.Context, name string, st *State, ss *StageState, w io.Writer) ([]string, error) {
	switch name {
	case stageBenchBase:
		return nil, o.bench(ctx, Target{Model: o.Base}, benchBaseDir)
	case stageExport:
		return o.export(ctx)
	case stageTrain:
		return o.train(ctx)
	case stageImport:
		return o.importModel(ctx, ss)
	case stageBenchTrained:
		t := Target{Model: o.Student}
		if o.Import == importLlamaServer {
			if err := o.ensureServer(ctx); err != nil {
				return nil, err
			}
			t.URL = o.StudentURL
		}
		return nil, o.bench(ctx, t, benchTrainedDir)
	case stageCompare:
		return nil, o.compare(ctx, st, w)
	}
	return nil, fmt.Errorf("unknown stage %q", name)
}

// fresh empties a stage's directory: a stage is redone from scratch, never
// on top of what a killed run of it left.
func (o *Options) fresh(rel string) (string, error) {
	dir := o.path(rel)
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	return dir, os.MkdirAll(dir, 0o755)
}

func (o *Options) bench(ctx context.Context, t Target, rel string) error {
	dir, err := o.fresh(rel)
	if err != nil {
		return err
	}
	return o.Bench(ctx, t, dir)
}

func (o *Options) export(ctx context.Context) ([]string, error) {
	dir, err := o.fresh(exportDir)
	if err != nil {
		return nil, err
	}
	if err := os.RemoveAll(o.path(textDir)); err != nil {
		return nil, err
	}
	eo := o.Export
	eo.In, eo.Out, eo.Format, eo.For = o.Teacher, dir, export.FormatJSONL, "ollama:"+o.Base
	sum, err := export.Run(ctx, eo, o.Log)
	if err != nil {
		return nil, err
	}
	notes := []string{fmt.Sprintf("%d training row(s) from %d run(s) of %s", sum.Splits[export.SplitTrain].Rows, sum.RunsConsidered, o.Teacher)}
	if o.Data == DataJSONL {
		return notes, nil
	}
	r := o.Renderer
	if r == nil {
		if r, err = o.ollamaTemplate(ctx); err != nil {
			return nil, err
		}
	}
	ts, err := rawtext.Write(ctx, dir, o.path(textDir), r, rawtext.Layouts)
	if err != nil {
		return nil, err
	}
	notes = append(notes, fmt.Sprintf("rendered through %s into %s", ts.Template, o.path(textDir)))
	if ts.EarlierDrafts > 0 {
		notes = append(notes, fmt.Sprintf("%d row(s) hold earlier drafts in their context: a raw-text trainer learns every token, those drafts too", ts.EarlierDrafts))
	}
	return notes, nil
}

// ollamaTemplate is the base model's own template, as Ollama reports it.
func (o *Options) ollamaTemplate(ctx context.Context) (rawtext.Renderer, error) {
	show, err := o.Ollama.Show(ctx, &api.ShowRequest{Model: o.Base})
	if err != nil {
		return nil, fmt.Errorf("ask Ollama for the template of %s: %w", o.Base, err)
	}
	params := parseParameters(show.Parameters)
	var stop string
	if s, ok := params["stop"].([]string); ok && len(s) > 0 {
		stop = s[0]
	}
	return rawtext.NewOllamaTemplate(o.Base, show.Template, stop)
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
