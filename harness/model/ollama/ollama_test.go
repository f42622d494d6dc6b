package ollama_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pyharness/pyharness/harness/model"
	"github.com/pyharness/pyharness/harness/model/ollama"
	"github.com/pyharness/pyharness/internal/testkit/wiretest"
	"github.com/pyharness/pyharness/schemas"
)

func noSleep(ctx context.Context, _ time.Duration) error { return ctx.Err() }

func newClient(t *testing.T, srv *wiretest.Ollama, name string) *ollama.Client {
	t.Helper()
	c, err := ollama.New(ollama.Config{Host: srv.URL, Model: name, IdleTimeout: 5 * time.Second, Retry: model.Retry{Base: time.Millisecond, Sleep: noSleep}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func ask(content string, numCtx int) model.Request {
	return model.Request{
		Messages: []schemas.Message{{Role: "user", Content: content}},
		Options:  schemas.Options{Seed: 0, Temperature: 0, NumCtx: numCtx, NumPredict: 64},
	}
}

// askThinking is the recorded thinking exchanges' request, with --think.
func askThinking() model.Request {
	r := ask("Fix greet.py so the tests pass.", 256)
	r.Options.Think = true
	return r
}

func TestChat(t *testing.T) {
	readFile := model.Tool{Name: "read_file", Description: "Read a file", Parameters: map[string]any{
		"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}, "required": []any{"path"},
	}}
	long := strings.Repeat("abc def ", 100)
	tests := []struct {
		name      string
		tools     bool // the model supports tools
		modelName string
		steps     []wiretest.Step
		req       model.Request
		want      model.Reply // compared on Reply, Truncated, Warnings, attempt count
		attempts  int
		wantCode  string
		wantMsg   string
		idle      time.Duration // 5s unless the case is about a stall
	}{
		{
			name:  "content gathered over chunks",
			steps: []wiretest.Step{wiretest.Answer(wiretest.Reply{Chunks: []string{"RE", "AD", " x", ".py"}})},
			req:   ask("hi", 256), attempts: 1,
			want: model.Reply{Reply: schemas.Reply{Content: "READ x.py", FinishReason: "stop"}},
		},
		{
			name:  "tool calls in a done:false chunk",
			tools: true,
			steps: []wiretest.Step{wiretest.Answer(wiretest.Reply{Content: "Let me look.", ToolCalls: []schemas.ToolCall{
				{ID: "call_a", Name: "read_file", Arguments: map[string]any{"path": "wordcount.py"}},
				{ID: "call_b", Name: "read_file", Arguments: map[string]any{"path": "test_wordcount.py"}},
			}})},
			req: func() model.Request { r := ask("hi", 256); r.Tools = []model.Tool{readFile}; return r }(), attempts: 1,
			want: model.Reply{Reply: schemas.Reply{Content: "Let me look.", FinishReason: "stop", ToolCalls: []schemas.ToolCall{
				{ID: "call_a", Name: "read_file", Arguments: map[string]any{"path": "wordcount.py"}},
				{ID: "call_b", Name: "read_file", Arguments: map[string]any{"path": "test_wordcount.py"}},
			}}},
		},
		{
			name:  "thinking only, stopped by length",
			steps: []wiretest.Step{wiretest.Answer(wiretest.Reply{Thinking: "The loader reads the file twice", DoneReason: "length"})},
			req:   ask("hi", 256), attempts: 1,
			want: model.Reply{Reply: schemas.Reply{Thinking: "The loader reads the file twice", FinishReason: "length"}},
		},
		{
			name:  "recorded thinking, then the answer, gathered apart",
			steps: []wiretest.Step{wiretest.Recorded("chat-think-closed-stream")},
			req:   askThinking(), attempts: 1,
			want: model.Reply{Reply: schemas.Reply{Thinking: "problème Kathy بایjos\t\t\r\n\t\t\r\n ", Content: "032410 attenuation?v MEMBER Tibetan clientId ngắn", FinishReason: "length"}},
		},
		{
			name:  "the same not streamed, one object",
			steps: []wiretest.Step{wiretest.Recorded("chat-think-closed-nostream")},
			req:   askThinking(), attempts: 1,
			want: model.Reply{Reply: schemas.Reply{Thinking: "problème Kathy بایjos\t\t\r\n\t\t\r\n ", Content: "032410 attenuation?v MEMBER Tibetan clientId ngắn", FinishReason: "length"}},
		},
		{
			name:  "recorded reply cut inside its thinking: no content",
			steps: []wiretest.Step{wiretest.Recorded("chat-think-stream")},
			req:   askThinking(), attempts: 1,
			want: model.Reply{Reply: schemas.Reply{Thinking: "problème Kathy بایjos\t\t\r\n\t\t\r\n knocks032410", FinishReason: "length"}},
		},
		{
			name:  "the same not streamed",
			steps: []wiretest.Step{wiretest.Recorded("chat-think-nostream")},
			req:   askThinking(), attempts: 1,
			want: model.Reply{Reply: schemas.Reply{Thinking: "problème Kathy بایjos\t\t\r\n\t\t\r\n knocks032410", FinishReason: "length"}},
		},
		{
			name: "think refused for a model without the capability, as the recorded server refused it", steps: []wiretest.Step{wiretest.Text("x")},
			req: askThinking(), wantCode: model.CodeBadRequest, wantMsg: wiretest.MustLoad("chat-think-unsupported").ErrorMessage(),
		},
		{
			name:  "recorded length stop with shift false",
			steps: []wiretest.Step{wiretest.Recorded("chat-length-shift-false")},
			req:   ask("hello world", 128), attempts: 1,
			want: model.Reply{Reply: schemas.Reply{Content: recordedContent(t, "chat-length-shift-false"), FinishReason: "length"}},
		},
		{
			name:  "prompt_eval_count equal to num_ctx is flagged",
			steps: []wiretest.Step{wiretest.Recorded("chat-single-long-runner-cut")},
			req:   ask(long, 128), attempts: 1,
			want: model.Reply{Reply: schemas.Reply{Content: "N2$", FinishReason: "length"}, Truncated: true,
				Warnings: []string{"prompt-truncated: the server counted 128 prompt tokens, exactly num_ctx: the runner cut the prompt"}},
		},
		{
			name:  "recorded silent truncation (prompt_eval_count below num_ctx) is not flagged here",
			steps: []wiretest.Step{wiretest.Recorded("chat-silent-truncation")},
			req:   ask(long, 128), attempts: 1,
			want: model.Reply{Reply: schemas.Reply{Content: "ז&", FinishReason: "length"}},
		},
		{
			name:  "error line after the output started is retried",
			steps: []wiretest.Step{wiretest.Text("READ x.py").ErrorAfter(2, "an error was encountered while running the model"), wiretest.Text("READ x.py")},
			req:   ask("hi", 256), attempts: 2,
			want: model.Reply{Reply: schemas.Reply{Content: "READ x.py", FinishReason: "stop"}},
		},
		{
			name:  "stall mid-stream times out",
			steps: []wiretest.Step{wiretest.Text("READ x.py").StallAfter(1), wiretest.Text("READ x.py")},
			req:   ask("hi", 256), attempts: 2, idle: 100 * time.Millisecond,
			want: model.Reply{Reply: schemas.Reply{Content: "READ x.py", FinishReason: "stop"}},
		},
		{
			name: "503 busy is retried", steps: []wiretest.Step{wiretest.Fail(503, "server busy, please try again.  maximum pending requests exceeded"), wiretest.Text("ok")},
			req: ask("hi", 256), attempts: 2,
			want: model.Reply{Reply: schemas.Reply{Content: "ok", FinishReason: "stop"}},
		},
		{
			name: "503 without a body is retried", steps: []wiretest.Step{wiretest.Fail(503, ""), wiretest.Text("ok")},
			req: ask("hi", 256), attempts: 2,
			want: model.Reply{Reply: schemas.Reply{Content: "ok", FinishReason: "stop"}},
		},
		{
			name: "unknown model, as the server decides", modelName: "llama3.1:8b", steps: []wiretest.Step{wiretest.Text("x")},
			req: ask("hi", 256), wantCode: model.CodeModelNotFound, wantMsg: "model 'llama3.1:8b' not found",
		},
		{
			name: "tools unsupported, as the recorded model answered", steps: []wiretest.Step{wiretest.Text("x")},
			req:      func() model.Request { r := ask("hi", 256); r.Tools = []model.Tool{readFile}; return r }(),
			wantCode: model.CodeToolsUnsupported, wantMsg: wiretest.MustLoad("chat-tools-unsupported").ErrorMessage(),
		},
		{
			name: "prompt over num_ctx refused, truncate being false", steps: []wiretest.Step{wiretest.Text("x")},
			req: ask(long, 128), wantCode: model.CodeContextOverflow, wantMsg: "the input length exceeds the context length",
		},
		{
			name: "other 400", steps: []wiretest.Step{wiretest.Fail(400, "invalid message format")},
			req: ask("hi", 256), wantCode: model.CodeBadRequest, wantMsg: "invalid message format",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := wiretest.NewOllama(t)
			srv.Tools = tt.tools
			srv.Push(tt.steps...)
			name := tt.modelName
			if name == "" {
				name = "tiny"
			}
			idle := tt.idle
			if idle == 0 {
				idle = 5 * time.Second
			}
			c, err := ollama.New(ollama.Config{Host: srv.URL, Model: name, IdleTimeout: idle, Retry: model.Retry{Base: time.Millisecond, Sleep: noSleep}})
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.Chat(context.Background(), tt.req)
			if tt.wantCode != "" {
				var e *model.Error
				if !errors.As(err, &e) || e.Code != tt.wantCode || e.Message != tt.wantMsg || len(e.Attempts) != 1 {
					t.Fatalf("error = %v (attempts %+v), want %s %q after one attempt", err, e.Attempts, tt.wantCode, tt.wantMsg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Reply, tt.want.Reply) || got.Truncated != tt.want.Truncated || !reflect.DeepEqual(got.Warnings, tt.want.Warnings) {
				t.Errorf("reply = %+v truncated=%v warnings=%q\nwant %+v truncated=%v warnings=%q", got.Reply, got.Truncated, got.Warnings, tt.want.Reply, tt.want.Truncated, tt.want.Warnings)
			}
			if len(got.Attempts) != tt.attempts {
				t.Errorf("attempts = %+v, want %d", got.Attempts, tt.attempts)
			}
		})
	}
}

func recordedContent(t *testing.T, name string) string {
	var b strings.Builder
	for _, u := range wiretest.MustLoad(name).Units() {
		var c struct {
			Message struct{ Content string } `json:"message"`
		}
		if err := jsonUnmarshal(u, &c); err != nil {
			t.Fatal(err)
		}
		b.WriteString(c.Message.Content)
	}
	return b.String()
}

// TestRequestOnTheWire checks the bytes that reach the server: zeros that
// api.Options would drop, truncate and shift off, tools, tool results.
func TestRequestOnTheWire(t *testing.T) {
	srv := wiretest.NewOllama(t)
	srv.Tools = true
	srv.Push(wiretest.Text("ok"))
	c := newClient(t, srv, "tiny")
	req := model.Request{
		Messages: []schemas.Message{
			{Role: "system", Content: "SYS"},
			{Role: "user", Content: "fix it"},
			{Role: "assistant", ToolCalls: []schemas.ToolCall{{ID: "call_1", Name: "read_file", Arguments: map[string]any{"path": "x.py"}}}},
			{Role: "tool", Content: "print(1)", ToolCallID: "call_1"},
		},
		Options: schemas.Options{Seed: 0, Temperature: 0, NumCtx: 2048, NumPredict: 0},
		Tools:   []model.Tool{{Name: "read_file", Parameters: map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}}}},
	}
	if _, err := c.Chat(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	r := srv.ChatRequests()[0]
	for _, tt := range []struct {
		path []string
		want any
	}{
		{[]string{"options", "temperature"}, 0.0},
		{[]string{"options", "seed"}, 0.0},
		{[]string{"options", "num_ctx"}, 2048.0},
		{[]string{"options", "num_predict"}, 0.0},
		{[]string{"truncate"}, false},
		{[]string{"shift"}, false},
		{[]string{"stream"}, true},
		{[]string{"model"}, "tiny"},
	} {
		if got, ok := r.Lookup(tt.path...); !ok || got != tt.want {
			t.Errorf("%s = %v (present: %v), want %v", strings.Join(tt.path, "."), got, ok, tt.want)
		}
	}
	msgs, _ := r.Lookup("messages")
	want := []any{
		map[string]any{"role": "system", "content": "SYS"},
		map[string]any{"role": "user", "content": "fix it"},
		map[string]any{"role": "assistant", "content": "", "tool_calls": []any{map[string]any{"id": "call_1", "function": map[string]any{"index": 0.0, "name": "read_file", "arguments": map[string]any{"path": "x.py"}}}}},
		map[string]any{"role": "tool", "content": "print(1)", "tool_name": "read_file", "tool_call_id": "call_1"},
	}
	if !reflect.DeepEqual(msgs, want) {
		t.Errorf("messages = %v\nwant %v", msgs, want)
	}
	if name, _ := r.Lookup("tools"); !strings.Contains(jsonString(name), `"name":"read_file"`) || !strings.Contains(jsonString(name), `"path":{"type":"string"}`) {
		t.Errorf("tools = %s", jsonString(name))
	}
}

// TestThinkOnTheWire: --think sends think: true; without it, think is
// left out for the server to decide.
func TestThinkOnTheWire(t *testing.T) {
	for _, think := range []bool{true, false} {
		srv := wiretest.NewOllama(t)
		srv.Thinking = true
		srv.Push(wiretest.Text("ok"))
		req := ask("hi", 256)
		req.Options.Think = think
		if _, err := newClient(t, srv, "tiny").Chat(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		got, sent := srv.ChatRequests()[0].Lookup("think")
		if sent != think || (think && got != true) {
			t.Errorf("Options.Think %v: think = %v (sent: %v)", think, got, sent)
		}
	}
}

func TestConnectionRefused(t *testing.T) {
	srv := wiretest.NewOllama(t)
	url := srv.URL
	srv.Close()
	waits := 0
	c, err := ollama.New(ollama.Config{Host: url, Model: "tiny", Retry: model.Retry{Max: 2, Sleep: func(ctx context.Context, d time.Duration) error { waits++; return nil }}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Chat(context.Background(), ask("hi", 256))
	var e *model.Error
	if !errors.As(err, &e) || e.Code != model.CodeConnectionRefused || !e.Retryable || len(e.Attempts) != 3 || waits != 2 {
		t.Fatalf("error = %v (%d waits), want connection-refused after 3 attempts", err, waits)
	}
}

func TestHostFromEnvironment(t *testing.T) {
	srv := wiretest.NewOllama(t)
	srv.Push(wiretest.Text("ok"))
	t.Setenv("OLLAMA_HOST", srv.URL)
	c, err := ollama.New(ollama.Config{Model: "tiny"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Host() != srv.URL {
		t.Errorf("Host() = %q, want %q", c.Host(), srv.URL)
	}
	if got, err := c.Chat(context.Background(), ask("hi", 256)); err != nil || got.Content != "ok" {
		t.Errorf("Chat = %q, %v", got.Content, err)
	}
}

func TestInfo(t *testing.T) {
	srv := wiretest.NewOllama(t)
	info, err := newClient(t, srv, "tiny").Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := model.Info{
		Backend:  "ollama",
		Name:     "tiny",
		Digest:   "8464ef3ff524d54797b1bf3ee3552e68a93fcdc9d8a403063add4da651d86776",
		Template: "{{ range .Messages }}<{{ .Role }}>{{ .Content }}\n{{ end }}<assistant>",
		// The FROM of the recorded Modelfile: the blob on the server's disk.
		WeightsFile:    "/usr/share/ollama/.ollama/models/blobs/sha256-9ddb8a6ba584cee0e0bff88888352a1a7d1e7ecc877d7c456f5b34cf265e4c1a",
		Host:           srv.URL,
		ContextLength:  512,
		ContextInForce: 512, SendsNumCtx: true,
		Capabilities: []string{"completion"},
	}
	if !reflect.DeepEqual(info, want) {
		t.Errorf("Info =\n%+v\nwant\n%+v", info, want)
	}

	_, err = newClient(t, srv, "llama3.1:8b").Info(context.Background())
	if codeOf(err) != model.CodeModelNotFound || !strings.Contains(err.Error(), "model 'llama3.1:8b' not found") {
		t.Errorf("Info of an unknown model: %v", err)
	}
}

// TestTrainedContext: the server side of a window above the trained one, on the
// recorded model of trained context 4096: Info learns the trained
// context and, once num_ctx 8192 was asked, the 4096 in force; a prompt
// above 4096 is refused though num_ctx 8192 was sent; and a reply that
// ran past the window ends "length" like a num_predict stop.
func TestTrainedContext(t *testing.T) {
	srv := wiretest.NewOllama(t)
	srv.Trained = wiretest.Trained4096
	c := newClient(t, srv, "tiny")

	long := ask(strings.Repeat("The report generator reads the configuration file. ", 400), 8192)
	_, err := c.Chat(context.Background(), long)
	var e *model.Error
	if !errors.As(err, &e) || e.Code != model.CodeContextOverflow || len(e.Attempts) != 1 || e.Message != wiretest.MustLoad("chat-numctx-above-trained").ErrorMessage() {
		t.Errorf("a prompt above the trained context with num_ctx 8192 = %v, want the recorded overflow, one attempt", err)
	}
	info, err := c.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if info.ContextLength != 4096 || info.ContextInForce != 4096 || !info.SendsNumCtx {
		t.Errorf("Info = trained %d, in force %d, sends num_ctx %v; want 4096, 4096, true", info.ContextLength, info.ContextInForce, info.SendsNumCtx)
	}
	if got := model.ResolveContext(8192, 0, info); got.Effective != 4096 {
		t.Errorf("ResolveContext(8192) = %+v, want an effective 4096", got)
	}

	srv.Push(wiretest.Recorded("chat-numctx-above-trained-fits"))
	got, err := c.Chat(context.Background(), ask("x", 8192))
	if err != nil {
		t.Fatal(err)
	}
	if got.FinishReason != "length" || *got.Metrics.PromptTokens != 3021 || *got.Metrics.OutputTokens != 2000 {
		t.Errorf("recorded fits: finish %q, prompt %d, output %d; want length, 3021, 2000", got.FinishReason, *got.Metrics.PromptTokens, *got.Metrics.OutputTokens)
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
