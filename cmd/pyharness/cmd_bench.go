package main

import (
	"context"
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/pyharness/pyharness/collect"
	"github.com/pyharness/pyharness/collect/bench"
	"github.com/pyharness/pyharness/datasets"
	"github.com/pyharness/pyharness/harness"
	"github.com/pyharness/pyharness/harness/model/replay"
	"github.com/pyharness/pyharness/harness/preflight"
	"github.com/pyharness/pyharness/harness/suite"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

type benchOptions struct {
	repeat    int
	tier      int
	cases     []string
	jobs      int
	out       string
	json      bool
	fixedSeed bool
	python    string
	steps     int
	stuck     int
	model     modelFlags
}

func newBenchCmd(a *app) *cobra.Command {
	opts := benchOptions{}
	isolate := false
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Run the fifteen embedded cases for N passes and say what worked, what failed and why",
		Long: `Runs the embedded benchmark (fifteen cases in six tiers) for --repeat passes,
records every run under OUT/runs/ (source: bench), and prints a row per run,
the tier table, the failure table, the runs settled with no model step, and the
resolution statement: how big a gap this sample can tell from noise.

--model scripted plays each case's own scripted drafts (no model is called);
--model replay:DIR re-drives each run of a recorded benchmark with its own
drafts and says where today's harness diverged.` + exitCodesHelp(),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if isolate {
				ctx = suite.WithIsolation(ctx)
			}
			// The key's variable never reaches a suite, whatever its name.
			ctx = suite.WithSecrets(ctx, opts.model.apiKeyEnv)
			return runBench(ctx, a, opts)
		},
	}
	fs := cmd.Flags()
	fs.IntVar(&opts.repeat, "repeat", 5, "passes over the cases")
	fs.IntVar(&opts.tier, "tier", 0, "run only this tier")
	fs.StringArrayVar(&opts.cases, "case", nil, "run only this case (repeatable)")
	fs.IntVar(&opts.jobs, "jobs", 2, "runs at once (a local Ollama serves one request at a time unless told otherwise)")
	fs.StringVar(&opts.out, "out", defaultOut, "output directory")
	fs.BoolVar(&opts.json, "json", false, "print the report as one JSON document")
	fs.BoolVar(&opts.fixedSeed, "fixed-seed", false, "send the same seed in every pass (default: --seed + pass)")
	fs.StringVar(&opts.python, "python", "", "the Python interpreter")
	fs.IntVar(&opts.steps, "steps", harness.DefaultMaxSteps, "the step budget of each run")
	registerStuckAfter(cmd, &opts.stuck, "")
	fs.BoolVar(&isolate, "isolate", false, isolateUsage)
	opts.model.register(cmd)
	opts.model.registerChatTemplate(cmd)
	opts.model.registerLabel(cmd)
	cmd.AddCommand(newBenchCompareCmd(a))
	return cmd
}

// selectCases picks the cases of --tier and --case.
func selectCases(all []datasets.Case, tier int, ids []string) ([]datasets.Case, error) {
	var out []datasets.Case
	for _, c := range all {
		if tier != 0 && c.Tier != tier {
			continue
		}
		if len(ids) > 0 && !slices.Contains(ids, c.ID) {
			continue
		}
		out = append(out, c)
	}
	for _, id := range ids {
		if !slices.ContainsFunc(all, func(c datasets.Case) bool { return c.ID == id }) {
			var known []string
			for _, c := range all {
				known = append(known, c.ID)
			}
			return nil, fmt.Errorf("no case %q; the cases are %v", id, known)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no case matches --tier %d and --case %v", tier, ids)
	}
	return out, nil
}

func runBench(ctx context.Context, a *app, o benchOptions) error {
	if o.repeat < 1 {
		return &exitError{code: exitUsage, msg: "bench: --repeat must be at least 1"}
	}
	if err := checkStuckAfter(o.stuck); err != nil {
		return &exitError{code: exitUsage, msg: "bench: " + err.Error()}
	}
	spec, err := parseModelSpec(o.model.spec)
	if err == nil {
		err = o.model.checkLabel(spec)
	}
	if err != nil {
		return &exitError{code: exitUsage, msg: err.Error()}
	}
	all, err := datasets.Cases()
	if err != nil {
		return err
	}
	cases, err := selectCases(all, o.tier, o.cases)
	if err != nil {
		return &exitError{code: exitUsage, msg: "bench: " + err.Error()}
	}
	factory, pre, err := benchModel(ctx, a, spec, &o.model, o.python, o.out)
	if err != nil {
		return err
	}
	if pre != nil {
		pre.Write(a.stderr)
		if pre.Failed() {
			return &exitError{code: exitPreflight, msg: "bench: the pre-flight failed; nothing was run"}
		}
	}
	bar := newProgress(a, "bench")
	outcomes, err := bench.Run(ctx, collect.Options{
		Cases: cases, Passes: o.repeat, Jobs: o.jobs, OutDir: o.out, Model: factory, Options: o.model.options(),
		FixedSeed: o.fixedSeed, Python: o.python, MaxSteps: o.steps, StuckAfter: stuckLimit(o.stuck), Now: a.now,
		Progress: bar.update,
	})
	bar.finish()
	if err != nil {
		return err
	}
	rep := bench.NewReport(outcomes, len(cases), o.repeat)
	if spec.backend == schemas.BackendReplay {
		n := 0
		for _, oc := range outcomes {
			if oc.Divergence != "" {
				n++
			}
		}
		rep.Diverged = &n
	}
	if o.json {
		err = writeJSON(a.stdout, rep)
	} else {
		rep.WriteText(a.stdout)
	}
	if err != nil {
		return err
	}
	return benchIncomplete(outcomes)
}

// benchIncomplete is the exit of a benchmark some of whose runs ended in a
// model error or were cancelled: the report is printed, but its figures
// lack those runs.
func benchIncomplete(outcomes []bench.Outcome) error {
	n := 0
	for _, oc := range outcomes {
		if !oc.Judged() {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	return &exitError{code: exitIncomplete, msg: fmt.Sprintf("bench: %d of %d run(s) ended in a model error or were cancelled; the figures above leave them out", n, len(outcomes))}
}

// benchModel returns the backend of each planned run, and the pre-flight
// result when the backend has a server.
func benchModel(ctx context.Context, a *app, spec modelSpec, f *modelFlags, python, out string) (collect.Model, *preflight.Result, error) {
	switch {
	case spec.backend == schemas.BackendScripted && spec.arg == "":
		return func(ctx context.Context, it collect.Item, pass int, opts schemas.Options, slot int) (collect.Backend, error) {
			be, err := collect.CaseScript(*it.Case, pass, opts)
			be.Model = f.labelled(be.Model)
			return be, err
		}, nil, nil
	case spec.backend == schemas.BackendReplay:
		index, err := recordedBench(ctx, spec.arg)
		if err != nil {
			return nil, nil, err
		}
		return func(ctx context.Context, it collect.Item, pass int, opts schemas.Options, slot int) (collect.Backend, error) {
			rec, ok := index[benchKey{it.Case.ID, pass}]
			if !ok {
				return collect.Backend{}, fmt.Errorf("replay: %s holds no run of case %s pass %d", spec.arg, it.Case.ID, pass)
			}
			m, err := replay.New(rec.File.Path)
			if err != nil {
				return collect.Backend{}, err
			}
			info := rec.Start.Model
			info.Backend, info.Name = schemas.BackendReplay, rec.Start.Model.Spec()
			return collect.Backend{Chat: m, Model: info}, nil
		}, nil, nil
	}
	be, err := openBackend(ctx, a, spec, f)
	if err != nil {
		return nil, nil, &exitError{code: exitUsage, msg: err.Error()}
	}
	pre := be.preflight(ctx, f, python, out)
	return func(ctx context.Context, it collect.Item, pass int, opts schemas.Options, slot int) (collect.Backend, error) {
		return be.forRun(opts), nil
	}, pre, nil
}

type benchKey struct {
	caseID string
	pass   int
}

// recordedBench indexes the last attempt of every benchmark run in a
// trace directory by case and pass.
func recordedBench(ctx context.Context, dir string) (map[benchKey]*trace.Run, error) {
	index := map[benchKey]*trace.Run{}
	for run, err := range trace.Runs(ctx, dir) {
		if err != nil {
			return nil, fmt.Errorf("replay: %w", err)
		}
		if run.Start == nil || run.Start.Source != schemas.SourceBench || run.Start.Model.Backend == schemas.BackendReplay {
			continue // a replay is not a recording to replay
		}
		index[benchKey{run.Start.CaseID, run.Start.Pass}] = run
	}
	if len(index) == 0 {
		return nil, fmt.Errorf("replay: no benchmark runs in %s", dir)
	}
	return index, nil
}
