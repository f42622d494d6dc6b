package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/export/sfttokens"
	"github.com/pyharness/pyharness/harness/chattemplate"
	"github.com/pyharness/pyharness/harness/draft"
)

// trainedTemplate is a chat template as the span tests use it: the
// template, and the markers a trainer that finds assistant turns in the
// rendered text looks for (Unsloth's train_on_responses_only is given the
// header; QVAC Fabric's --assistant-loss-only knows ChatML's), with the
// end of turn it trains too.
type trainedTemplate struct {
	name   string
	tpl    *chattemplate.Template
	header string // what starts an assistant turn
	end    string // what ends it, trained
	// trim is set when the template renders a message's content trimmed.
	trim bool
}

func loadTrainedTemplates(t *testing.T) []trainedTemplate {
	t.Helper()
	load := func(file string, tokens map[string]string) *chattemplate.Template {
		tpl, err := chattemplate.Load(filepath.Join("..", "..", "harness", "chattemplate", "testdata", "templates", file))
		if err != nil {
			t.Fatal(err)
		}
		tpl.Tokens = tokens
		return tpl
	}
	return []trainedTemplate{
		{name: "Llama 3.2", tpl: load("meta-llama-Llama-3.2-3B-Instruct.jinja", map[string]string{"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"}),
			header: "<|start_header_id|>assistant<|end_header_id|>\n\n", end: "<|eot_id|>", trim: true},
		{name: "Qwen2.5 (ChatML)", tpl: load("Qwen-Qwen2.5-7B-Instruct.jinja", map[string]string{"eos_token": "<|im_end|>"}),
			header: "<|im_start|>assistant\n", end: "<|im_end|>"},
	}
}

// exportLayouts runs the scripted benchmark once and exports its worked
// runs in each layout, returning the export directories by layout.
func exportLayouts(t *testing.T, layouts ...string) map[string]string {
	t.Helper()
	dir := t.TempDir()
	teacher := filepath.Join(dir, "teacher")
	if code, _, stderr := runCLI(t, "bench", "--repeat", "1", "--model", "scripted", "--out", teacher); code != 0 && code != 1 {
		t.Fatalf("bench: exit %d: %s", code, stderr)
	}
	out := map[string]string{}
	for _, layout := range layouts {
		lo := filepath.Join(dir, "export", layout)
		if code, _, stderr := runCLI(t, "export", "--in", teacher, "--include-scripted", "--layout", layout, "--out", lo); code != 0 {
			t.Fatalf("export --layout %s: exit %d: %s", layout, code, stderr)
		}
		out[layout] = lo
	}
	return out
}

// exportRows reads the rows of an export's train and valid splits, in
// order.
func exportRows(t *testing.T, dir string) (names []string, lines [][]byte) {
	t.Helper()
	for _, split := range []string{"train.jsonl", "valid.jsonl"} {
		f, err := os.Open(filepath.Join(dir, split))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<26)
		for n := 1; sc.Scan(); n++ {
			names = append(names, fmt.Sprintf("%s:%d", split, n))
			lines = append(lines, bytes.Clone(sc.Bytes()))
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	if len(lines) == 0 {
		t.Fatalf("%s: no rows", dir)
	}
	return names, lines
}

// TestTrainedSpansOfTheExport renders every row of a real export (the
// scripted benchmark's worked runs) through a real template and finds the
// spans as the trainer finds them: a trainer of the completion, like TRL
// (and scripts/train_lora.py, through tokenize), trains exactly the selected
// draft of each row, in canonical form, and nothing of its context; an
// assistant-only trainer given the same rows would also train the earlier
// drafts of the context, which is why these layouts are not for it
// (TestAssistantOnlyLayoutTrainsTheSelectedDraft has the one that is).
func TestTrainedSpansOfTheExport(t *testing.T) {
	dirs := exportLayouts(t, "prompt-completion", "messages")
	tpl := loadTrainedTemplates(t)[0].tpl
	for _, layout := range []string{"prompt-completion", "messages"} {
		names, lines := exportRows(t, dirs[layout])
		earlier := 0
		for i, line := range lines {
			where := layout + " " + names[i]
			want := selected(t, line)
			got, err := sfttokens.Render(tpl, line, sfttokens.Completion)
			if err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			if len(got.Spans) != 1 || got.Spans[0].Text != strings.TrimSpace(want)+"<|eot_id|>" {
				t.Errorf("%s: trained %+v, want the selected draft %q and the end of its turn", where, got.Spans, want)
			}
			if a, err := draft.Parse(want, nil); err != nil || a.Shape != draft.ShapeCanonical {
				t.Errorf("%s: the trained draft %q is not in canonical form (%v, shape %q)", where, want, err, a.Shape)
			}
			all, err := sfttokens.Render(tpl, line, sfttokens.Assistant)
			if err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			earlier += len(all.Spans) - 1
		}
		if earlier == 0 {
			t.Errorf("%s: no row holds an earlier draft in its context; the assistant-only case is not exercised", layout)
		}
		t.Logf("%s: %d rows; an assistant-only trainer would also train %d earlier drafts of their contexts", layout, len(lines), earlier)
	}
}

// TestAssistantOnlyLayoutTrainsTheSelectedDraft exports the same worked
// runs in the assistant-only layout and in prompt-completion, and checks
// every row of the first against the same row of the second (the same
// selection: meta.jsonl byte for byte): rendered through Llama 3.2's
// template and a ChatML one, the tokens a trainer of every assistant
// message trains — the spans found as sfttokens' assistant mode finds them
// (TRL's assistant_only_loss) and by the assistant markers in the
// rendered text (Unsloth, QVAC Fabric) — are exactly the selected draft,
// in canonical form, and the end of its turn; and the row still holds the
// context the draft answered, every earlier message in order. The same
// check on the messages layout must fail, on every row with an earlier
// draft: it is the check that catches an earlier draft left as an
// assistant message.
func TestAssistantOnlyLayoutTrainsTheSelectedDraft(t *testing.T) {
	dirs := exportLayouts(t, "assistant-only", "prompt-completion", "messages")
	tpls := loadTrainedTemplates(t)
	meta := func(layout string) []byte {
		b, err := os.ReadFile(filepath.Join(dirs[layout], "meta.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if !bytes.Equal(meta("assistant-only"), meta("prompt-completion")) {
		t.Fatal("assistant-only and prompt-completion exports of the same runs select different rows (meta.jsonl differs)")
	}
	names, lines := exportRows(t, dirs["assistant-only"])
	_, pcLines := exportRows(t, dirs["prompt-completion"])
	if len(pcLines) != len(lines) {
		t.Fatalf("assistant-only has %d rows, prompt-completion %d", len(lines), len(pcLines))
	}
	withHistory := 0
	for i, line := range lines {
		var pc struct {
			Prompt     []struct{ Role, Content string }
			Completion []struct{ Content string }
		}
		if err := json.Unmarshal(pcLines[i], &pc); err != nil || len(pc.Completion) != 1 {
			t.Fatalf("prompt-completion %s: %v %s", names[i], err, pcLines[i])
		}
		want := pc.Completion[0].Content
		if a, err := draft.Parse(want, nil); err != nil || a.Shape != draft.ShapeCanonical {
			t.Errorf("%s: the selected draft %q is not in canonical form (%v, shape %q)", names[i], want, err, a.Shape)
		}
		var context []string
		for _, m := range pc.Prompt {
			if m.Role != "system" {
				context = append(context, m.Content)
			}
		}
		if len(context) > 1 {
			withHistory++
		}
		for _, tt := range tpls {
			if err := trainsOnly(tt, line, want); err != nil {
				t.Errorf("assistant-only %s under %s: %v", names[i], tt.name, err)
			}
		}
		if err := holdsContext(line, context); err != nil {
			t.Errorf("assistant-only %s: %v", names[i], err)
		}
	}
	if withHistory == 0 {
		t.Fatal("no row has earlier drafts in its context; the layout's folding is not exercised")
	}
	t.Logf("assistant-only: %d rows, %d of them with earlier drafts in their context, each trains its selected draft alone under %d templates", len(lines), withHistory, len(tpls))

	// The check fails where an earlier draft is an assistant message.
	mNames, mLines := exportRows(t, dirs["messages"])
	if len(mLines) != len(pcLines) || !bytes.Equal(meta("messages"), meta("prompt-completion")) {
		t.Fatal("messages and prompt-completion exports of the same runs select different rows")
	}
	caught := 0
	for i, line := range mLines {
		err := trainsOnly(tpls[0], line, selected(t, line))
		if err != nil {
			caught++
		}
		var pc struct{ Prompt []struct{ Role string } }
		if json.Unmarshal(pcLines[i], &pc) != nil {
			t.Fatal(pcLines[i])
		}
		earlier := false
		for _, m := range pc.Prompt {
			earlier = earlier || m.Role == "assistant"
		}
		if earlier != (err != nil) {
			t.Errorf("messages %s: earlier drafts in the context %v, check says %v", mNames[i], earlier, err)
		}
	}
	if caught == 0 {
		t.Error("the check passed every row of the messages layout, whose earlier drafts are assistant messages")
	}
	t.Logf("messages: the check rejects %d of %d rows (those with earlier drafts as assistant messages)", caught, len(mLines))
}

// trainsOnly checks that a row, rendered through tt, trains exactly want
// and the end of its turn for a trainer of every assistant message,
// found both ways such trainers find them.
func trainsOnly(tt trainedTemplate, line []byte, want string) error {
	body := want
	if tt.trim {
		body = strings.TrimSpace(want)
	}
	wantSpan := body + tt.end
	var errs []error
	for _, mode := range []sfttokens.Mode{sfttokens.Assistant, sfttokens.Completion} {
		got, err := sfttokens.Render(tt.tpl, line, mode)
		if err != nil {
			return err
		}
		var spans []string
		for _, s := range got.Spans {
			spans = append(spans, strings.TrimSuffix(s.Text, "\n"))
		}
		if len(spans) != 1 || spans[0] != wantSpan {
			errs = append(errs, fmt.Errorf("%s mode trains %d span(s) %q, want the selected draft alone, %q", mode, len(spans), spans, wantSpan))
		}
	}
	full, err := sfttokens.Render(tt.tpl, line, sfttokens.Completion)
	if err != nil {
		return err
	}
	if marked := markedSpans(full.Text(), tt.header, tt.end); len(marked) != 1 || marked[0] != wantSpan {
		errs = append(errs, fmt.Errorf("the assistant markers %q mark %d span(s) %q, want the selected draft alone, %q", tt.header, len(marked), marked, wantSpan))
	}
	return errors.Join(errs...)
}

// markedSpans finds the assistant turns of a rendered row as Unsloth's
// train_on_responses_only and QVAC Fabric's --assistant-loss-only find
// them: after each assistant header, up to and with the end of the turn.
func markedSpans(text, header, end string) []string {
	var out []string
	for {
		i := strings.Index(text, header)
		if i < 0 {
			return out
		}
		text = text[i+len(header):]
		j := strings.Index(text, end)
		if j < 0 {
			return append(out, text)
		}
		out = append(out, text[:j+len(end)])
		text = text[j+len(end):]
	}
}

// holdsContext checks that an assistant-only row keeps its system prompt
// and holds every message of the context after it, in order, in its one
// user message.
func holdsContext(line []byte, context []string) error {
	var r struct {
		Messages []struct{ Role, Content string }
	}
	if err := json.Unmarshal(line, &r); err != nil {
		return err
	}
	var roles []string
	for _, m := range r.Messages {
		roles = append(roles, m.Role)
	}
	if strings.Join(roles, ",") != "system,user,assistant" {
		return fmt.Errorf("roles %v, want system, user, assistant", roles)
	}
	user := r.Messages[1].Content
	for k, c := range context {
		i := strings.Index(user, c)
		if i < 0 {
			return fmt.Errorf("context message %d of %d (%.60q) is not in the user message, after the ones before it", k+1, len(context), c)
		}
		user = user[i+len(c):]
	}
	return nil
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
