package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/pyharness/pyharness/bench"
	"github.com/pyharness/pyharness/collect"
	"github.com/pyharness/pyharness/datasets"
	"github.com/pyharness/pyharness/harness"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/trace"
)

type demoOptions struct {
	out    string
	passes int
}

func newDemoCmd(a *app) *cobra.Command {
	opts := demoOptions{}
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the main job on the embedded default, with no model server needed",
		Long: `Runs the pipeline on the embedded benchmark with the scripted backend (each
case's own drafts; no model is called, and every record says so): a collect of
four passes, validation of every trace, and the benchmark's tables. With Ollama
running, pyharness collect --passes 4 does the same with a real model.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDemo(cmd.Context(), a, opts)
		},
	}
	cmd.Flags().StringVar(&opts.out, "out", filepath.Join(defaultOut, "demo"), "output directory (kept apart from real collections)")
	cmd.Flags().IntVar(&opts.passes, "passes", 4, "passes over the benchmark")
	return cmd
}

func runDemo(ctx context.Context, a *app, o demoOptions) error {
	w := a.stdout
	fmt.Fprintln(w, "pyharness demo: the model is SCRIPTED — each benchmark case plays its own recorded-style drafts, and no model is called.")
	fmt.Fprintln(w, "With Ollama running, `pyharness collect --passes 4` does the same with a real model (default ollama:llama3.1:8b).")
	fmt.Fprintln(w)
	cases, err := datasets.Cases()
	if err != nil {
		return err
	}
	bar := newProgress(a, "collect")
	sum, err := collect.Run(ctx, collect.Options{
		Cases: cases, Passes: o.passes, Jobs: 2, OutDir: o.out, Resume: true, Now: a.now, Progress: bar.update,
		Model: func(ctx context.Context, it collect.Item, pass int, opts schemas.Options, slot int) (harness.Chatter, schemas.Model, error) {
			return caseScript(*it.Case, pass, opts)
		},
	})
	bar.finish()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "1. collect: %d runs planned, %d already there, %d run now (%d worked, %d failed)\n",
		sum.Planned, sum.Skipped, sum.Ran, sum.Worked, sum.Failed)

	v, err := trace.NewValidator()
	if err != nil {
		return err
	}
	files, err := trace.ListFiles(o.out)
	if err != nil {
		return err
	}
	records, bad := 0, 0
	for _, f := range files {
		rep := v.ValidateFile(f.Path)
		records += rep.Records
		if rep.Errors() > 0 {
			bad++
		}
	}
	fmt.Fprintf(w, "2. validate: %d trace files, %d records, %d with errors\n", len(files), records, bad)

	outcomes, err := bench.ReadOutcomes(o.out)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "3. the benchmark's tables:\n\n")
	bench.NewReport(outcomes, len(cases), o.passes).WriteText(w)
	fmt.Fprintf(w, "\nOutputs:\n  traces     %s\n  plan       %s\n  patches    %s\n",
		filepath.Join(o.out, trace.RunsDir), sum.PlanPath, filepath.Join(o.out, "patches"))
	if bad > 0 {
		return &exitError{code: 1, msg: fmt.Sprintf("demo: %d trace file(s) did not validate", bad)}
	}
	return nil
}
