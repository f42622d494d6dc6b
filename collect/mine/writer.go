package mine

import (
	"context"
	"strings"

	"github.com/pyharness/pyharness/harness"
	"github.com/pyharness/pyharness/harness/model"
	"github.com/pyharness/pyharness/schemas"
)

// writerPrompt asks a model to turn a task's evidence into an issue a
// person would file: the symptom, never the fix.
const writerPrompt = `You write bug reports for a software project. You are given the evidence of a problem: tests that fail and how they fail, and sometimes the note of the change that is wanted. Write the issue a user would file about it: a short title line, then what goes wrong, naming every failing test given. Say what is observed, not how to fix it: no code changes, no patch, no guess at the line that is wrong. Reply with the issue text only.`

// Writer rewrites a task's evidence as an issue, the way a person filing
// it would word it.
type Writer struct {
	// Chat is the backend, any the harness speaks; Name is what the
	// manifest records the texts it wrote as (text_by).
	Chat    harness.Chatter
	Name    string
	Options schemas.Options
}

// Why a writer's text was not taken (Summary.WriterFallbacks keys).
const (
	writerFailed      = "the writer's call failed"
	writerEmpty       = "the writer wrote nothing"
	writerQuotesFix   = "the writer's text quotes the fix"
	writerLeftOutTest = "the writer's text leaves out a failing test"
)

// rewrite is the writer's text for a task whose evidence is text, and ""
// with why the evidence stands instead: the call failed, the text is empty,
// it holds a line of the fix, or it leaves out a failing test.
func (w *Writer) rewrite(ctx context.Context, text string, failing, fix []string) (string, string) {
	reply, err := w.Chat.Chat(ctx, model.Request{Options: w.Options, Messages: []schemas.Message{
		{Role: "system", Content: writerPrompt},
		{Role: "user", Content: text},
	}})
	if err != nil {
		return "", writerFailed
	}
	out := strings.TrimSpace(reply.Content)
	switch {
	case out == "":
		return "", writerEmpty
	case quotes(out, fix):
		return "", writerQuotesFix
	}
	for _, id := range failing {
		if !strings.Contains(out, id) {
			return "", writerLeftOutTest
		}
	}
	return out + "\n", ""
}
