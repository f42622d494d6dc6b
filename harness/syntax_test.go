package harness

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/harness/chattemplate"
	"github.com/pyharness/pyharness/harness/draft"
	"github.com/pyharness/pyharness/harness/draft/learn"
	"github.com/pyharness/pyharness/schemas"
)

// A run given the syntax learned from the model's chat template reads the
// replies with it and records them as the model wrote them: MiniMax-M3
// writes its calls in elements under its own token and reasons in
// <mm:think>; the action is read by the syntax (shape template-syntax),
// which only a run given it reads with.
func TestRunReadsRepliesWithTheLearnedSyntax(t *testing.T) {
	tp, err := chattemplate.Load(filepath.Join("draft", "learn", "testdata", "templates", "MiniMax-M3.jinja"))
	if err != nil {
		t.Fatal(err)
	}
	syn := learn.Template(tp)
	if syn.Calls == nil || syn.Reasoning == nil {
		t.Fatalf("MiniMax-M3: learned %+v, want calls and reasoning", syn)
	}
	const tok = "]<]minimax[>[<"
	call := tok + "tool_call>\n" + tok + `invoke name="write_file">` + tok + "path>greet.py" + tok + "/path>" + tok + "content>def greet(name):\n    return f\"hi {name}\"\n" + tok + "/content>" + tok + "/invoke>\n" + tok + "/tool_call>"
	write := "<mm:think>\nI could RUN tests first, but the fix is plain.\n</mm:think>\n\n" + call
	cut := "<mm:think>\nFirst the file:\n" + call
	files := map[string]string{"greet.py": "def greet(name):\n    return 1\n", "tests/__init__.py": "", "tests/test_ok.py": "import unittest\n\n\nclass T(unittest.TestCase):\n    def test_ok(self):\n        pass\n"}
	lines := []string{}
	for _, r := range []map[string]string{{"content": cut, "finish_reason": "length"}, {"content": write}, {"content": runTests}, {"content": "DONE greet greets: `hi {name}`"}} {
		b, _ := json.Marshal(r)
		lines = append(lines, string(b))
	}
	out := runScriptedLines(t, files, Config{Syntax: syn}, lines...)
	if len(out.turns) < 2 {
		t.Fatalf("%d turns", len(out.turns))
	}
	c, w := out.turns[0], out.turns[1]
	if c.Reply.Content != cut || w.Reply.Content != write {
		t.Errorf("the turns do not keep the replies as written: %q, %q", c.Reply.Content, w.Reply.Content)
	}
	if c.Outcome.Code != schemas.CodeReasoningCut || c.Reasoning == nil || !c.Reasoning.Cut {
		t.Errorf("a reply cut inside <mm:think>: outcome %+v, reasoning %+v; want refused %s", c.Outcome, c.Reasoning, schemas.CodeReasoningCut)
	}
	if w.Action.Verb != draft.VerbWrite || w.Action.Path != "greet.py" || !strings.Contains(w.Action.Shape, draft.ShapeTemplateSyntax) || w.Outcome.Status != schemas.StatusApplied {
		t.Errorf("the call in the template's syntax: action %+v, outcome %+v; want WRITE greet.py applied, shape with %s", w.Action, w.Outcome, draft.ShapeTemplateSyntax)
	}
	if w.Reasoning == nil || !strings.Contains(w.Reasoning.Text, "RUN tests first") {
		t.Errorf("the reasoning is not recorded apart: %+v", w.Reasoning)
	}
	patch, err := os.ReadFile(out.res.PatchPath)
	if err != nil || !strings.Contains(string(patch), `+    return f"hi {name}"`) {
		t.Errorf("the run's patch: %q, %v", patch, err)
	}
}
