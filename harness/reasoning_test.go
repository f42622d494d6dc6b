package harness

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/schemas"
)

// Replies with reasoning, played through the real loop: the action comes
// from the answer alone, the reasoning is recorded on the turn with its
// size, and a reply that ended inside its reasoning is refused with its own
// code and nothing done.
func TestReasoningThroughTheLoop(t *testing.T) {
	const writeBad = "WRITE greet.py\n```python\ndef greet(name):\n    return 1\n```"
	for _, tc := range []struct {
		name  string
		reply map[string]string
		// verb and path of the action taken; code of a refusal.
		verb, path string
		code       schemas.Code
		source     string
		cut        bool
		// reasoning is text the recorded reasoning must hold.
		reasoning string
	}{
		{name: "opening tag in the template", reply: map[string]string{"content": "The suite may fail; RUN tests first?\n</think>\n\nREAD greet.py"},
			verb: "READ", path: "greet.py", source: schemas.ReasoningThinkTag, reasoning: "RUN tests first?"},
		{name: "cut inside the reasoning", reply: map[string]string{"content": "<think>\nFirst READ greet.py, then patch it:\n" + writeBad, "finish_reason": "length"},
			code: schemas.CodeReasoningCut, source: schemas.ReasoningThinkTag, cut: true, reasoning: "First READ greet.py"},
		{name: "cut with the opening in the template", reply: map[string]string{"content": "I will READ greet.py and then", "thinking": "", "finish_reason": "length"}},
		{name: "harmony channels", reply: map[string]string{"content": "<|channel|>analysis<|message|>Maybe RUN tests.<|end|><|start|>assistant<|channel|>final<|message|>READ greet.py<|return|>"},
			verb: "READ", path: "greet.py", source: schemas.ReasoningHarmony, reasoning: "Maybe RUN tests."},
		{name: "harmony cut in analysis", reply: map[string]string{"content": "<|channel|>analysis<|message|>WRITE greet.py first, I think", "finish_reason": "length"},
			code: schemas.CodeReasoningCut, source: schemas.ReasoningHarmony, cut: true},
		{name: "a verb in the reasoning, another after it", reply: map[string]string{"content": "<think>\n" + writeBad + "\n</think>\nREAD greet.py"},
			verb: "READ", path: "greet.py", source: schemas.ReasoningThinkTag, reasoning: "return 1"},
		{name: "server thinking", reply: map[string]string{"thinking": "WRITE greet.py would be wrong; RUN tests", "content": "READ greet.py"},
			verb: "READ", path: "greet.py", source: schemas.ReasoningServer, reasoning: "RUN tests"},
		{name: "server thinking cut", reply: map[string]string{"thinking": "Let me READ greet.py and", "content": "", "finish_reason": "length"},
			code: schemas.CodeReasoningCut, source: schemas.ReasoningServer, cut: true},
		{name: "think bracket", reply: map[string]string{"content": "[THINK]RUN tests? No.[/THINK]READ greet.py"},
			verb: "READ", path: "greet.py", source: schemas.ReasoningThinkBracket},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "cut with the opening in the template" {
				// A cut block whose opening mark is in the prompt has no
				// mark in the reply: it is an answer without an action,
				// never an action read from it.
				tc.code = schemas.CodeParseFailed
			}
			line, _ := json.Marshal(tc.reply)
			out := runScriptedLines(t, fixture, Config{InPlace: true}, string(line))
			turn := out.turns[0]
			if turn.Outcome.Code != tc.code {
				t.Fatalf("outcome %+v; want code %q", turn.Outcome, tc.code)
			}
			if tc.code == "" {
				if turn.Action.Verb != tc.verb || turn.Action.Path != tc.path || turn.Outcome.Status != schemas.StatusApplied {
					t.Fatalf("action %+v, outcome %+v; want %s %s applied", turn.Action, turn.Outcome, tc.verb, tc.path)
				}
			} else {
				if turn.Action.Verb != "" || turn.Outcome.Status != schemas.StatusRefused {
					t.Fatalf("action %+v, outcome %+v; want nothing read and a refusal", turn.Action, turn.Outcome)
				}
				intact(t, out.repo, fixture)
			}
			if tc.source == "" {
				if turn.Reasoning != nil {
					t.Errorf("reasoning %+v recorded on a reply without its marks", turn.Reasoning)
				}
				return
			}
			r := turn.Reasoning
			if r == nil {
				t.Fatal("no reasoning recorded on the turn")
			}
			if r.Source != tc.source || r.Cut != tc.cut || r.Tokens <= 0 || !strings.Contains(r.Text, tc.reasoning) {
				t.Errorf("reasoning %+v; want source %s, cut %v, tokens > 0, text holding %q", r, tc.source, tc.cut, tc.reasoning)
			}
			if tc.code == schemas.CodeReasoningCut {
				msgs := out.turns[1].Sent.Messages
				sent := msgs[len(msgs)-1].Content
				if !strings.Contains(sent, string(schemas.CodeReasoningCut)) || !strings.Contains(sent, "Think briefly") || !strings.Contains(sent, "answer with the action directly") {
					t.Errorf("the refusal does not say what to do: %q", sent)
				}
			}
			b, _ := os.ReadFile(filepath.Join(out.repo, "greet.py"))
			if string(b) != fixture["greet.py"] {
				t.Errorf("greet.py changed from a reasoning's WRITE: %q", b)
			}
		})
	}
}

// Paths under an agent framework's root are the workspace file their rest
// names, when it is one (recorded as the agent-root repair); any other
// absolute path, or a new file under a root, stays outside the scope.
func TestAgentRoots(t *testing.T) {
	for _, tc := range []struct {
		draft, path string
		code        schemas.Code
	}{
		{"READ /workspace/greet.py", "greet.py", ""},
		{"READ /testbed/tests/test_greet.py", "tests/test_greet.py", ""},
		{"<function=str_replace_editor>\n<parameter=command>view</parameter>\n<parameter=path>/workspace/myrepo/greet.py</parameter>\n</function>", "greet.py", ""},
		{"READ /repo/greet.py", "greet.py", ""},
		{"READ /workspace/missing.py", "", schemas.CodeOutsideScope},
		{"READ /etc/greet.py", "", schemas.CodeOutsideScope},
		{"READ /workspace/../greet.py", "", schemas.CodeOutsideScope},
	} {
		t.Run(tc.draft, func(t *testing.T) {
			out := runScripted(t, fixture, Config{InPlace: true}, tc.draft)
			turn := out.turns[0]
			if turn.Outcome.Code != tc.code {
				t.Fatalf("outcome %+v; want code %q", turn.Outcome, tc.code)
			}
			repaired := slices.Contains(turn.Action.Repairs, "agent-root")
			if tc.code == "" && (turn.Action.Path != tc.path || !repaired) {
				t.Errorf("action %+v; want path %s with the agent-root repair", turn.Action, tc.path)
			}
			if tc.code != "" && repaired {
				t.Errorf("action %+v: an agent-root repair on a path that stayed outside", turn.Action)
			}
		})
	}
}
