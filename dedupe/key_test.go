package dedupe

import (
	"bytes"
	"testing"

	"github.com/pyharness/pyharness/schemas"
)

func msgs(pairs ...string) []schemas.Message {
	var out []schemas.Message
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, schemas.Message{Role: pairs[i], Content: pairs[i+1]})
	}
	return out
}

func TestKeys(t *testing.T) {
	base := msgs("system", "You are an agent.", "user", "Task: add f.\nTests: Ran 2 tests in 0.003s")
	draft := schemas.Reply{Content: "READ f.py"}
	key := func(p []schemas.Message, d schemas.Reply) uint64 { return Key(appendKeyText(nil, p, d)) }
	tests := []struct {
		name   string
		prompt []schemas.Message
		draft  schemas.Reply
		same   bool
	}{
		{"identical", base, draft, true},
		{"another duration", msgs("system", "You are an agent.", "user", "Task: add f.\nTests: Ran 2 tests in 0.951s"), draft, true},
		{"crlf and trailing space", msgs("system", "You are an agent.  ", "user", "Task: add f.\r\nTests: Ran 2 tests in 0.003s\r\n"), draft, true},
		{"draft with a trailing newline", base, schemas.Reply{Content: "READ f.py\n\n"}, true},
		{"thinking is not training text", base, schemas.Reply{Content: "READ f.py", Thinking: "hmm"}, true},
		{"another draft", base, schemas.Reply{Content: "READ g.py"}, false},
		{"another role", msgs("system", "You are an agent.", "tool", "Task: add f.\nTests: Ran 2 tests in 0.003s"), draft, false},
		{"a boundary moved between messages", msgs("system", "You are an agent.Task", "user", ": add f.\nTests: Ran 2 tests in 0.003s"), draft, false},
		{"one message fewer", base[:1], draft, false},
		{"a tool call", base, schemas.Reply{Content: "READ f.py", ToolCalls: []schemas.ToolCall{{Name: "read_file", Arguments: map[string]any{"path": "f.py"}}}}, false},
		{"indentation is code", msgs("system", "You are an agent.", "user", " Task: add f.\nTests: Ran 2 tests in 0.003s"), draft, false},
	}
	want := key(base, draft)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := key(tt.prompt, tt.draft); (got == want) != tt.same {
				t.Errorf("key equal = %v, want %v", got == want, tt.same)
			}
		})
	}
}

func TestKeyTextCarriesTheVersion(t *testing.T) {
	text := appendKeyText(nil, msgs("user", "x"), schemas.Reply{Content: "y"})
	if !bytes.Contains(text, []byte(keyVersion)) {
		t.Fatalf("key text %q has no version tag", text)
	}
}

func TestNearTextIsDraftAndLastMessage(t *testing.T) {
	p := msgs("system", "SYSTEM PROMPT", "user", "task", "assistant", "READ a.py", "user", "a.py:\n  x = 1  ")
	got := string(AppendNearText(nil, p, schemas.Reply{Content: "WRITE a.py\n"}))
	if want := "WRITE a.py\na.py:\n  x = 1"; got != want {
		t.Fatalf("near text %q, want %q", got, want)
	}
}
