package openai_test

import (
	"context"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pyharness/pyharness/harness/model"
	"github.com/pyharness/pyharness/harness/model/openai"
	"github.com/pyharness/pyharness/internal/testkit/wiretest"
	"github.com/pyharness/pyharness/schemas"
)

// TestRecordedServers plays the recorded answers of both server families
// to the backend and asserts what it records: the figures each sends (and
// none it does not), the overflow body, and the attempts a server error
// costs.
func TestRecordedServers(t *testing.T) {
	type server interface {
		Push(...wiretest.Step)
		ChatRequests() []wiretest.Request
	}
	ollamaV1 := func(t *testing.T) (string, server) { s := wiretest.NewOpenAI(t); return s.URL, s }
	llama := func(t *testing.T) (string, server) { s := wiretest.NewLlamaServer(t); return s.URL, s }
	peg := "does not match the expected peg-native format"
	tests := []struct {
		name        string
		server      func(t *testing.T) (string, server)
		steps       []wiretest.Step
		temperature float64
		wantReply   schemas.Reply    // when it answers
		wantMetrics *schemas.Metrics // TotalMS and TTFTMS aside
		wantCode    string           // when it fails
		wantInError string
		attempts    []string // each attempt's error code, "" for the answer
		check       func(t *testing.T, e *model.Error)
	}{
		{name: "llama-server's timings and cache recorded", server: llama,
			steps:     []wiretest.Step{wiretest.Recorded("llama-server/openai-stream-usage")},
			wantReply: schemas.Reply{Content: " capsules rang_update kamu\"',Accuracyregisters obsessive", FinishReason: "length"},
			// usage 37/8, cached 36; timings prompt_n 1, prompt_ms 5.8,
			// predicted_ms 24.492. No load time: none was reported.
			wantMetrics: &schemas.Metrics{PromptTokens: new(37), OutputTokens: new(8), PromptEvalTokens: new(1), CachedTokens: new(36),
				PromptEvalMS: new(int64(6)), EvalMS: new(int64(24))},
			attempts: []string{""}},
		{name: "llama-server without a usage chunk: timings on the finish chunk", server: llama,
			steps:     []wiretest.Step{wiretest.Recorded("llama-server/openai-stream-nousage")},
			wantReply: schemas.Reply{Content: " capsules rang_update kamu\"',Accuracyregisters obsessive", FinishReason: "length"},
			// No usage: the whole prompt's count is absent, not made up
			// from cache_n + prompt_n; the output is predicted_n.
			wantMetrics: &schemas.Metrics{OutputTokens: new(8), PromptEvalTokens: new(1), CachedTokens: new(36),
				PromptEvalMS: new(int64(4)), EvalMS: new(int64(25))},
			attempts: []string{""}},
		{name: "a reply cut by the full window: prompt + output = n_ctx", server: llama,
			steps:       []wiretest.Step{wiretest.Recorded("llama-server/openai-stream-ctx-full-during-generation")},
			wantMetrics: &schemas.Metrics{PromptTokens: new(1961), OutputTokens: new(87), PromptEvalTokens: new(1), CachedTokens: new(1960), PromptEvalMS: new(int64(6)), EvalMS: new(int64(415))},
			attempts:    []string{""}},
		{name: "the overflow body's n_ctx and n_prompt_tokens", server: llama,
			steps:    []wiretest.Step{wiretest.Recorded("llama-server/openai-stream-overflow")},
			wantCode: model.CodeContextOverflow, wantInError: "exceeds the available context size", attempts: []string{model.CodeContextOverflow},
			check: func(t *testing.T, e *model.Error) {
				if e.ContextInForce != 2048 || e.PromptTokens != 3037 || e.Status != 400 {
					t.Errorf("overflow: n_ctx %d, n_prompt_tokens %d, status %d; want 2048, 3037, 400", e.ContextInForce, e.PromptTokens, e.Status)
				}
			}},
		{name: "Ollama's overflow says no figures", server: ollamaV1,
			steps:    []wiretest.Step{wiretest.Fail(400, wiretest.MustLoad("chat-numctx-above-trained").ErrorMessage())},
			wantCode: model.CodeContextOverflow, attempts: []string{model.CodeContextOverflow},
			check: func(t *testing.T, e *model.Error) {
				if e.ContextInForce != 0 || e.PromptTokens != 0 {
					t.Errorf("overflow figures %d, %d from a body that has none", e.ContextInForce, e.PromptTokens)
				}
			}},
		{name: "the parse 500 is retried once, then the turn says why", server: llama,
			steps: []wiretest.Step{wiretest.Recorded("llama-server/openai-peg-parse-error"), wiretest.Recorded("llama-server/openai-peg-parse-error"),
				wiretest.Recorded("llama-server/openai-peg-parse-error"), wiretest.Recorded("llama-server/openai-peg-parse-error")},
			wantCode: model.CodeServerError, wantInError: "not retried again: the server's parser rejected the model's output twice",
			attempts: []string{model.CodeServerError, model.CodeServerError}},
		{name: "streamed, the parse error is an error event: its own outcome, retried once", server: llama,
			steps: []wiretest.Step{wiretest.Recorded("llama-server/openai-stream-peg-parse-error"), wiretest.Recorded("llama-server/openai-stream-peg-parse-error"),
				wiretest.Recorded("llama-server/openai-stream-peg-parse-error")},
			wantCode: model.CodeStreamError, wantInError: peg,
			attempts: []string{model.CodeStreamError, model.CodeStreamError}},
		{name: "llama-server with a tool offered: the parse error right after the role chunk", server: llama,
			steps:    []wiretest.Step{wiretest.Recorded("llama-server/openai-stream-tools"), wiretest.Recorded("llama-server/openai-stream-tools"), wiretest.Recorded("llama-server/openai-stream-tools")},
			wantCode: model.CodeStreamError, wantInError: peg,
			attempts: []string{model.CodeStreamError, model.CodeStreamError}},
		{name: "llama-server with tool_choice required: plain content, no tool call", server: llama,
			steps:       []wiretest.Step{wiretest.Recorded("llama-server/openai-stream-tools-required")},
			wantMetrics: &schemas.Metrics{PromptTokens: new(195), OutputTokens: new(64), PromptEvalTokens: new(1), CachedTokens: new(194), PromptEvalMS: new(int64(54)), EvalMS: new(int64(292))},
			attempts:    []string{""}},
		{name: "the same 500 twice at temperature 0 is not retried a third time", server: llama,
			steps:    []wiretest.Step{wiretest.Fail(500, "slot unavailable"), wiretest.Fail(500, "slot unavailable"), wiretest.Text("x")},
			wantCode: model.CodeServerError, wantInError: "same request at temperature 0 got the same error twice",
			attempts: []string{model.CodeServerError, model.CodeServerError}},
		{name: "sampled (temperature 0.7), the same 500 is retried up to Max", server: llama, temperature: 0.7,
			steps:     []wiretest.Step{wiretest.Fail(500, "slot unavailable"), wiretest.Fail(500, "slot unavailable"), wiretest.Text("x")},
			wantReply: schemas.Reply{Content: "x", FinishReason: "stop"},
			attempts:  []string{model.CodeServerError, model.CodeServerError, ""}},
		{name: "an error event after content, then an answer: the partial reply is dropped", server: llama,
			steps:     []wiretest.Step{wiretest.Text("partial reply").ErrorAfter(3, "boom"), wiretest.Text("whole")},
			wantReply: schemas.Reply{Content: "whole", FinishReason: "stop"},
			attempts:  []string{model.CodeStreamError, ""}},
		{name: "llama-server b5929's reasoning_content gathered apart from the content", server: llama,
			steps:     []wiretest.Step{wiretest.Recorded("llama-server/openai-stream-reasoning")},
			wantReply: schemas.Reply{Thinking: "enda spawns podr featurenych irrigationo", Content: "READ greet.py", FinishReason: "stop"},
			// b5929 puts usage and timings on the finish chunk, and has
			// no cache_n: the cached count stays absent.
			wantMetrics: &schemas.Metrics{PromptTokens: new(25), OutputTokens: new(16), PromptEvalTokens: new(1), PromptEvalMS: new(int64(675)), EvalMS: new(int64(22035))},
			attempts:    []string{""}},
		{name: "a reply cut inside its reasoning: thinking, no content, length", server: llama,
			steps:     []wiretest.Step{wiretest.Recorded("llama-server/openai-stream-reasoning-cut")},
			wantReply: schemas.Reply{Thinking: "enda spawns podr feature", FinishReason: "length"},
			attempts:  []string{""}},
		{name: "--reasoning-format none: the thinking stays in the content, its opening tag in the prompt", server: llama,
			steps:     []wiretest.Step{wiretest.Recorded("llama-server/openai-stream-reasoning-format-none")},
			wantReply: schemas.Reply{Content: "enda spawns podr featurenych irrigationo</think>\nREAD greet.py", FinishReason: "stop"},
			attempts:  []string{""}},
		{name: "a model-written <think> streamed by b5929: the tag's first tokens reach the content", server: llama,
			steps:     []wiretest.Step{wiretest.Recorded("llama-server/openai-stream-reasoning-qwen3-enable-thinking")},
			wantReply: schemas.Reply{Thinking: "xpath nipplesunixremaining temiz savings", Content: "<thinkRUN tests", FinishReason: "stop"},
			attempts:  []string{""}},
		{name: "Ollama /v1's delta.reasoning gathered apart from the content", server: ollamaV1,
			steps:       []wiretest.Step{wiretest.Recorded("openai-stream-think")},
			wantReply:   schemas.Reply{Thinking: "problème Kathy بایjos\t\t\r\n\t\t\r\n ", Content: "032410 attenuation?v MEMBER Tibetan clientId ngắn", FinishReason: "length"},
			wantMetrics: &schemas.Metrics{PromptTokens: new(32), OutputTokens: new(16)},
			attempts:    []string{""}},
		{name: "Ollama /v1 truncated silently; no durations reported, none recorded", server: ollamaV1,
			steps:       []wiretest.Step{wiretest.Recorded("openai-stream-silent-truncation")},
			wantMetrics: &schemas.Metrics{PromptTokens: new(3656), OutputTokens: new(16)},
			attempts:    []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, srv := tt.server(t)
			srv.Push(tt.steps...)
			c, err := openai.New(openai.Config{BaseURL: url, Model: "tiny", IdleTimeout: 5 * time.Second, Retry: model.Retry{Base: time.Millisecond, Sleep: noSleep}})
			if err != nil {
				t.Fatal(err)
			}
			req := ask("hello world", 600)
			req.Options.Temperature = tt.temperature
			got, err := c.Chat(context.Background(), req)
			var attempts []schemas.Attempt
			if tt.wantCode != "" {
				var e *model.Error
				if !errors.As(err, &e) || e.Code != tt.wantCode || !strings.Contains(e.Error(), tt.wantInError) {
					t.Fatalf("error = %v, want %s containing %q", err, tt.wantCode, tt.wantInError)
				}
				if tt.check != nil {
					tt.check(t, e)
				}
				attempts = e.Attempts
			} else {
				if err != nil {
					t.Fatal(err)
				}
				attempts = got.Attempts
				if tt.wantReply.FinishReason != "" && !reflect.DeepEqual(got.Reply, tt.wantReply) {
					t.Errorf("reply = %+v, want %+v", got.Reply, tt.wantReply)
				}
				if tt.wantMetrics != nil {
					m := got.Metrics
					m.TotalMS, m.TTFTMS = 0, nil
					if !reflect.DeepEqual(m, *tt.wantMetrics) {
						t.Errorf("metrics = %s, want %s", show(m), show(*tt.wantMetrics))
					}
				}
			}
			var codes []string
			for _, a := range attempts {
				code, _, _ := strings.Cut(a.Error, ":")
				codes = append(codes, code)
			}
			if !reflect.DeepEqual(codes, tt.attempts) || len(srv.ChatRequests()) != len(tt.attempts) {
				t.Errorf("attempts = %q (%d requests), want %q", codes, len(srv.ChatRequests()), tt.attempts)
			}
		})
	}
}

func show(m schemas.Metrics) string {
	f := func(p *int) string {
		if p == nil {
			return "-"
		}
		return strconv.Itoa(*p)
	}
	g := func(p *int64) string {
		if p == nil {
			return "-"
		}
		return strconv.FormatInt(*p, 10)
	}
	return "prompt " + f(m.PromptTokens) + " output " + f(m.OutputTokens) + " eval " + f(m.PromptEvalTokens) + " cached " + f(m.CachedTokens) +
		" load_ms " + g(m.LoadMS) + " prompt_eval_ms " + g(m.PromptEvalMS) + " eval_ms " + g(m.EvalMS)
}
