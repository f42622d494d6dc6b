package main

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/pyharness/pyharness/internal/version"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/trace"
)

type demoOptions struct {
	out string
}

func newDemoCmd(a *app) *cobra.Command {
	opts := demoOptions{}
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the main job on the embedded default, with no model server needed",
		Long: `Writes a sample trace of the embedded default (a scripted run: no model
is called, and the trace says so) under OUT/runs/ and validates it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDemo(cmd.Context(), a, opts)
		},
	}
	cmd.Flags().StringVar(&opts.out, "out", defaultOut, "output directory")
	return cmd
}

func runDemo(ctx context.Context, a *app, opts demoOptions) error {
	dir := filepath.Join(opts.out, trace.RunsDir)
	runID := "demo-" + a.now().UTC().Format("20060102T150405")
	w, err := trace.Create(dir, runID)
	if err != nil {
		return err
	}
	defer w.Close()
	for _, rec := range sampleRecords(runID, w.Attempt(), a.now()) {
		if err := w.Write(rec); err != nil {
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "wrote a sample scripted trace (no model was called): %s\n\n", w.Path())
	return runValidate(ctx, a.stdout, []string{w.Path()})
}

// sampleRecords is a two-step scripted run on the initials case.
func sampleRecords(runID string, attempt int, now time.Time) []schemas.Record {
	sys := schemas.Message{Role: "system", Content: "You are a coding agent. Answer with one action: READ path, WRITE path, PATCH path, RUN tests, DONE summary."}
	task := schemas.Message{Role: "user", Content: "Task: write initials(name) in initials.py that returns 'A. L.' for 'Ada Lovelace'.\n\nRepository:\ninitials.py\ntests/test_initials.py"}
	asst := schemas.Message{Role: "assistant", Content: "READ initials.py"}
	res := schemas.Message{Role: "user", Content: "initials.py (lines 1-2 of 2):\n```\ndef initials(name):\n    raise NotImplementedError\n```"}
	return []schemas.Record{
		{RunStart: &schemas.RunStart{Schema: schemas.Schema, SchemaMinor: schemas.SchemaMinor, RunID: runID, Attempt: attempt,
			Source: schemas.SourceAdhoc, CaseID: "initials", Tier: 1,
			Model:   schemas.Model{Backend: "scripted", Name: "demo", Options: schemas.Options{NumCtx: 8192, NumPredict: 1024}},
			Harness: version.Harness(), Task: task.Content, Targets: []string{"initials.py"}, Names: []string{"initials"},
			Scope: []string{"**"}, Suite: "python3 -m unittest", Python: "python3", StartedAt: now}},
		{Turn: &schemas.Turn{RunID: runID, Step: 1,
			Sent:    schemas.Sent{Kind: schemas.KindOpening, Messages: []schemas.Message{sys, task}, PromptHash: schemas.PromptHash([]schemas.Message{sys, task})},
			Reply:   schemas.Reply{Content: asst.Content, FinishReason: "stop"},
			Action:  schemas.Action{Verb: "READ", Path: "initials.py", Shape: "canonical", Via: "text"},
			Outcome: schemas.Outcome{Status: schemas.StatusApplied}, ModelStep: true, StartedAt: now, EndedAt: now}},
		{Turn: &schemas.Turn{RunID: runID, Step: 2,
			Sent:    schemas.Sent{Kind: schemas.KindToolResult, Messages: []schemas.Message{asst, res}, PromptHash: schemas.PromptHash([]schemas.Message{sys, task, asst, res})},
			Reply:   schemas.Reply{Content: "DONE", FinishReason: "stop"},
			Action:  schemas.Action{Verb: "DONE", Shape: "canonical", Via: "text"},
			Outcome: schemas.Outcome{Status: schemas.StatusStopped}, ModelStep: true, StartedAt: now, EndedAt: now}},
		{RunEnd: &schemas.RunEnd{RunID: runID, Verdict: schemas.VerdictFailed, FailureClass: schemas.FailWroteNothing,
			ClaimedDone: true, StopReason: schemas.StopDone, Steps: 2, ModelSteps: 2, EndedAt: now}},
	}
}
