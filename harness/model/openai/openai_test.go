package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pyharness/pyharness/harness/model"
	"github.com/pyharness/pyharness/harness/model/openai"
	"github.com/pyharness/pyharness/internal/testkit/wiretest"
	"github.com/pyharness/pyharness/schemas"
)

func noSleep(ctx context.Context, _ time.Duration) error { return ctx.Err() }

func newClient(t *testing.T, srv *wiretest.OpenAI, key, name string, idle time.Duration) *openai.Client {
	t.Helper()
	if idle == 0 {
		idle = 5 * time.Second
	}
	c, err := openai.New(openai.Config{BaseURL: srv.URL, APIKey: key, Model: name, IdleTimeout: idle, Retry: model.Retry{Base: time.Millisecond, Sleep: noSleep}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func ask(content string, numPredict int) model.Request {
	return model.Request{
		Messages: []schemas.Message{{Role: "user", Content: content}},
		Options:  schemas.Options{Seed: 0, Temperature: 0, NumCtx: 256, NumPredict: numPredict},
	}
}

func TestChat(t *testing.T) {
	tests := []struct {
		name          string
		contextLength int
		modelName     string
		steps         []wiretest.Step
		req           model.Request
		idle          time.Duration
		want          schemas.Reply
		wantMetrics   *schemas.Metrics // TotalMS and TTFTMS aside
		attempts      int
		wantCode      string
		wantMsg       string
	}{
		{
			name:  "recorded stream with usage",
			steps: []wiretest.Step{wiretest.Recorded("openai-stream-usage")},
			req:   ask("hello world", 4), attempts: 1,
			want:        schemas.Reply{Content: "Q~\bv", FinishReason: "length"},
			wantMetrics: &schemas.Metrics{PromptTokens: new(29), OutputTokens: new(4)},
		},
		{
			name: "tool calls with arguments over two deltas",
			steps: []wiretest.Step{wiretest.Answer(wiretest.Reply{ToolCalls: []schemas.ToolCall{
				{ID: "call_a", Name: "read_file", Arguments: map[string]any{"path": "wordcount.py"}},
				{ID: "call_b", Name: "run_tests", Arguments: map[string]any{}},
			}})},
			req: ask("hi", 64), attempts: 1,
			want: schemas.Reply{FinishReason: "tool_calls", ToolCalls: []schemas.ToolCall{
				{ID: "call_a", Name: "read_file", Arguments: map[string]any{"path": "wordcount.py"}},
				{ID: "call_b", Name: "run_tests", Arguments: map[string]any{}},
			}},
		},
		{
			name:  "reasoning gathered as thinking",
			steps: []wiretest.Step{wiretest.Answer(wiretest.Reply{Thinking: "check the loader", Content: "READ x.py"})},
			req:   ask("hi", 64), attempts: 1,
			want: schemas.Reply{Thinking: "check the loader", Content: "READ x.py", FinishReason: "stop"},
		},
		{
			name:  "error event after the output started is retried",
			steps: []wiretest.Step{wiretest.Text("READ x.py").ErrorAfter(2, "the runner died"), wiretest.Text("READ x.py")},
			req:   ask("hi", 64), attempts: 2,
			want: schemas.Reply{Content: "READ x.py", FinishReason: "stop"},
		},
		{
			name:  "stall mid-stream times out",
			steps: []wiretest.Step{wiretest.Text("READ x.py").StallAfter(1), wiretest.Text("READ x.py")},
			req:   ask("hi", 64), attempts: 2, idle: 100 * time.Millisecond,
			want: schemas.Reply{Content: "READ x.py", FinishReason: "stop"},
		},
		{
			name:  "503 retried",
			steps: []wiretest.Step{wiretest.Fail(503, "busy"), wiretest.Text("ok")},
			req:   ask("hi", 64), attempts: 2,
			want: schemas.Reply{Content: "ok", FinishReason: "stop"},
		},
		{
			name: "unknown model, as the server decides", modelName: "nope", steps: []wiretest.Step{wiretest.Text("x")},
			req: ask("x", 64), wantCode: model.CodeModelNotFound, wantMsg: "model 'nope' not found",
		},
		{
			name: "context overflow, as the server decides", contextLength: 64, steps: []wiretest.Step{wiretest.Text("x")},
			req: ask(strings.Repeat("x", 300), 16), wantCode: model.CodeContextOverflow,
			wantMsg: "This model's maximum context length is 64 tokens. However, you requested 120 tokens (104 in the messages, 16 in the completion). Please reduce the length of the messages or completion.",
		},
		{
			name: "tools unsupported", steps: []wiretest.Step{wiretest.Fail(400, "registry.ollama.ai/library/tiny:latest does not support tools")},
			req: ask("x", 64), wantCode: model.CodeToolsUnsupported, wantMsg: "registry.ollama.ai/library/tiny:latest does not support tools",
		},
		{
			name: "401 is not retried", steps: []wiretest.Step{wiretest.Fail(401, "invalid api key")},
			req: ask("x", 64), wantCode: model.CodeBadRequest, wantMsg: "invalid api key",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := wiretest.NewOpenAI(t)
			srv.ContextLength = tt.contextLength
			srv.Push(tt.steps...)
			name := tt.modelName
			if name == "" {
				name = "tiny"
			}
			got, err := newClient(t, srv, "sk-test", name, tt.idle).Chat(context.Background(), tt.req)
			if tt.wantCode != "" {
				var e *model.Error
				if !errors.As(err, &e) || e.Code != tt.wantCode || e.Message != tt.wantMsg || len(e.Attempts) != 1 {
					t.Fatalf("error = %v, want %s %q after one attempt", err, tt.wantCode, tt.wantMsg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Reply, tt.want) {
				t.Errorf("reply = %+v\nwant %+v", got.Reply, tt.want)
			}
			if len(got.Attempts) != tt.attempts {
				t.Errorf("attempts = %+v, want %d", got.Attempts, tt.attempts)
			}
			if tt.wantMetrics != nil {
				m := got.Metrics
				m.TotalMS, m.TTFTMS = 0, nil
				if !reflect.DeepEqual(m, *tt.wantMetrics) {
					t.Errorf("metrics = %+v, want %+v", m, *tt.wantMetrics)
				}
			}
		})
	}
}

// TestRequestOnTheWire checks what reaches the server: zeros sent,
// max_tokens left out when there is no positive limit, usage asked for,
// the key as a bearer token, tools and tool results in the OpenAI shape.
func TestRequestOnTheWire(t *testing.T) {
	srv := wiretest.NewOpenAI(t)
	srv.Push(wiretest.Text("ok"))
	req := model.Request{
		Messages: []schemas.Message{
			{Role: "system", Content: "SYS"},
			{Role: "assistant", ToolCalls: []schemas.ToolCall{{ID: "call_1", Name: "read_file", Arguments: map[string]any{"path": "x.py"}}}},
			{Role: "tool", Content: "print(1)", ToolCallID: "call_1"},
		},
		Options: schemas.Options{Seed: 0, Temperature: 0, NumCtx: 2048, NumPredict: -1},
		Tools:   []model.Tool{{Name: "read_file", Description: "Read a file", Parameters: map[string]any{"type": "object"}}},
	}
	if _, err := newClient(t, srv, "sk-test", "tiny", 0).Chat(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	r := srv.ChatRequests()[0]
	for key, want := range map[string]any{"seed": 0.0, "temperature": 0.0, "stream": true, "model": "tiny"} {
		if got, ok := r.Lookup(key); !ok || got != want {
			t.Errorf("%s = %v (present %v), want %v", key, got, ok, want)
		}
	}
	for _, key := range []string{"max_tokens", "num_ctx", "options", "chat_template_kwargs"} {
		if got, ok := r.Lookup(key); ok {
			t.Errorf("%s sent (%v), want it left out", key, got)
		}
	}
	if got := r.Header.Get("Authorization"); got != "Bearer sk-test" {
		t.Errorf("Authorization = %q", got)
	}
	msgs, _ := r.Lookup("messages")
	want := []any{
		map[string]any{"role": "system", "content": "SYS"},
		map[string]any{"role": "assistant", "content": "", "tool_calls": []any{map[string]any{"id": "call_1", "type": "function", "function": map[string]any{"name": "read_file", "arguments": `{"path":"x.py"}`}}}},
		map[string]any{"role": "tool", "content": "print(1)", "tool_call_id": "call_1"},
	}
	if !reflect.DeepEqual(msgs, want) {
		t.Errorf("messages = %v\nwant %v", msgs, want)
	}
	tools, _ := r.Lookup("tools")
	wantTools := []any{map[string]any{"type": "function", "function": map[string]any{"name": "read_file", "description": "Read a file", "parameters": map[string]any{"type": "object"}}}}
	if !reflect.DeepEqual(tools, wantTools) {
		t.Errorf("tools = %v\nwant %v", tools, wantTools)
	}
}

// TestThinkOnTheWire: --think sends the chat_template_kwargs the recorded
// llama-server (b5929) took with its Qwen3 template, and the thinking of
// its answer comes back apart from the content.
func TestThinkOnTheWire(t *testing.T) {
	rec := wiretest.MustLoad("llama-server/openai-stream-reasoning-qwen3-enable-thinking")
	var recorded struct {
		Kwargs map[string]any `json:"chat_template_kwargs"`
	}
	if err := json.Unmarshal(rec.RequestBody, &recorded); err != nil || recorded.Kwargs == nil {
		t.Fatalf("recorded request %s: %v", rec.RequestBody, err)
	}
	srv := wiretest.NewLlamaServer(t)
	srv.Push(wiretest.Recorded(rec.Name))
	c, err := openai.New(openai.Config{BaseURL: srv.URL, Model: "tiny", IdleTimeout: 5 * time.Second, Retry: model.Retry{Base: time.Millisecond, Sleep: noSleep}})
	if err != nil {
		t.Fatal(err)
	}
	req := ask("Fix greet.py so the tests pass.", 64)
	req.Options.Think = true
	got, err := c.Chat(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if kw, _ := srv.ChatRequests()[0].Lookup("chat_template_kwargs"); !reflect.DeepEqual(kw, recorded.Kwargs) {
		t.Errorf("chat_template_kwargs = %v, the recorded request sent %v", kw, recorded.Kwargs)
	}
	if got.Thinking == "" || strings.Contains(got.Content, got.Thinking) {
		t.Errorf("reply: thinking %q, content %q; want the thinking apart", got.Thinking, got.Content)
	}
}

// TestNoKey: an empty key sends no Authorization, even with a stray
// OPENAI_API_KEY in the environment.
func TestNoKey(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-not-for-this-server")
	srv := wiretest.NewOpenAI(t)
	srv.Push(wiretest.Text("ok"))
	if _, err := newClient(t, srv, "", "tiny", 0).Chat(context.Background(), ask("hi", 8)); err != nil {
		t.Fatal(err)
	}
	if got := srv.ChatRequests()[0].Header.Get("Authorization"); got != "" {
		t.Errorf("Authorization = %q, want none", got)
	}
}

func TestConnectionRefused(t *testing.T) {
	srv := wiretest.NewOpenAI(t)
	url := srv.URL
	srv.Close()
	c, err := openai.New(openai.Config{BaseURL: url, Model: "tiny", Retry: model.Retry{Max: 1, Sleep: noSleep}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Chat(context.Background(), ask("hi", 8))
	var e *model.Error
	if !errors.As(err, &e) || e.Code != model.CodeConnectionRefused || len(e.Attempts) != 2 {
		t.Fatalf("error = %v, want connection-refused after 2 attempts", err)
	}
}

// TestInfo: discovery on both server families. On llama-server, which
// has no GET /v1/models/{id} and answers for any model name, the model is
// present and its window is learned; behind Ollama's /v1, the trained
// context comes from /api/show at the root.
func TestInfo(t *testing.T) {
	show := wiretest.MustLoad("show-tiny")
	tests := []struct {
		name   string
		server func(t *testing.T) (url string, requests func() []wiretest.Request)
		model  string
		want   model.Info // Host is filled in
		code   string     // the error's code, "" for none
	}{
		{name: "ollama /v1: listed, trained context from /api/show", model: "tiny",
			server: func(t *testing.T) (string, func() []wiretest.Request) {
				srv := wiretest.NewOpenAI(t)
				return srv.URL, srv.Requests
			},
			want: model.Info{Backend: "openai", Name: "tiny", ContextLength: 4096, Server: model.ServerOllama, Capabilities: []string{"completion"}}},
		{name: "ollama /v1: a model it does not list is not found", model: "nope",
			server: func(t *testing.T) (string, func() []wiretest.Request) {
				srv := wiretest.NewOpenAI(t)
				return srv.URL, srv.Requests
			},
			code: model.CodeModelNotFound},
		{name: "llama-server: present, window 2048 of trained 4096", model: "tiny",
			server: func(t *testing.T) (string, func() []wiretest.Request) {
				srv := wiretest.NewLlamaServer(t)
				return srv.URL, srv.Requests
			},
			want: model.Info{Backend: "openai", Name: "tiny", ContextLength: 4096, ContextInForce: 2048, Server: model.ServerLlama}},
		{name: "llama-server: any name is the model it serves", model: "whatever",
			server: func(t *testing.T) (string, func() []wiretest.Request) {
				srv := wiretest.NewLlamaServer(t)
				return srv.URL, srv.Requests
			},
			want: model.Info{Backend: "openai", Name: "whatever", ContextLength: 4096, ContextInForce: 2048, Server: model.ServerLlama}},
		{name: "llama-server started with -c 1024", model: "tiny",
			server: func(t *testing.T) (string, func() []wiretest.Request) {
				srv := wiretest.NewLlamaServer(t)
				srv.NCtx = 1024
				return srv.URL, srv.Requests
			},
			want: model.Info{Backend: "openai", Name: "tiny", ContextLength: 4096, ContextInForce: 1024, Server: model.ServerLlama}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, requests := tt.server(t)
			c, err := openai.New(openai.Config{BaseURL: url, Model: tt.model})
			if err != nil {
				t.Fatal(err)
			}
			info, err := c.Info(context.Background())
			if tt.code != "" {
				if codeOf(err) != tt.code {
					t.Fatalf("Info = %v, want %s", err, tt.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.want.Host = url
			if tt.want.Server == model.ServerOllama {
				var s struct{ Template string }
				json.Unmarshal(show.Body, &s)
				tt.want.Template = s.Template
			}
			if tt.want.Server == model.ServerLlama {
				// /props gives the chat template and its special tokens.
				var p struct {
					ChatTemplate string `json:"chat_template"`
					BOS          string `json:"bos_token"`
					EOS          string `json:"eos_token"`
				}
				json.Unmarshal(wiretest.MustLoad("llama-server/props").Body, &p)
				if p.ChatTemplate == "" {
					t.Fatal("the recorded /props has no chat_template")
				}
				tt.want.ChatTemplate, tt.want.BOS, tt.want.EOS = p.ChatTemplate, p.BOS, p.EOS
			}
			notes := info.Notes
			info.Notes = nil
			if !reflect.DeepEqual(info, tt.want) {
				t.Errorf("Info =\n%+v, want\n%+v", info, tt.want)
			}
			if tt.want.Server == model.ServerLlama && (len(notes) == 0 || !strings.Contains(notes[0], "answers for any model name")) {
				t.Errorf("notes = %q, want one saying llama-server answers for any model name", notes)
			}
			for _, r := range requests() {
				if strings.HasPrefix(r.Path, "/v1/models/") {
					t.Errorf("Info asked %s %s: a route llama-server does not have", r.Method, r.Path)
				}
			}
		})
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	for _, cfg := range []openai.Config{{BaseURL: "http://x/v1"}, {BaseURL: "not a url", Model: "m"}, {Model: "m"}} {
		if _, err := openai.New(cfg); err == nil {
			t.Errorf("New(%+v) = nil error", cfg)
		}
	}
}

// codeOf is the Code of the *model.Error in err's chain, or "" when there
// is none.
func codeOf(err error) string {
	var e *model.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}
