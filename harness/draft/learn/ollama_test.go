package learn

import (
	"context"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/harness/draft"
	"github.com/pyharness/pyharness/harness/model"
	"github.com/pyharness/pyharness/harness/model/ollama"
	"github.com/pyharness/pyharness/internal/testkit/wiretest"
	"github.com/pyharness/pyharness/schemas"
)

// The Go template a real Ollama server gives at /api/show is probed the
// same way: the recorded thinking model's template writes <think> around
// a message's thinking and opens it after the assistant header when
// thinking is on.
func TestOllamaTemplateFromShow(t *testing.T) {
	for _, tc := range []struct {
		thinking      bool
		wantReasoning bool
	}{{false, false}, {true, true}} {
		srv := wiretest.NewOllama(t)
		srv.Thinking = tc.thinking
		info := ollamaInfo(t, srv)
		if info.Template == "" {
			t.Fatal("/api/show gave no template")
		}
		tp, err := ParseOllama("tiny", info.Template)
		if err != nil {
			t.Fatal(err)
		}
		syn := learnSyntax(tp)
		if syn.Calls != nil {
			t.Errorf("thinking %v: the recorded template writes no tool call, yet %+v was learned", tc.thinking, syn.Calls)
		}
		if (syn.Reasoning != nil) != tc.wantReasoning {
			t.Fatalf("thinking %v: learned reasoning %+v", tc.thinking, syn.Reasoning)
		}
		if !tc.wantReasoning {
			continue
		}
		r := syn.Reasoning
		if r.Open != "<think>" || r.Close != "</think>" || r.PromptOpens || !r.OpensWhenThinking {
			t.Errorf("learned reasoning %+v, want <think> … </think> opened by the prompt when thinking is on", r)
		}
		// With thinking on, the reply begins inside the block: the close
		// mark ends it, and a reply without one never left it.
		on := syn.Thinking()
		a, err := draft.ParseWith(on, "The file is small.\nWRITE x.py\n```python\npass\n```\n</think>\nREAD src/app.py", nil)
		if err != nil || a.Verb != draft.VerbRead || a.Path != "src/app.py" {
			t.Errorf("reasoning then READ: %+v, %v", a, err)
		}
		_, err = draft.ParseWith(on, "The file is small.\nWRITE x.py\n```python\npass\n```\n", nil)
		if e, ok := err.(*draft.Error); !ok || e.Code != draft.CodeReasoningCut {
			t.Errorf("a reply cut inside the reasoning the prompt opened: %v, want %s", err, draft.CodeReasoningCut)
		}
	}
}

// The Go template of a real Ollama's tool-calling model (the recording
// show-tools: Mistral's template from Ollama's docs on the tiny model)
// comes from /api/show, is probed as a Jinja template is, and the syntax
// learned from it reads every harness call the template writes, hard
// arguments and all.
func TestOllamaToolTemplateReadsItsCalls(t *testing.T) {
	srv := wiretest.NewOllama(t)
	srv.Show = "show-tools"
	info := ollamaInfo(t, srv)
	if !strings.Contains(info.Template, ".ToolCalls") {
		t.Fatalf("/api/show gave no template that writes tool calls: %q", info.Template)
	}
	tp, err := ParseOllama("tiny-tools", info.Template)
	if err != nil {
		t.Fatal(err)
	}
	syn := learnSyntax(tp)
	if syn.Calls == nil {
		t.Fatalf("no call syntax learned from the template:\n%s", info.Template)
	}
	if syn.Reasoning != nil {
		t.Errorf("the template writes no reasoning, yet %+v was learned", syn.Reasoning)
	}
	read, total := 0, 0
	for i, call := range harnessCalls() {
		want, err := draft.Parse("", []schemas.ToolCall{call})
		if err != nil {
			t.Fatal(err)
		}
		text, ok := callReply(t, tp, syn, toCall(call, "c"+string(rune('A'+i))+"bcdefgh"))
		if !ok {
			t.Errorf("cannot render a call to %s", call.Name)
			continue
		}
		total++
		if !strings.HasPrefix(strings.TrimSpace(text), "[TOOL_CALLS]") {
			t.Errorf("%s rendered as %q, not as the template writes calls", call.Name, text)
		}
		got, err := draft.ParseWith(syn, text, nil)
		if err == nil && same(got, want) && strings.Contains(got.Shape, draft.ShapeTemplateSyntax) {
			read++
		} else {
			t.Errorf("%s read with the learned syntax as %+v, %v; want %+v\nreply: %q", call.Name, got, err, want, text)
		}
	}
	t.Logf("tiny-tools (Ollama /api/show): %d/%d calls read with the syntax learned from its Go template; calls %s", read, total, Record(syn, "Ollama /api/show").Calls)
}

// ollamaInfo is what the Ollama client hears of the model tiny from srv.
func ollamaInfo(t *testing.T, srv *wiretest.Ollama) model.Info {
	t.Helper()
	c, err := ollama.New(ollama.Config{Host: srv.URL, Model: "tiny"})
	if err != nil {
		t.Fatal(err)
	}
	info, err := c.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return info
}
