package export

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/harness/draft"
	"github.com/pyharness/pyharness/schemas"
)

func TestAlternates(t *testing.T) {
	m := func(roles ...string) []schemas.Message {
		var out []schemas.Message
		for _, r := range roles {
			out = append(out, schemas.Message{Role: r})
		}
		return out
	}
	tests := []struct {
		name   string
		prompt []schemas.Message
		want   bool
	}{
		{"opening", m("system", "user"), true},
		{"later turn", m("system", "user", "assistant", "user"), true},
		{"tool result", m("system", "user", "assistant", "tool"), true},
		{"no system", m("user"), true},
		{"empty", nil, false},
		{"system only", m("system"), false},
		{"ends with the assistant", m("system", "user", "assistant"), false},
		{"two users", m("system", "user", "user"), false},
		{"two assistants", m("system", "user", "assistant", "assistant", "user"), false},
		{"system later", m("system", "user", "system", "user"), false},
	}
	for _, tt := range tests {
		if got := alternates(tt.prompt); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestTextAction(t *testing.T) {
	call := func(name string, args map[string]any) []schemas.ToolCall {
		return []schemas.ToolCall{{ID: "c1", Name: name, Arguments: args}}
	}
	tests := []struct {
		name    string
		content string
		calls   []schemas.ToolCall
		want    string
	}{
		{"read", "", call("read_file", map[string]any{"path": "a.py"}), "READ a.py"},
		{"read window", "", call("read_file", map[string]any{"path": "a.py", "start": 3, "end": 9}), "READ a.py:3-9"},
		{"write", "", call("write_file", map[string]any{"path": "a.py", "content": "x = 1\n"}), "WRITE a.py\n```python\nx = 1\n```"},
		{"write with a fence inside", "", call("write_file", map[string]any{"path": "README.md", "content": "# Use\n\n```sh\nls\n```\n"}), "WRITE README.md\n````\n# Use\n\n```sh\nls\n```\n````"},
		{"patch", "", call("patch_file", map[string]any{"path": "a.py", "find": "x = 1", "replace": "x = 2"}), "PATCH a.py\nFIND:\n```python\nx = 1\n```\nREPLACE:\n```python\nx = 2\n```"},
		{"run", "", call("run_tests", map[string]any{}), "RUN tests"},
		{"done", "", call("done", map[string]any{"summary": "all good"}), "DONE all good"},
		{"text before the call", "Let me look.", call("read_file", map[string]any{"path": "a.py"}), "Let me look.\nREAD a.py"},
		{"unknown tool kept as a call", "", call("browse", map[string]any{"url": "x"}), `browse({"url":"x"})`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := textAction(tt.content, tt.calls)
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if a, err := draft.Parse(got, nil); err == nil && a.Verb == "" {
				t.Errorf("the rendering does not parse back: %q", got)
			}
		})
	}
}

func TestCallID(t *testing.T) {
	seen := map[string]bool{}
	for msg := range 50 {
		for call := range 3 {
			id := callID("bench-alpha-p1-a00000000001", msg, call)
			if len(id) != callIDLen || strings.Trim(id, base62) != "" {
				t.Fatalf("id %q is not nine letters and digits", id)
			}
			if seen[id] {
				t.Fatalf("id %q drawn twice in one run", id)
			}
			seen[id] = true
		}
	}
	if callID("r", 1, 0) != callID("r", 1, 0) || callID("r", 1, 0) == callID("s", 1, 0) {
		t.Error("ids are not drawn from the run, the message and the call alone")
	}
}

// TestContextRendersAsAFreshRenderer has one renderer render the prompts
// of a run's rows, which repeat, change and drop earlier messages, as a
// renderer new for each would.
func TestContextRendersAsAFreshRenderer(t *testing.T) {
	sys := schemas.Message{Role: "system", Content: "You edit code. API_KEY=sk-proj-abcdefghijklmnopqrstuvwx"}
	task := schemas.Message{Role: "user", Content: "Fix a.py"}
	read := schemas.Message{Role: "assistant", Content: "READ a.py"}
	native := schemas.Message{Role: "assistant", ToolCalls: []schemas.ToolCall{{ID: "c1", Name: "read_file", Arguments: map[string]any{"path": "a.py"}}}}
	result := schemas.Message{Role: "tool", Content: "a.py (lines 1-1 of 1):\n```\nx = 1\n```"}
	prompts := [][]schemas.Message{
		{sys, task},
		{sys, task, read, result},
		{sys, task, native, result},
		{sys, {Role: "user", Content: "Fix b.py"}, read, result},
		{sys},
		{sys, task, read, result, read, result},
	}
	for _, o := range []Options{{}, {KeepToolCalls: true}} {
		red := newRedactor()
		red.sortValues()
		kept := newRenderer(o, red)
		for _, runID := range []string{"run-1", "run-2"} {
			for i, p := range prompts {
				before := kept.redactions
				got := kept.context(runID, p)
				fresh := newRenderer(o, red)
				want := fresh.context(runID, p)
				if n := kept.redactions - before; n != fresh.redactions {
					t.Errorf("tool calls %v, %s, prompt %d: %d redactions counted, want %d", o.KeepToolCalls, runID, i, n, fresh.redactions)
				}
				for k := range got {
					got[k].encoded = nil
				}
				for k := range want {
					want[k].encoded = nil
				}
				if gotJSON, wantJSON := encodingJSON(t, got), encodingJSON(t, want); !bytes.Equal(gotJSON, wantJSON) {
					t.Errorf("tool calls %v, %s, prompt %d:\n got %s\nwant %s", o.KeepToolCalls, runID, i, gotJSON, wantJSON)
				}
			}
		}
	}
}

// foldHistory leaves the system prompt as it is and makes the rest one
// user message: the task, then each earlier draft and each answer under
// its label, in order, so that no assistant message is left.
func TestFoldHistory(t *testing.T) {
	m := func(role, content string) Message { return Message{Role: role, Content: content} }
	tests := []struct {
		name    string
		context []Message
		want    []Message
	}{
		{"opening", []Message{m("system", "S"), m("user", "task")}, []Message{m("system", "S"), m("user", "task")}},
		{"no system", []Message{m("user", "task")}, []Message{m("user", "task")}},
		{"later turn", []Message{m("system", "S"), m("user", "task"), m("assistant", "READ a.py"), m("user", "a.py (lines 1-2 of 2)")},
			[]Message{m("system", "S"), m("user", "task\n\n[you]\nREAD a.py\n\n[harness]\na.py (lines 1-2 of 2)")}},
		{"a refused draft", []Message{m("system", "S"), m("user", "task"), m("assistant", "DONE early"), m("user", "REFUSED (run-tests-first)"),
			m("assistant", "RUN tests"), m("user", "Tests: 1 ran, all passed.")},
			[]Message{m("system", "S"), m("user", "task\n\n[you]\nDONE early\n\n[harness]\nREFUSED (run-tests-first)\n\n[you]\nRUN tests\n\n[harness]\nTests: 1 ran, all passed.")}},
		{"no system, later turn", []Message{m("user", "task"), m("assistant", "RUN tests"), m("user", "ok")},
			[]Message{m("user", "task\n\n[you]\nRUN tests\n\n[harness]\nok")}},
	}
	for _, tt := range tests {
		got := foldHistory(tt.context)
		if len(got) != len(tt.want) {
			t.Errorf("%s: %d messages %+v, want %+v", tt.name, len(got), got, tt.want)
			continue
		}
		for i := range got {
			if got[i].Role != tt.want[i].Role || got[i].Content != tt.want[i].Content || got[i].Weight != nil {
				t.Errorf("%s: message %d is %s %q, want %s %q", tt.name, i, got[i].Role, got[i].Content, tt.want[i].Role, tt.want[i].Content)
			}
		}
	}
}
