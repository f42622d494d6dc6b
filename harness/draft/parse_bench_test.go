package draft_test

import (
	"context"
	"os"
	"sync"
	"testing"

	"github.com/pyharness/pyharness/collect/synthetic"
	"github.com/pyharness/pyharness/harness/draft"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

// reply is one model reply as a trace keeps it.
type reply struct {
	content string
	calls   []schemas.ToolCall
}

var (
	corpusRepliesOnce sync.Once
	corpusReplies     []reply
	corpusRepliesErr  error
)

// generatedReplies are the model replies of a generated corpus, the drafts
// classify and export parse: generated once per test binary.
func generatedReplies(tb testing.TB) []reply {
	tb.Helper()
	corpusRepliesOnce.Do(func() {
		dir, err := os.MkdirTemp("", "draft-bench-")
		if err != nil {
			corpusRepliesErr = err
			return
		}
		defer os.RemoveAll(dir)
		o := synthetic.DefaultOptions()
		o.Turns = 4000
		if _, err := synthetic.Generate(context.Background(), dir, o); err != nil {
			corpusRepliesErr = err
			return
		}
		files, err := trace.ListFiles(dir)
		if err != nil {
			corpusRepliesErr = err
			return
		}
		for _, f := range files {
			run, err := trace.ReadRun(f)
			if err != nil {
				corpusRepliesErr = err
				return
			}
			for _, t := range run.Turns {
				if t.ModelStep {
					corpusReplies = append(corpusReplies, reply{t.Reply.Content, t.Reply.ToolCalls})
				}
			}
		}
	})
	if corpusRepliesErr != nil {
		tb.Fatalf("generate corpus: %v", corpusRepliesErr)
	}
	return corpusReplies
}

// BenchmarkParseCorpus parses every model reply of a generated corpus once
// per op: the parses classify and export make.
func BenchmarkParseCorpus(b *testing.B) {
	replies := generatedReplies(b)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for _, r := range replies {
			_, _ = draft.Parse(r.content, r.calls)
		}
	}
	b.ReportMetric(float64(len(replies)), "drafts/op")
}
