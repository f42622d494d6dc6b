package export

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pyharness/pyharness/schemas"
)

// encodingJSON is what json.Encoder with SetEscapeHTML(false) writes for
// v, newline included: the bytes the JSONL files held before the
// appenders, and must go on holding.
func encodingJSON(t testing.TB, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// The row shapes as encoding/json took them.
type (
	sftLine struct {
		Messages []Message `json:"messages"`
		Tools    []tool    `json:"tools,omitempty"`
	}
	completionLine struct {
		Prompt     []Message `json:"prompt"`
		Completion []Message `json:"completion"`
		Tools      []tool    `json:"tools,omitempty"`
	}
	dpoLine struct {
		Prompt   []Message `json:"prompt"`
		Chosen   []Message `json:"chosen"`
		Rejected []Message `json:"rejected"`
	}
)

// jsonStrings are texts that take every path of the string appender.
var jsonStrings = []string{
	"",
	"plain ascii text that runs past eight bytes",
	`quote " and backslash \ and both \"`,
	"<html> & </html> stay as they are",
	"control \b \f \n \r \t \x00 \x01 \x1f \x7f",
	"unicode: é ü 日本語 🙂 and U+2028 \u2028 U+2029 \u2029 U+2027 \u2027",
	"invalid \xff \xfe\xfd utf-8 \xc3 \xe2\x80 cut",
	"\xe2\x80\xa8\xe2\x80\xa9",
	strings.Repeat("x", 7) + "\n",
	strings.Repeat("x", 8) + "\"",
	strings.Repeat("é", 9),
	"def f(x):\n    return {'a': x < 3 and x > 1}\n",
}

func TestAppendJSONStringIsEncodingJSON(t *testing.T) {
	for _, s := range jsonStrings {
		want := bytes.TrimSuffix(encodingJSON(t, s), []byte("\n"))
		if got := appendJSONString(nil, s); !bytes.Equal(got, want) {
			t.Errorf("%q:\n got %s\nwant %s", s, got, want)
		}
	}
	// Every byte, and every byte pair, at every offset of a word.
	for b := range 256 {
		for pad := range 9 {
			s := strings.Repeat("a", pad) + string([]byte{byte(b)}) + "tail-of-it"
			want := bytes.TrimSuffix(encodingJSON(t, s), []byte("\n"))
			if got := appendJSONString(nil, s); !bytes.Equal(got, want) {
				t.Fatalf("%q:\n got %s\nwant %s", s, got, want)
			}
		}
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range jsonStrings {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := bytes.TrimSuffix(encodingJSON(t, s), []byte("\n"))
		if got := appendJSONString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("%q:\n got %s\nwant %s", s, got, want)
		}
	})
}

func TestAppendJSONFloatIsEncodingJSON(t *testing.T) {
	for _, f := range []float64{0, 1, -1, 0.5, 1.0 / 3, 2.5e-7, 1e-6, 9.99e-7, 1e20, 1e21, 123456789e15, -1e-9,
		math.MaxFloat64, math.SmallestNonzeroFloat64, math.Copysign(0, -1), 12.000001} {
		want := bytes.TrimSuffix(encodingJSON(t, f), []byte("\n"))
		got, err := appendJSONFloat(nil, f)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%v: got %s (%v), want %s", f, got, err, want)
		}
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if _, err := appendJSONFloat(nil, f); err == nil {
			t.Errorf("%v: no error; encoding/json has one", f)
		}
	}
}

func TestRowLineIsEncodingJSON(t *testing.T) {
	one, zero := 1, 0
	msgs := func(salt string) []Message {
		return []Message{
			{Role: "system", Content: "You edit <code> & run tests." + salt},
			{Role: "user", Content: "Fix \"it\"\n\tplease \u2028 \xff"},
			{Role: "assistant", Content: "READ a.py", Weight: &zero},
			{Role: "assistant", Content: "", ReasoningContent: "think é", Weight: &one, ToolCalls: []ToolCall{
				{ID: "abc123XYZ", Type: "function", Function: FunctionCall{Name: "patch_file",
					Arguments: map[string]any{"path": "a.py", "find": "x < 1", "replace": "x > 1", "start": 3, "n": 2.5,
						"args": []any{"-k", true, nil}, "nested": map[string]any{"b": "&", "a": []string{"1"}}}}},
				{ID: "def456UVW", Type: "function", Function: FunctionCall{Name: "run_tests"}},
			}},
			{Role: "tool", Content: "ok", ToolCallID: "abc123XYZ"},
		}
	}
	tools := harnessTools()
	tests := []struct {
		name string
		r    row
		dpo  bool
		want any
	}{
		{"messages", row{messages: msgs("")}, false, sftLine{Messages: msgs("")}},
		{"messages with tools", row{messages: msgs("t"), tools: tools}, false, sftLine{Messages: msgs("t"), Tools: tools}},
		{"prompt-completion", row{prompt: msgs("p"), completion: msgs("c")[2:3]}, false,
			completionLine{Prompt: msgs("p"), Completion: msgs("c")[2:3]}},
		{"prompt-completion with tools", row{prompt: msgs("p"), completion: msgs("c")[3:4], tools: tools}, false,
			completionLine{Prompt: msgs("p"), Completion: msgs("c")[3:4], Tools: tools}},
		{"prompt-completion, no prompt", row{completion: msgs("")[:1]}, false, completionLine{Completion: msgs("")[:1]}},
		{"preference", row{prompt: msgs("p"), chosen: msgs("c")[2:3], rejected: msgs("r")[3:4]}, true,
			dpoLine{Prompt: msgs("p"), Chosen: msgs("c")[2:3], Rejected: msgs("r")[3:4]}},
		{"empty tool calls and arguments", row{messages: []Message{{Role: "assistant", ToolCalls: []ToolCall{{}}}, {Role: "x", ToolCalls: []ToolCall{}}}}, false,
			sftLine{Messages: []Message{{Role: "assistant", ToolCalls: []ToolCall{{}}}, {Role: "x", ToolCalls: []ToolCall{}}}}},
	}
	for _, tt := range tests {
		got, err := appendRowLine(nil, &tt.r, tt.dpo)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if want := encodingJSON(t, tt.want); !bytes.Equal(got, want) {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, want)
		}
	}
}

func TestMetaLineIsEncodingJSON(t *testing.T) {
	full := Meta{Split: "train", Row: 41, RunID: "run-<1>", Step: 7, CaseID: "c\"1", Group: "g&h", Tier: 2, Source: "bench",
		Model: "ollama/qwen:7b", Verdict: schemas.VerdictWorked, Kind: "tool-result", Code: "E1", Weight: 0.3333333333333333,
		Copy: 2, Copies: 3, Key: "00ff00ff00ff00ff", Multiplicity: 4, ClusterTurns: 9, RejectedRunID: "r2", RejectedStep: 3,
		PromptHash: "sha256:ab", AsWritten: "READ a.py\nread_file({\"path\":\"a.py\"}) \u2029 \x80"}
	tests := []struct {
		name string
		m    Meta
	}{
		{"every field", full},
		{"the empty ones left out", Meta{Split: "validation", Row: 0, Weight: 1, Copy: 1, Copies: 1}},
		{"a tiny weight", Meta{Weight: 1e-9, Row: -1, Copy: -2, Copies: -3, Step: -4}},
		{"a huge weight", Meta{Weight: 3e22}},
	}
	for _, tt := range tests {
		l, err := newMetaLine(&tt.m)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		got := l.appendRowCopy(nil, tt.m.Row, tt.m.Copy)
		if want := encodingJSON(t, tt.m); !bytes.Equal(got, want) {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, want)
		}
	}
	if _, err := newMetaLine(&Meta{Weight: math.NaN()}); err == nil {
		t.Error("a NaN weight encoded; encoding/json refuses it")
	}
}

// BenchmarkAppendJSONString escapes code-like text: MB/s of text.
func BenchmarkAppendJSONString(b *testing.B) {
	text := strings.Repeat("def handler(req):\n    if req.path == \"/x\" and n < 3:\n        return {'ok': True}  # é\n", 200)
	if !utf8.ValidString(text) {
		b.Fatal("invalid text")
	}
	b.SetBytes(int64(len(text)))
	var dst []byte
	b.Run("appender", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			dst = appendJSONString(dst[:0], text)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		for b.Loop() {
			buf.Reset()
			if err := enc.Encode(text); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestEncodedMessageFollowsTheMessage has a kept encoding reused only for
// the message it was made of: a message changed since (another weight,
// text or role) is encoded again.
func TestEncodedMessageFollowsTheMessage(t *testing.T) {
	one, zero, alsoOne := 1, 0, 1
	var kept encodedMessage
	base := Message{Role: "assistant", Content: "WRITE a.py\n```python\nx = 1\n```", Weight: &zero, encoded: &kept}
	tests := []struct {
		name   string
		change func(m *Message)
	}{
		{"as it was", func(*Message) {}},
		{"the same again", func(*Message) {}},
		{"weight 1", func(m *Message) { m.Weight = &one }},
		{"another pointer to 1", func(m *Message) { m.Weight = &alsoOne }},
		{"no weight", func(m *Message) { m.Weight = nil }},
		{"other content", func(m *Message) { m.Content = "READ a.py" }},
		{"a role", func(m *Message) { m.Role = "user" }},
		{"reasoning", func(m *Message) { m.ReasoningContent = "why" }},
		{"a call id", func(m *Message) { m.ToolCallID = "abc123XYZ" }},
		{"tool calls", func(m *Message) {
			m.ToolCalls = []ToolCall{{ID: "abc123XYZ", Type: "function", Function: FunctionCall{Name: "run_tests", Arguments: map[string]any{}}}}
		}},
		{"back as it was", func(*Message) {}},
	}
	for _, tt := range tests {
		m := base
		tt.change(&m)
		got, err := appendMessages([]byte("prefix"), []Message{m, m})
		if err != nil {
			t.Fatal(err)
		}
		want := append([]byte("prefix"), bytes.TrimSuffix(encodingJSON(t, []Message{m, m}), []byte("\n"))...)
		if !bytes.Equal(got, want) {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, want)
		}
	}
}
