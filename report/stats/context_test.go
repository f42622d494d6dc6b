package stats

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pyharness/pyharness/classify"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

// Turns the context cut or refused are counted from their warning codes,
// the same from traces and from a classified dataset, and said in the text.
func TestContextLimitsAreCounted(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	sys := schemas.Message{Role: "system", Content: "You are a coding agent."}
	user := schemas.Message{Role: "user", Content: "Task: add initials."}
	recs := []schemas.Record{{RunStart: &schemas.RunStart{
		Schema: schemas.Schema, SchemaMinor: schemas.SchemaMinor, RunID: "ctx", Attempt: 1, Source: schemas.SourceAdhoc,
		Model: schemas.Model{Backend: "ollama", Name: "tiny", Options: schemas.Options{NumCtx: 8192, NumPredict: 1024},
			Context: &schemas.ContextSizes{Requested: 8192, Sent: true, Trained: 4096, Effective: 4096, Source: schemas.ContextFromTrained}},
		Task: "Add initials", StartedAt: t0}}}
	warnings := [][]string{
		{"context-overflow: the server refused a prompt of 9 messages estimated at 5000 tokens; refitted to 7 messages, about 3000 tokens (budget 3072)",
			"context-overflow: the server refused a prompt of 7 messages estimated at 4000 tokens; refitted to 5 messages, about 2000 tokens (budget 3000)",
			"context-full: the reply was cut after 87 tokens, before num_predict 1024: prompt 4009 + output 87 filled the context window of 4096"},
		{"context-truncated: the server counted 3656 prompt tokens for a prompt estimated at 7000: it dropped part of it without a word; prompts are now budgeted at 3656"},
		{"a warning with no code"},
	}
	for i, ws := range warnings {
		msgs := []schemas.Message{user}
		if i == 0 {
			msgs = []schemas.Message{sys, user}
		}
		recs = append(recs, schemas.Record{Turn: &schemas.Turn{RunID: "ctx", Step: i + 1,
			Sent:  schemas.Sent{Kind: schemas.KindToolResult, Messages: msgs, Replaced: true, PromptHash: schemas.PromptHash(msgs)},
			Reply: schemas.Reply{Content: "RUN tests", FinishReason: "length"}, Action: schemas.Action{Verb: "RUN", Shape: "canonical"},
			Outcome: schemas.Outcome{Status: schemas.StatusApplied}, ModelStep: true, Warnings: ws, StartedAt: t0, EndedAt: t0}})
	}
	recs = append(recs, schemas.Record{RunEnd: &schemas.RunEnd{RunID: "ctx", Verdict: schemas.VerdictFailed, FailureClass: schemas.FailWroteNothing,
		StopReason: schemas.StopBudget, Steps: 3, ModelSteps: 3, EndedAt: t0}})
	for _, s := range loadTracesAndDataset(t, "ctx", recs) {
		got := [3]int{s.Turns.ContextFull, s.Turns.ContextTruncated, s.Turns.ContextOverflow}
		if got != [3]int{1, 1, 1} {
			t.Errorf("%s: context full, truncated, overflow turns = %v, want one each (two overflows on one turn are one turn)", s.Kind, got)
		}
		var b strings.Builder
		if err := s.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		if want := "Context limits: 1 replies cut by a full context, 1 prompts the server cut, 1 prompts it refused as too long"; !strings.Contains(b.String(), want) {
			t.Errorf("%s: text lacks %q:\n%s", s.Kind, want, b.String())
		}
	}
}

// loadTracesAndDataset writes recs as the trace of run runID, classifies
// it, and loads the summary both ways a user can: from the traces and
// from the classified dataset.
func loadTracesAndDataset(t *testing.T, runID string, recs []schemas.Record) []*Summary {
	t.Helper()
	dir := t.TempDir()
	w, err := trace.Create(filepath.Join(dir, trace.RunsDir), runID)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ds := t.TempDir()
	if _, err := classify.Update(ctx, dir, ds); err != nil {
		t.Fatal(err)
	}
	var out []*Summary
	for _, in := range []string{dir, ds} {
		s, err := Load(ctx, in, Options{})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}
