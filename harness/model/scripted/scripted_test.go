package scripted_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pyharness/pyharness/harness/model"
	"github.com/pyharness/pyharness/harness/model/scripted"
	"github.com/pyharness/pyharness/schemas"
)

const demo = `{"content": "READ wordcount.py"}

{"thinking": "the loader", "content": "PATCH wordcount.py", "finish_reason": "length", "metrics": {"prompt_tokens": 900, "output_tokens": 12, "total_ms": 1500}}
{"content": "", "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"x.py\"}"}}]}
{"tool_calls": [{"function": {"name": "run_tests", "arguments": {"verbose": true}}}, {"function": {"name": "noop", "arguments": ""}}]}
{"error": "stream-cut"}
{"content": "DONE fixed"}
`

func TestPlaysInOrder(t *testing.T) {
	b, err := scripted.NewFromReader(strings.NewReader(demo), "demo.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	req := model.Request{Messages: []schemas.Message{{Role: "user", Content: "fix wordcount.py"}}, Options: schemas.Options{NumCtx: 4096}}
	want := []struct {
		reply    schemas.Reply
		metrics  schemas.Metrics
		attempts int
	}{
		{schemas.Reply{Content: "READ wordcount.py", FinishReason: "stop"}, schemas.Metrics{PromptTokens: new(8), OutputTokens: new(5)}, 1},
		{schemas.Reply{Content: "PATCH wordcount.py", Thinking: "the loader", FinishReason: "length"}, schemas.Metrics{PromptTokens: new(900), OutputTokens: new(12), TotalMS: 1500}, 1},
		{schemas.Reply{FinishReason: "stop", ToolCalls: []schemas.ToolCall{{ID: "call_1", Name: "read_file", Arguments: map[string]any{"path": "x.py"}}}}, schemas.Metrics{PromptTokens: new(8), OutputTokens: new(0)}, 1},
		{schemas.Reply{FinishReason: "stop", ToolCalls: []schemas.ToolCall{{Name: "run_tests", Arguments: map[string]any{"verbose": true}}, {Name: "noop", Arguments: map[string]any{}}}}, schemas.Metrics{PromptTokens: new(8), OutputTokens: new(0)}, 1},
		{schemas.Reply{Content: "DONE fixed", FinishReason: "stop"}, schemas.Metrics{PromptTokens: new(8), OutputTokens: new(3)}, 2},
	}
	for i, w := range want {
		got, err := b.Chat(context.Background(), req)
		if err != nil {
			t.Fatalf("turn %d: %v", i+1, err)
		}
		if !reflect.DeepEqual(got.Reply, w.reply) || !reflect.DeepEqual(got.Metrics, w.metrics) || len(got.Attempts) != w.attempts {
			t.Errorf("turn %d = %+v %+v %d attempts\nwant %+v %+v %d attempts", i+1, got.Reply, got.Metrics, len(got.Attempts), w.reply, w.metrics, w.attempts)
		}
	}
	_, err = b.Chat(context.Background(), req)
	var e *model.Error
	if !errors.As(err, &e) || e.Code != model.CodeScriptExhausted || e.Retryable {
		t.Fatalf("after the script: %v, want script-exhausted, not retryable", err)
	}
	if n := len(b.Requests()); n != 6 {
		t.Errorf("%d requests recorded, want 6", n)
	}
	if info, _ := b.Info(context.Background()); info.Backend != "scripted" || info.Name != "demo.jsonl" {
		t.Errorf("Info = %+v", info)
	}
}

func TestFaults(t *testing.T) {
	script := `{"error": "rate-limited", "retry_after_ms": 2500, "status": 429}
{"error": "timeout"}
{"content": "ok"}
{"error": "model-not-found", "status": 404, "message": "model 'x' not found"}
`
	b, err := scripted.NewFromReader(strings.NewReader(script), "faults.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var waits []time.Duration
	b.Retry = model.Retry{Base: time.Second, Sleep: func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return nil }}
	got, err := b.Chat(context.Background(), model.Request{})
	if err != nil {
		t.Fatal(err)
	}
	wantAtts := []schemas.Attempt{
		{N: 1, Error: "rate-limited: HTTP 429: fault injected at faults.jsonl:1", Status: 429, WaitMS: 2500},
		{N: 2, Error: "timeout: fault injected at faults.jsonl:2", WaitMS: 2000},
		{N: 3},
	}
	if got.Content != "ok" || !reflect.DeepEqual(got.Attempts, wantAtts) || !reflect.DeepEqual(waits, []time.Duration{2500 * time.Millisecond, 2 * time.Second}) {
		t.Errorf("reply %q, attempts %+v, waits %v\nwant attempts %+v", got.Content, got.Attempts, waits, wantAtts)
	}
	_, err = b.Chat(context.Background(), model.Request{})
	if e := (*model.Error)(nil); !errors.As(err, &e) || e.Code != model.CodeModelNotFound || e.Message != "model 'x' not found" || len(e.Attempts) != 1 {
		t.Errorf("error = %v, want model-not-found once", err)
	}
}

func TestMalformedScript(t *testing.T) {
	tests := []struct {
		name   string
		script string
		want   string // the error text
	}{
		{"invalid JSON", `{"content": "a"}` + "\n" + `{"content": "b"`, `bad.jsonl:2: invalid JSON: unexpected EOF`},
		{"unknown field", "\n\n" + `{"contnet": "a"}`, `bad.jsonl:3: field "contnet": unknown field`},
		{"wrong type", `{"content": 3}`, `bad.jsonl:1: field "content": got JSON number, want string`},
		{"unknown fault", `{"error": "meltdown"}`, `bad.jsonl:1: field "error": unknown fault "meltdown"`},
		{"tool call without a name", `{"tool_calls": [{"function": {"arguments": "{}"}}]}`, `bad.jsonl:1: field "tool_calls[0].function.name": missing`},
		{"arguments not an object", `{"tool_calls": [{"function": {"name": "f", "arguments": "[1]"}}]}`, `bad.jsonl:1: field "tool_calls[0].function.arguments": not a JSON object`},
		{"arguments not JSON", `{"tool_calls": [{"id": "c", "function": {"name": "f", "arguments": "{path: x}"}}]}`, `bad.jsonl:1: field "tool_calls[0].function.arguments": not a JSON object`},
		{"not a function", `{"tool_calls": [{"type": "custom", "function": {"name": "f"}}]}`, `bad.jsonl:1: field "tool_calls[0].type": type "custom" is not function`},
		{"two values on a line", `{"content": "a"} {"content": "b"}`, `bad.jsonl:1: more than one JSON value on the line`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scripted.NewFromReader(strings.NewReader(tt.script), "bad.jsonl")
			var pe *scripted.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error = %v, want a *ParseError", err)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error = %q, want it to start with %q", err, tt.want)
			}
		})
	}
}

func TestNewReadsFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "demo.jsonl")
	if err := os.WriteFile(path, []byte(demo), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := scripted.New(path)
	if err != nil {
		t.Fatal(err)
	}
	if b.Remaining() != 6 {
		t.Errorf("Remaining = %d, want 6", b.Remaining())
	}
	if _, err := scripted.New(filepath.Join(t.TempDir(), "missing.jsonl")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("New(missing) = %v", err)
	}
}

// TestConcurrentChats: every line is played exactly once however many
// goroutines call.
func TestConcurrentChats(t *testing.T) {
	var script strings.Builder
	for range 50 {
		script.WriteString(`{"content": "x"}` + "\n")
	}
	b, err := scripted.NewFromReader(strings.NewReader(script.String()), "many.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok, exhausted := 0, 0
	for range 60 {
		wg.Go(func() {
			_, err := b.Chat(context.Background(), model.Request{})
			mu.Lock()
			defer mu.Unlock()
			switch codeOf(err) {
			case "":
				ok++
			case model.CodeScriptExhausted:
				exhausted++
			}
		})
	}
	wg.Wait()
	if ok != 50 || exhausted != 10 {
		t.Errorf("%d replies and %d exhausted, want 50 and 10", ok, exhausted)
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
