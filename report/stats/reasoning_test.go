package stats

import (
	"strings"
	"testing"
	"time"

	"github.com/pyharness/pyharness/schemas"
)

// Turns with reasoning, their token estimate, and replies refused
// reasoning-cut are counted the same from traces and from a classified
// dataset, and said in the text.
func TestReasoningIsCounted(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	user := schemas.Message{Role: "user", Content: "Task: add initials."}
	recs := []schemas.Record{{RunStart: &schemas.RunStart{
		Schema: schemas.Schema, SchemaMinor: schemas.SchemaMinor, RunID: "think", Attempt: 1, Source: schemas.SourceAdhoc,
		Model: schemas.Model{Backend: "ollama", Name: "qwen3"}, Task: "Add initials", StartedAt: t0}}}
	turns := []struct {
		reasoning *schemas.Reasoning
		code      schemas.Code
	}{
		{&schemas.Reasoning{Text: "READ it first", Tokens: 40, Source: schemas.ReasoningThinkTag}, ""},
		{nil, ""},
		{&schemas.Reasoning{Text: "still thinking", Tokens: 1000, Source: schemas.ReasoningServer, Cut: true}, schemas.CodeReasoningCut},
		{&schemas.Reasoning{Text: "plan", Tokens: 40, Source: schemas.ReasoningHarmony}, ""},
	}
	for i, tc := range turns {
		msgs := []schemas.Message{user}
		out := schemas.Outcome{Status: schemas.StatusApplied}
		if tc.code != "" {
			out = schemas.Outcome{Status: schemas.StatusRefused, Code: tc.code}
		}
		recs = append(recs, schemas.Record{Turn: &schemas.Turn{RunID: "think", Step: i + 1,
			Sent:  schemas.Sent{Kind: schemas.KindToolResult, Messages: msgs, Replaced: true, PromptHash: schemas.PromptHash(msgs)},
			Reply: schemas.Reply{Content: "RUN tests"}, Action: schemas.Action{Verb: "RUN", Shape: "canonical"},
			Outcome: out, ModelStep: true, Reasoning: tc.reasoning, StartedAt: t0, EndedAt: t0}})
	}
	recs = append(recs, schemas.Record{RunEnd: &schemas.RunEnd{RunID: "think", Verdict: schemas.VerdictFailed, FailureClass: schemas.FailWroteNothing,
		StopReason: schemas.StopBudget, Steps: 4, ModelSteps: 4, EndedAt: t0}})
	for _, s := range loadTracesAndDataset(t, "think", recs) {
		if got := s.Turns; got.Reasoning != 3 || got.ReasoningTokens != 1080 || got.ReasoningCut != 1 {
			t.Errorf("%s: reasoning turns, tokens, cut = %d, %d, %d; want 3, 1080, 1", s.Kind, got.Reasoning, got.ReasoningTokens, got.ReasoningCut)
		}
		var b strings.Builder
		if err := s.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		if want := "Reasoning: 3 turn(s) with reasoning, about 1080 tokens of it; 1 reply(ies) refused reasoning-cut"; !strings.Contains(b.String(), want) {
			t.Errorf("%s: text lacks %q:\n%s", s.Kind, want, b.String())
		}
	}
}
