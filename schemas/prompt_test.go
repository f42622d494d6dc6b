package schemas

import (
	"crypto/sha256"
	"strings"
	"testing"
)

// TestConversationRebuildsAndChecksEachPrompt plays turns of deltas, a
// replaced prompt among them, and checks that each turn's rebuilt prompt
// is the whole prompt, that a recorded hash of that prompt is accepted,
// and that a wrong hash is refused: the conversation hashes each turn's
// delta on top of the earlier messages, and must agree with PromptHash of
// the whole prompt every time.
func TestConversationRebuildsAndChecksEachPrompt(t *testing.T) {
	msg := func(role, content string) Message { return Message{Role: role, Content: content} }
	call := Message{Role: "assistant", ToolCalls: []ToolCall{{ID: "c1", Name: "read", Arguments: map[string]any{"path": "a.py"}}}}
	steps := []struct {
		replaced bool
		delta    []Message
	}{
		{false, []Message{msg("system", "rules"), msg("user", "task")}},
		{false, []Message{msg("assistant", "READ a.py"), msg("user", "1: x = 1")}},
		{false, []Message{call, {Role: "tool", Content: "x = 1", ToolCallID: "c1"}}},
		{true, []Message{msg("system", "rules"), msg("user", "task, elided")}},
		{false, []Message{msg("assistant", "DONE"), msg("user", "not yet")}},
	}
	var whole []Message
	var conv Conversation
	for i, s := range steps {
		if s.replaced {
			whole = nil
		}
		whole = append(whole, s.delta...)
		want := PromptHash(whole)
		got, err := conv.Apply(&Turn{Step: i + 1, Sent: Sent{Replaced: s.replaced, Messages: s.delta, PromptHash: want}})
		if err != nil {
			t.Fatalf("step %d: %v", i+1, err)
		}
		if PromptHash(got) != want || len(got) != len(whole) {
			t.Fatalf("step %d: rebuilt %d messages, want %d", i+1, len(got), len(whole))
		}
	}
	var wrong Conversation
	for i, s := range steps {
		hash := "sha256:" + strings.Repeat("0", 64)
		if i < 2 {
			hash = "" // not recorded: nothing to check
		}
		_, err := wrong.Apply(&Turn{Step: i + 1, Sent: Sent{Replaced: s.replaced, Messages: s.delta, PromptHash: hash}})
		if (err != nil) != (i >= 2) {
			t.Fatalf("step %d: error %v", i+1, err)
		}
	}
}

// TestPromptHashIsTheRecordedOne holds PromptHash to the hash the build
// before its fields were gathered (49b7884) gave the same prompt (short
// and long texts, a tool call and a tool call id among them): traces
// already written carry hashes of that layout, and a rebuilt prompt must
// still match them.
func TestPromptHashIsTheRecordedOne(t *testing.T) {
	prompt := []Message{
		{Role: "system", Content: "You edit code.\n" + strings.Repeat("Reply with one action. ", 40)},
		{Role: "user", Content: "Fix add() in calc.py"},
		{Role: "assistant", ToolCalls: []ToolCall{{ID: "c1", Name: "read", Arguments: map[string]any{"path": "calc.py", "lines": []any{1.0, 20.0}}}}},
		{Role: "tool", Content: "def add(a, b):\n    pass\n", ToolCallID: "c1"},
		{Role: "user", Content: ""},
	}
	const recorded = "sha256:19f4570144cc7879a4b1331c2cc6ecd299f9230036f515aebc2995d13d4bf4a4" // PromptHash at 49b7884
	if got := PromptHash(prompt); got != recorded {
		t.Fatalf("PromptHash = %s, want %s as recorded", got, recorded)
	}
}

// TestPromptHashIsPromptHashOf: the check Apply makes of a recorded hash
// takes exactly the string promptHashOf makes, and nothing else.
func TestPromptHashIsPromptHashOf(t *testing.T) {
	h := sha256.New()
	writeMessages(h, []Message{{Role: "user", Content: "Fix the failing test."}}, nil)
	want := promptHashOf(h)
	if !promptHashIs(h, want) {
		t.Fatalf("promptHashIs(%q) is false", want)
	}
	for _, other := range []string{"", "sha256:", want[:len(want)-1], want + "0", strings.ToUpper(want),
		"sha512:" + want[len("sha256:"):], want[:len(want)-1] + "x", PromptHash(nil)} {
		if promptHashIs(h, other) {
			t.Errorf("promptHashIs(%q) is true, want only %q", other, want)
		}
	}
}
