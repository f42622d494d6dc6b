package model_test

import (
	"testing"

	"github.com/pyharness/pyharness/harness/model"
	"github.com/pyharness/pyharness/schemas"
)

func TestResolveContext(t *testing.T) {
	tests := []struct {
		name        string
		requested   int
		contextSize int
		info        model.Info
		want        schemas.ContextSizes
	}{
		{"ollama, num_ctx above the trained context: capped to it",
			8192, 0, model.Info{SendsNumCtx: true, ContextLength: 4096},
			schemas.ContextSizes{Requested: 8192, Sent: true, Trained: 4096, Effective: 4096, Source: schemas.ContextFromTrained}},
		{"ollama, num_ctx within the trained context",
			2048, 0, model.Info{SendsNumCtx: true, ContextLength: 4096},
			schemas.ContextSizes{Requested: 2048, Sent: true, Trained: 4096, Effective: 2048, Source: schemas.ContextFromRequested}},
		{"ollama, the model loaded with a smaller window: a request with num_ctx reloads it",
			2048, 0, model.Info{SendsNumCtx: true, ContextLength: 4096, ContextInForce: 512},
			schemas.ContextSizes{Requested: 2048, Sent: true, Trained: 4096, InForce: 512, Effective: 2048, Source: schemas.ContextFromRequested}},
		{"ollama, trained context unknown",
			8192, 0, model.Info{SendsNumCtx: true},
			schemas.ContextSizes{Requested: 8192, Sent: true, Effective: 8192, Source: schemas.ContextFromRequested}},
		{"llama-server states its window: the request cannot change it",
			8192, 0, model.Info{ContextLength: 4096, ContextInForce: 2048},
			schemas.ContextSizes{Requested: 8192, Trained: 4096, InForce: 2048, Effective: 2048, Source: schemas.ContextFromServer}},
		{"llama-server's window above the request: still the server's",
			1024, 0, model.Info{ContextLength: 4096, ContextInForce: 2048},
			schemas.ContextSizes{Requested: 1024, Trained: 4096, InForce: 2048, Effective: 2048, Source: schemas.ContextFromServer}},
		{"openai-compatible with --context-size",
			8192, 3000, model.Info{},
			schemas.ContextSizes{Requested: 8192, InForce: 3000, Effective: 3000, Source: schemas.ContextFromContextSize}},
		{"the server's own figure beats --context-size",
			8192, 3000, model.Info{ContextInForce: 2048},
			schemas.ContextSizes{Requested: 8192, InForce: 2048, Effective: 2048, Source: schemas.ContextFromServer}},
		{"Ollama behind /v1: only the trained context is known",
			8192, 0, model.Info{ContextLength: 4096},
			schemas.ContextSizes{Requested: 8192, Trained: 4096, Effective: 4096, Source: schemas.ContextFromTrained}},
		{"nothing known",
			8192, 0, model.Info{},
			schemas.ContextSizes{Requested: 8192, Effective: 8192, Source: schemas.ContextUnknown}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := model.ResolveContext(tt.requested, tt.contextSize, tt.info); got != tt.want {
				t.Errorf("ResolveContext(%d, %d, %+v) =\n%+v, want\n%+v", tt.requested, tt.contextSize, tt.info, got, tt.want)
			}
		})
	}
}

func TestCheckPromptRoom(t *testing.T) {
	tests := []struct {
		window, predict int
		ok              bool
	}{
		{8192, 1024, true},
		{1536, 1024, true},
		{512, 16, false}, // 496 tokens left for the prompt, under the 512 needed
		{1024, 1024, false},
		{2048, 4096, false},
	}
	for _, tt := range tests {
		err := model.CheckPromptRoom(tt.window, tt.predict)
		if (err == nil) != tt.ok {
			t.Errorf("CheckPromptRoom(%d, %d) = %v, want ok %v", tt.window, tt.predict, err, tt.ok)
		}
	}
}
