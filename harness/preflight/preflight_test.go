package preflight

import (
	"context"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/harness/model"
	"github.com/pyharness/pyharness/schemas"
)

// TestContextCheck: the context line for what a server said of the model
// (the servers' own answers are tested in the backends and in doctor's
// tests; here, each case of the rule).
func TestContextCheck(t *testing.T) {
	tests := []struct {
		name        string
		numCtx      int
		numPredict  int
		contextSize int
		info        model.Info
		wantStatus  string
		want        string
	}{
		{"ollama within the trained context", 2048, 512, 0, model.Info{SendsNumCtx: true, ContextLength: 4096},
			ok, "requested 2048 (sent), trained 4096, in force unknown, effective 2048 (from requested)"},
		{"a server that states nothing", 8192, 1024, 0, model.Info{},
			warn, "effective 8192 (from unknown): the server states no window and no trained context: prompts are budgeted against --num-ctx unchecked (give --context-size N)"},
		{"--context-size for it", 8192, 1024, 4096, model.Info{},
			warn, "in force 4096, effective 4096 (from context-size): the server's window is 4096 whatever --num-ctx asks"},
		{"the effective window leaves no room", 8192, 2000, 0, model.Info{ContextLength: 4096, ContextInForce: 2048},
			warn, "in the effective window, num_ctx 2048 minus num_predict 2000 leaves 48 tokens for the prompt; at least 512 are needed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info := tt.info
			info.Name, info.Host = "tiny", "http://x"
			res := Run(context.Background(), Options{Backend: schemas.BackendOpenAI, Model: "tiny", NumCtx: tt.numCtx, NumPredict: tt.numPredict, ContextSize: tt.contextSize,
				Info: func(context.Context) (model.Info, error) { return info, nil }})
			var got *Check
			for i, c := range res.Checks {
				if c.Name == "context" {
					got = &res.Checks[i]
				}
			}
			if got == nil || got.Status != tt.wantStatus || !strings.Contains(got.Detail, tt.want) {
				t.Errorf("context check = %+v, want %s containing %q", got, tt.wantStatus, tt.want)
			}
			if res.Context == nil || res.Context.Requested != tt.numCtx {
				t.Errorf("Result.Context = %+v, want the resolved sizes", res.Context)
			}
		})
	}
}

// TestThinkCheck: --think against what the server said of the model.
// Ollama refuses think for a model without the thinking capability (the
// recorded 400), so that fails before the job starts; an OpenAI-compatible
// server has no switch of its own, so it is a warning saying what decides.
func TestThinkCheck(t *testing.T) {
	tests := []struct {
		name       string
		backend    string
		think      bool
		caps       []string
		wantStatus string // "" for no think check at all
		want       string
	}{
		{"ollama, a thinking model", schemas.BackendOllama, true, []string{"completion", "thinking"}, ok, "thinking capability"},
		{"ollama, a model without thinking", schemas.BackendOllama, true, []string{"completion"}, Fail, "tiny has no thinking capability (capabilities: completion)"},
		{"openai-compatible", schemas.BackendOpenAI, true, nil, warn, "--reasoning-format"},
		{"no --think", schemas.BackendOllama, false, []string{"completion"}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info := model.Info{Name: "tiny", Host: "http://x", Capabilities: tt.caps}
			res := Run(context.Background(), Options{Backend: tt.backend, Model: "tiny", Think: tt.think,
				Info: func(context.Context) (model.Info, error) { return info, nil }})
			var got *Check
			for i, c := range res.Checks {
				if c.Name == "think" {
					got = &res.Checks[i]
				}
			}
			if tt.wantStatus == "" {
				if got != nil {
					t.Errorf("think check = %+v without --think", got)
				}
				return
			}
			if got == nil || got.Status != tt.wantStatus || !strings.Contains(got.Detail, tt.want) {
				t.Errorf("think check = %+v, want %s containing %q", got, tt.wantStatus, tt.want)
			}
			if res.Failed() != (tt.wantStatus == Fail) {
				t.Errorf("Failed() = %v", res.Failed())
			}
		})
	}
}
