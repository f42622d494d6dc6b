package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/chattemplate"
	"github.com/pyharness/pyharness/draft"
	"github.com/pyharness/pyharness/sfttokens"
)

// TestTrainedSpansOfTheExport renders every row of a real export (the
// scripted benchmark's worked runs) through a real template and finds the
// spans as the trainer finds them: a trainer of the completion, like TRL
// (and scripts/train_lora.py, through tokenize), trains exactly the selected
// draft of each row, in canonical form, and nothing of its context; an
// assistant-only trainer given the same rows would also train the earlier
// drafts of the context, which is why these layouts are not for it.
func TestTrainedSpansOfTheExport(t *testing.T) {
	dir := t.TempDir()
	teacher, out := filepath.Join(dir, "teacher"), filepath.Join(dir, "export")
	if code, _, stderr := runCLI(t, "bench", "--repeat", "1", "--model", "scripted", "--out", teacher); code != 0 && code != 1 {
		t.Fatalf("bench: exit %d: %s", code, stderr)
	}
	tpl, err := chattemplate.Load(filepath.Join("..", "..", "chattemplate", "testdata", "templates", "meta-llama-Llama-3.2-3B-Instruct.jinja"))
	if err != nil {
		t.Fatal(err)
	}
	tpl.Tokens = map[string]string{"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"}
	for _, layout := range []string{"prompt-completion", "messages"} {
		lo := filepath.Join(out, layout)
		if code, _, stderr := runCLI(t, "export", "--in", teacher, "--include-scripted", "--layout", layout, "--out", lo); code != 0 {
			t.Fatalf("export: exit %d: %s", code, stderr)
		}
		rows, earlier := 0, 0
		for _, split := range []string{"train.jsonl", "valid.jsonl"} {
			f, err := os.Open(filepath.Join(lo, split))
			if err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 1<<26)
			for n := 1; sc.Scan(); n++ {
				line := sc.Bytes()
				want := selected(t, line)
				got, err := sfttokens.Render(tpl, line, sfttokens.Completion)
				if err != nil {
					t.Fatalf("%s %s:%d: %v", layout, split, n, err)
				}
				if len(got.Spans) != 1 || got.Spans[0].Text != strings.TrimSpace(want)+"<|eot_id|>" {
					t.Errorf("%s %s:%d: trained %+v, want the selected draft %q and the end of its turn", layout, split, n, got.Spans, want)
				}
				if a, err := draft.Parse(want, nil); err != nil || a.Shape != draft.ShapeCanonical {
					t.Errorf("%s %s:%d: the trained draft %q is not in canonical form (%v, shape %q)", layout, split, n, want, err, a.Shape)
				}
				all, err := sfttokens.Render(tpl, line, sfttokens.Assistant)
				if err != nil {
					t.Fatalf("%s %s:%d: %v", layout, split, n, err)
				}
				earlier += len(all.Spans) - 1
				rows++
			}
			f.Close()
		}
		if rows == 0 {
			t.Fatalf("%s: no rows", layout)
		}
		if earlier == 0 {
			t.Errorf("%s: no row holds an earlier draft in its context; the assistant-only case is not exercised", layout)
		}
		t.Logf("%s: %d rows; an assistant-only trainer would also train %d earlier drafts of their contexts", layout, rows, earlier)
	}
}

// selected is the content of a row's trained message: the completion, or
// the message of weight 1.
func selected(t *testing.T, line []byte) string {
	t.Helper()
	var r struct {
		Completion []struct{ Content string }
		Messages   []struct {
			Content string
			Weight  *int
		}
	}
	if err := json.Unmarshal(line, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Completion) == 1 {
		return r.Completion[0].Content
	}
	for _, m := range r.Messages {
		if m.Weight != nil && *m.Weight == 1 {
			return m.Content
		}
	}
	t.Fatalf("no trained message in %s", line)
	return ""
}
