package export

import (
	"testing"

	"github.com/pyharness/pyharness/draft"
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
			got := TextAction(tt.content, tt.calls)
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if a, err := draft.Parse(got, nil); err == nil && a.Verb == "" {
				t.Errorf("the rendering does not parse back: %q", got)
			}
		})
	}
}
