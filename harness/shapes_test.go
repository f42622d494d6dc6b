package harness

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/harness/draft"
	"github.com/pyharness/pyharness/schemas"
)

// Every parser shape, driven through the real loop: for each shape code,
// the first golden draft of draft that parses with it is sent by a
// scripted model on a repository that holds the file it names, and the
// turn's record must carry that shape and an outcome that is not a parse
// failure.
func TestParserShapesThroughTheLoop(t *testing.T) {
	goldens, err := filepath.Glob(filepath.Join("draft", "testdata", "*.golden.json"))
	if err != nil || len(goldens) == 0 {
		t.Fatalf("no golden drafts: %v", err)
	}
	slices.Sort(goldens)
	type example struct{ name, raw string }
	byShape := map[string]example{}
	for _, g := range goldens {
		base := strings.TrimSuffix(g, ".golden.json")
		if _, err := os.Stat(base + ".calls.json"); err == nil {
			continue // native tool calls: covered by TestNativeToolCallThroughTheLoop
		}
		raw, err := os.ReadFile(base + ".draft")
		if err != nil {
			continue
		}
		a, perr := draft.Parse(string(raw), nil)
		if perr != nil || a.Verb == draft.VerbAsk || a.Verb == draft.VerbSkill {
			continue
		}
		if a.Path != "" && (strings.Contains(a.Path, "..") || strings.HasPrefix(a.Path, "/")) {
			continue
		}
		for _, code := range strings.Split(a.Shape, "+") {
			if _, ok := byShape[code]; !ok {
				byShape[code] = example{filepath.Base(base), string(raw)}
			}
		}
	}
	for _, code := range draft.ShapeCodes() {
		if code == "tool-call" {
			continue
		}
		ex, ok := byShape[code]
		if !ok {
			t.Errorf("shape %s: no golden draft in draft/testdata shows it", code)
			continue
		}
		t.Run(code+"/"+ex.name, func(t *testing.T) {
			a, _ := draft.Parse(ex.raw, nil)
			files := map[string]string{"tests/__init__.py": "", "tests/test_ok.py": "import unittest\n\n\nclass T(unittest.TestCase):\n    def test_ok(self):\n        pass\n"}
			drafts := []string{ex.raw}
			if a.Path != "" && a.Verb != draft.VerbWrite {
				content := "x = 1\n"
				if a.Verb == draft.VerbPatch {
					content = a.Find + "\n"
					drafts = []string{"READ " + a.Path, ex.raw}
				}
				for i := 1; i < 300; i++ {
					content += "# line\n"
				}
				files[a.Path] = content
			}
			drafts = append(drafts, runTests, "DONE checked: `x = 1`")
			out := runScripted(t, files, Config{}, drafts...)
			turn := out.turns[len(drafts)-3]
			if turn.Action.Shape != a.Shape || turn.Action.Verb != a.Verb {
				t.Fatalf("recorded shape %q verb %q, want %q %q", turn.Action.Shape, turn.Action.Verb, a.Shape, a.Verb)
			}
			if turn.Outcome.Code == schemas.CodeParseFailed || turn.Outcome.Status == schemas.StatusFailed {
				t.Fatalf("outcome %+v", turn.Outcome)
			}
			if a.Verb == draft.VerbWrite || a.Verb == draft.VerbPatch {
				if len(turn.Outcome.FilesChanged) != 1 {
					t.Fatalf("write not applied: %+v", turn.Outcome)
				}
				if strings.Contains(out.res.End.Patch, "```") {
					t.Errorf("a code fence reached the file:\n%s", out.res.End.Patch)
				}
			}
		})
	}
}

// A native tool call is mapped to the same action, and the record says so.
func TestNativeToolCallThroughTheLoop(t *testing.T) {
	repo := fixture
	call := `{"content": "", "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"greet.py\"}"}}]}`
	out := runScriptedLines(t, repo, Config{}, call, `{"content": "RUN tests"}`, `{"content": "DONE checked: `+"`"+`return \"Hello, \" + name`+"`"+`"}`)
	turn := out.turns[0]
	if turn.Action.Via != draft.ViaToolCall || turn.Action.Verb != draft.VerbRead || turn.Action.Path != "greet.py" || turn.Outcome.Status != schemas.StatusApplied {
		t.Fatalf("tool call recorded as %+v / %+v", turn.Action, turn.Outcome)
	}
	if len(turn.Reply.ToolCalls) != 1 || turn.Reply.ToolCalls[0].Name != "read_file" {
		t.Errorf("reply tool calls %+v", turn.Reply.ToolCalls)
	}
	if out.turns[1].Sent.Messages[len(out.turns[1].Sent.Messages)-1].Role != "tool" {
		t.Errorf("the result of a tool call was not sent as a tool message: %+v", out.turns[1].Sent.Messages)
	}
}
