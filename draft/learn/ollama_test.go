package learn_test

import (
	"context"
	"testing"

	"github.com/pyharness/pyharness/draft"
	"github.com/pyharness/pyharness/draft/learn"
	"github.com/pyharness/pyharness/internal/testkit/wiretest"
	"github.com/pyharness/pyharness/model/ollama"
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
		c, err := ollama.New(ollama.Config{Host: srv.URL, Model: "tiny"})
		if err != nil {
			t.Fatal(err)
		}
		info, err := c.Info(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if info.Template == "" {
			t.Fatal("/api/show gave no template")
		}
		tp, err := learn.ParseOllama("tiny", info.Template)
		if err != nil {
			t.Fatal(err)
		}
		syn := learn.Learn(tp)
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
