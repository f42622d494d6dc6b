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

// runCollect checks what costs nothing before anything that runs a suite:
// the flags, the manifest's entries, the model, then the output
// directory's plan (another collection's, or runs already complete
// without --resume), and only then the entries' suites at baseline.
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
	if o.passes < 1 {
		return &exitError{code: exitUsage, msg: "collect: --passes must be at least 1"}
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
	var manifest *collect.Manifest
	if o.manifest != "" {
		if manifest, err = checkManifest(ctx, o, spec.backend == schemas.BackendScripted && spec.arg == ""); err != nil {
			return err
		}
		opts.Entries = manifest.Usable()
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
	if manifest != nil {
		if opts.Entries, err = baselineManifest(ctx, a, o, opts, manifest); err != nil {
			return err
		}
	} else if _, err := collect.Precheck(ctx, opts); err != nil {
		return collectRefusal(err)
	}
	bar := newProgress(a, "collect")
	opts.Progress = bar.update
	sum, err := collect.Run(ctx, opts)
	bar.finish()
	if sum != nil && !errors.Is(err, collect.ErrAlreadyCollected) && !errors.Is(err, collect.ErrOtherPlan) {
		printCollectSummary(a, sum, o, spec)
	}
	switch {
	case errors.Is(err, collect.ErrAlreadyCollected), errors.Is(err, collect.ErrOtherPlan):
		return collectRefusal(err)
	case err != nil && ctx.Err() != nil:
		msg := "collect: interrupted before any run started; nothing was recorded. Run the same command to start it."
		if sum != nil && sum.Cancelled > 0 {
			msg = "collect: interrupted; the run in flight was recorded as cancelled. Run the same command with --resume to finish."
		} else if sum != nil && sum.Ran+sum.Skipped > 0 {
			msg = "collect: interrupted between runs. Run the same command with --resume to finish."
		}
		return &exitError{code: exitInterrupted, msg: msg}
	case err != nil:
		return err
	case sum.Incomplete > 0:
		return &exitError{code: exitIncomplete, msg: fmt.Sprintf("collect: %d of %d planned run(s) are not complete; run the same command with --resume to redo them", sum.Incomplete, sum.Planned)}
	}
	return nil
}

// collectRefusal is the exit of an output directory collect will not
// write to as told: a configuration error (exit 2) that says the way out.
func collectRefusal(err error) error {
	if errors.Is(err, collect.ErrAlreadyCollected) || errors.Is(err, collect.ErrOtherPlan) {
		return &exitError{code: exitUsage, msg: err.Error()}
	}
	return err
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

// checkManifest reads the manifest and checks every entry for what
// costs nothing: a problem is said with all the others after the
// baselines (baselineManifest), unless the manifest cannot be read at all.
// needScript is set when each entry must bring its own drafts (plain
// --model scripted).
func checkManifest(ctx context.Context, o collectOptions, needScript bool) (*collect.Manifest, error) {
	data, err := os.ReadFile(o.manifest)
	if err != nil {
		return nil, &exitError{code: exitUsage, msg: fmt.Sprintf("collect: read manifest: %v", err)}
	}
	m, err := collect.CheckManifest(ctx, o.manifest, data, collect.ManifestCheck{
		NeedScript: needScript, ChatTemplates: o.model.chatTemplate == "", RepoCache: filepath.Join(o.out, "cache", "repos")})
	if err != nil {
		return nil, &exitError{code: exitUsage, msg: "collect: " + err.Error()}
	}
	return m, nil
}

// baselineManifest refuses an output directory collect will not write to
// before any suite runs, then runs the suites of the entries with runs to
// do (a --resume skips those whose runs are all complete; a suite found
// usable before is not run again), and says every problem of every entry
// at once. It returns the entries to collect on.
func baselineManifest(ctx context.Context, a *app, o collectOptions, opts collect.Options, m *collect.Manifest) ([]collect.Entry, error) {
	var need func(collect.Entry) bool // nil: every entry's suite
	if m.Err() == nil || o.skipBad {
		plan, err := collect.Precheck(ctx, opts)
		if err != nil {
			return nil, collectRefusal(err)
		}
		todo := map[string]bool{}
		for _, p := range plan {
			if p.Status != collect.StatusComplete {
				todo[p.Item] = true
			}
		}
		need = func(e collect.Entry) bool { return todo[e.ID] }
	}
	notes, err := m.Baseline(ctx, o.python, filepath.Join(o.out, "cache", "baselines"), need)
	if err != nil {
		if ctx.Err() != nil {
			return nil, &exitError{code: exitInterrupted, msg: "collect: interrupted while checking the entries' suites at baseline; no run was started"}
		}
		return nil, err
	}
	for _, n := range notes {
		fmt.Fprintln(a.stderr, "note:", n)
	}
	if err := m.Err(); err != nil {
		if !o.skipBad {
			return nil, &exitError{code: exitUsage, msg: err.Error() + "\nnothing was run; fix the entries or use --skip-bad to run the good ones"}
		}
		fmt.Fprintln(a.stderr, err.Error()+"\n--skip-bad: running the other entries")
	}
	entries := m.Usable()
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
