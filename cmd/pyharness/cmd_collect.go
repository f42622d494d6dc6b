package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pyharness/pyharness/collect"
	"github.com/pyharness/pyharness/datasets"
	"github.com/pyharness/pyharness/harness"
	"github.com/pyharness/pyharness/harness/chattemplate"
	"github.com/pyharness/pyharness/harness/model/scripted"
	"github.com/pyharness/pyharness/harness/preflight"
	"github.com/pyharness/pyharness/harness/suite"
	"github.com/pyharness/pyharness/schemas"
)

type collectOptions struct {
	bench       bool
	manifest    string
	passes      int
	jobs        int
	shard       string
	resume      bool
	skipBad     bool
	out         string
	python      string
	steps       int
	stuck       int
	fixedSeed   bool
	ollamaHosts []string
	tier        int
	cases       []string
	model       modelFlags
}

func newCollectCmd(a *app) *cobra.Command {
	opts := collectOptions{}
	isolate := false
	cmd := &cobra.Command{
		Use:   "collect",
		Short: "Run the benchmark and dogfood repositories for N passes, keeping every turn",
		Long: `Runs every (item × pass) of the plan — the benchmark cases (--bench, the
default when no --manifest is given) and every entry of a dogfood manifest — as
a recorded run under OUT/runs/, a bounded number at a time, with a progress bar,
a plan file OUT/collect.json, and resume: a run is complete when its trace ends
with a run_end whose stop reason is neither cancelled nor model-error; --resume
redoes every other planned run as a new attempt file. --shard k/n runs the k-th
of n disjoint parts of the same plan (merge shards by copying directories).
collect exits 0 only when every planned run of its shard is complete.` + exitCodesHelp(),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			k, n, err := parseShard(opts.shard)
			if err != nil {
				return &exitError{code: exitUsage, msg: err.Error()}
			}
			ctx := cmd.Context()
			if isolate {
				ctx = suite.WithIsolation(ctx)
			}
			// The key's variable never reaches a suite, whatever its name.
			ctx = suite.WithSecrets(ctx, opts.model.apiKeyEnv)
			return runCollect(ctx, a, opts, k, n)
		},
	}
	fs := cmd.Flags()
	fs.BoolVar(&opts.bench, "bench", false, "collect on the benchmark cases (the default without --manifest)")
	fs.StringVar(&opts.manifest, "manifest", "", "a dogfood manifest (YAML) of repositories and tasks")
	fs.IntVar(&opts.passes, "passes", 4, "passes over every item")
	fs.IntVar(&opts.jobs, "jobs", 0, "runs at once (default 1 per Ollama host, 2 for scripted)")
	fs.StringVar(&opts.shard, "shard", "", "run shard k of n of the plan, as k/n")
	fs.BoolVar(&opts.resume, "resume", false, "finish a collection: redo every planned run that is not complete")
	fs.BoolVar(&opts.skipBad, "skip-bad", false, "run the good manifest entries when some are bad")
	fs.StringVar(&opts.out, "out", defaultOut, "output directory")
	fs.StringVar(&opts.python, "python", "", "the Python interpreter")
	fs.IntVar(&opts.steps, "steps", harness.DefaultMaxSteps, "the step budget of each run")
	registerStuckAfter(cmd, &opts.stuck, "")
	fs.BoolVar(&opts.fixedSeed, "fixed-seed", false, "send the same seed in every pass (default: --seed + pass)")
	fs.IntVar(&opts.tier, "tier", 0, "collect on the benchmark cases of this tier only")
	fs.StringArrayVar(&opts.cases, "case", nil, "collect on this benchmark case only (repeatable)")
	fs.StringArrayVar(&opts.ollamaHosts, "ollama-host", nil, "an Ollama server to spread runs over (repeatable)")
	fs.BoolVar(&isolate, "isolate", false, isolateUsage)
	opts.model.register(cmd)
	opts.model.registerChatTemplate(cmd)
	opts.model.registerLabel(cmd)
	return cmd
}

// parseShard reads k/n; empty is the whole plan.
func parseShard(s string) (int, int, error) {
	if s == "" {
		return 0, 0, nil
	}
	a, b, ok := strings.Cut(s, "/")
	k, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || k < 1 || k > n {
		return 0, 0, fmt.Errorf("--shard %q: want k/n with 1 <= k <= n, e.g. 2/3", s)
	}
	return k, n, nil
}

func runCollect(ctx context.Context, a *app, o collectOptions, k, n int) error {
	spec, err := parseModelSpec(o.model.spec)
	if err == nil {
		err = o.model.checkLabel(spec)
	}
	if err != nil {
		return &exitError{code: exitUsage, msg: err.Error()}
	}
	if spec.backend == schemas.BackendReplay {
		return &exitError{code: exitUsage, msg: "collect: --model replay is for bench; collect records new runs"}
	}
	if err := checkStuckAfter(o.stuck); err != nil {
		return &exitError{code: exitUsage, msg: "collect: " + err.Error()}
	}
	opts := collect.Options{Passes: o.passes, Jobs: o.jobs, OutDir: o.out, ShardK: k, ShardN: n, Resume: o.resume,
		Options: o.model.options(), FixedSeed: o.fixedSeed, Python: o.python, MaxSteps: o.steps, StuckAfter: stuckLimit(o.stuck), Now: a.now}
	if o.bench || o.manifest == "" {
		all, err := datasets.Cases()
		if err != nil {
			return err
		}
		if opts.Cases, err = selectCases(all, o.tier, o.cases); err != nil {
			return &exitError{code: exitUsage, msg: "collect: " + err.Error()}
		}
	}
	if o.manifest != "" {
		entries, err := loadManifest(ctx, a, o, spec.backend == schemas.BackendScripted && spec.arg == "")
		if err != nil {
			return err
		}
		opts.Entries = entries
	}
	factory, pre, jobs, err := collectModel(ctx, a, spec, &o)
	if err != nil {
		return err
	}
	if pre != nil {
		pre.Write(a.stderr)
		if pre.Failed() {
			return &exitError{code: exitPreflight, msg: "collect: the pre-flight failed; nothing was run"}
		}
	}
	opts.Model = withChatTemplates(factory, o.model.chatTemplate, o.model.think)
	if opts.Jobs == 0 {
		opts.Jobs = jobs
	}
	bar := newProgress(a, "collect")
	opts.Progress = bar.update
	sum, err := collect.Run(ctx, opts)
	bar.finish()
	if sum != nil && !errors.Is(err, collect.ErrAlreadyCollected) {
		printCollectSummary(a, sum, o, spec)
	}
	switch {
	case errors.Is(err, collect.ErrAlreadyCollected):
		return &exitError{code: exitUsage, msg: err.Error()}
	case err != nil && ctx.Err() != nil:
		return &exitError{code: exitInterrupted, msg: "collect: interrupted; the run in flight was recorded as cancelled. Run the same command with --resume to finish."}
	case err != nil:
		return err
	case sum.Incomplete > 0:
		return &exitError{code: exitIncomplete, msg: fmt.Sprintf("collect: %d of %d planned run(s) are not complete; run the same command with --resume to redo them", sum.Incomplete, sum.Planned)}
	}
	return nil
}

func printCollectSummary(a *app, s *collect.Summary, o collectOptions, spec modelSpec) {
	w := a.stdout
	for _, b := range s.BrokeSuite {
		fmt.Fprintf(w, "SUITE BROKEN: %s\n", b)
	}
	if s.Ran == 0 && s.Skipped == s.Planned {
		fmt.Fprintf(w, "Nothing to do: all %d planned runs are complete in %s.\n", s.Planned, o.out)
	} else {
		unjudged := ""
		if s.Unjudged > 0 {
			unjudged = fmt.Sprintf(", %d unjudged (the suite ran no test: neither worked nor failed)", s.Unjudged)
		}
		fmt.Fprintf(w, "collect: %d planned, %d already complete, %d run: %d worked, %d failed, %d error, %d cancelled%s\n",
			s.Planned, s.Skipped, s.Ran, s.Worked, s.Failed, s.Errors, s.Cancelled, unjudged)
	}
	if s.Incomplete > 0 {
		fmt.Fprintf(w, "%d run(s) are not complete: run the same command with --resume to redo them (earlier attempts are kept).\n", s.Incomplete)
	}
	fmt.Fprintf(w, "traces: %s\nplan:   %s\n", filepath.Join(o.out, "runs"), s.PlanPath)
	if (schemas.Model{Backend: spec.backend}).HandWritten() { // collect refuses replay: this is scripted
		again := fmt.Sprintf("pyharness collect --passes %d", o.passes)
		if o.manifest != "" {
			again += " --manifest " + o.manifest
		}
		fmt.Fprintf(w, "model:  scripted (no model was called); with Ollama running, %s does the same with a real model.\n", again)
	}
}

// loadManifest reads, resolves and baselines the manifest's entries; every
// problem with them is a configuration error, found before anything runs.
// needScript is set when each entry must bring its own drafts (plain
// --model scripted).
func loadManifest(ctx context.Context, a *app, o collectOptions, needScript bool) ([]collect.Entry, error) {
	data, err := os.ReadFile(o.manifest)
	if err != nil {
		return nil, &exitError{code: exitUsage, msg: fmt.Sprintf("collect: read manifest: %v", err)}
	}
	entries, perr := collect.ParseManifest(o.manifest, data)
	merr := &collect.ManifestError{File: o.manifest}
	var shape *collect.ManifestError
	if errors.As(perr, &shape) {
		merr.Problems = append(merr.Problems, shape.Problems...)
	} else if perr != nil {
		return nil, &exitError{code: exitUsage, msg: "collect: " + perr.Error()}
	}
	if needScript {
		// Said before the baselines run, not when the entry's run starts.
		kept := entries[:0]
		for _, e := range entries {
			if e.Script == "" {
				merr.Problems = append(merr.Problems, collect.Problem{Line: e.Line, Entry: e.ID, Msg: "no script: with --model scripted every entry needs script: (a JSON Lines file of drafts), or give --model scripted:FILE"})
				continue
			}
			kept = append(kept, e)
		}
		entries = kept
	}
	entries, problems := collect.Resolve(ctx, o.manifest, entries, filepath.Join(o.out, "cache", "repos"))
	merr.Problems = append(merr.Problems, problems...)
	if o.model.chatTemplate == "" {
		// A template that does not load is said now, not at its first run.
		kept := entries[:0]
		for _, e := range entries {
			if e.ChatTemplate != "" {
				if _, err := chattemplate.Load(e.ChatTemplate); err != nil {
					merr.Problems = append(merr.Problems, collect.Problem{Line: e.Line, Entry: e.ID, Msg: "chat_template: " + err.Error()})
					continue
				}
			}
			kept = append(kept, e)
		}
		entries = kept
	}
	entries, problems, notes := collect.Baseline(ctx, entries, o.python)
	merr.Problems = append(merr.Problems, problems...)
	for _, n := range notes {
		fmt.Fprintln(a.stderr, "note:", n)
	}
	if len(merr.Problems) > 0 {
		if !o.skipBad {
			return nil, &exitError{code: exitUsage, msg: merr.Error() + "\nnothing was run; fix the entries or use --skip-bad to run the good ones"}
		}
		fmt.Fprintln(a.stderr, merr.Error()+"\n--skip-bad: running the other entries")
	}
	if len(entries) == 0 {
		return nil, &exitError{code: exitUsage, msg: "collect: no usable manifest entry"}
	}
	return entries, nil
}

// collectModel returns each run's backend, the pre-flight result (nil when
// there is no server), and the default number of jobs for the backend.
func collectModel(ctx context.Context, a *app, spec modelSpec, o *collectOptions) (collect.Model, *preflight.Result, int, error) {
	switch spec.backend {
	case schemas.BackendScripted:
		return func(ctx context.Context, it collect.Item, pass int, opts schemas.Options, slot int) (collect.Backend, error) {
			switch {
			case spec.arg != "":
				m, err := scripted.New(spec.arg)
				return collect.Backend{Chat: m, Model: o.model.labelled(schemas.Model{Backend: schemas.BackendScripted, Name: spec.arg, Options: opts})}, err
			case it.Case != nil:
				be, err := collect.CaseScript(*it.Case, pass, opts)
				be.Model = o.model.labelled(be.Model)
				return be, err
			case it.Entry.Script != "":
				m, err := scripted.New(it.Entry.Script)
				return collect.Backend{Chat: m, Model: o.model.labelled(schemas.Model{Backend: schemas.BackendScripted, Name: it.Entry.ID + "/" + filepath.Base(it.Entry.Script), Options: opts})}, err
			}
			return collect.Backend{}, fmt.Errorf("manifest entry %s (line %d) has no script: with --model scripted every entry needs script:", it.Entry.ID, it.Entry.Line)
		}, nil, 2, nil
	case schemas.BackendOllama:
		hosts := o.ollamaHosts
		if len(hosts) == 0 {
			hosts = []string{o.model.baseURL}
		}
		var backends []*backend
		var pre *preflight.Result
		for _, h := range hosts {
			f := o.model
			f.baseURL = h
			be, err := openBackend(ctx, a, spec, &f)
			if err != nil {
				return nil, nil, 0, &exitError{code: exitUsage, msg: err.Error()}
			}
			res := be.preflight(ctx, &f, o.python, o.out)
			if pre == nil {
				pre = res
			} else {
				pre.Checks = append(pre.Checks, res.Checks[0])
			}
			backends = append(backends, be)
		}
		return func(ctx context.Context, it collect.Item, pass int, opts schemas.Options, slot int) (collect.Backend, error) {
			return backends[slot%len(backends)].forRun(opts), nil
		}, pre, len(backends), nil
	}
	be, err := openBackend(ctx, a, spec, &o.model)
	if err != nil {
		return nil, nil, 0, &exitError{code: exitUsage, msg: err.Error()}
	}
	pre := be.preflight(ctx, &o.model, o.python, o.out)
	return func(ctx context.Context, it collect.Item, pass int, opts schemas.Options, slot int) (collect.Backend, error) {
		return be.forRun(opts), nil
	}, pre, 2, nil
}
