package export_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/export"
	"github.com/pyharness/pyharness/harness/chattemplate"
)

func loadChatTemplate(t *testing.T, name string) *chattemplate.Template {
	t.Helper()
	tp, err := chattemplate.Load(filepath.Join("..", "harness", "chattemplate", "testdata", "templates", name+".jinja"))
	if err != nil {
		t.Fatal(err)
	}
	tp.Tokens = map[string]string{"bos_token": "<bos>", "eos_token": "<eos>"}
	return tp
}

type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// line is an SFT row of either layout, read as one conversation: the
// messages, or the prompt followed by the completion.
type line struct {
	Messages []message
}

func (l *line) UnmarshalJSON(b []byte) error {
	var row struct{ Messages, Prompt, Completion []message }
	if err := json.Unmarshal(b, &row); err != nil {
		return err
	}
	l.Messages = append(append(row.Messages, row.Prompt...), row.Completion...)
	return nil
}

func readLines(t *testing.T, path string) []line {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []line
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		out = append(out, l)
	}
	return out
}

// TestChatTemplateFoldsSystem exports through Gemma 2's template, which
// raises "System role not supported": every row comes out without a
// system message, its system prompt at the head of the first user
// message, each row renders, and the card counts the adaptation.
func TestChatTemplateFoldsSystem(t *testing.T) {
	in := writeFixture(t)
	plain := filepath.Join(t.TempDir(), "plain")
	runExport(t, options(in, plain, export.FormatJSONL))
	before := readLines(t, filepath.Join(plain, "train.jsonl"))

	out := filepath.Join(t.TempDir(), "gemma")
	o := options(in, out, export.FormatJSONL)
	tp := loadChatTemplate(t, "google-gemma-2-2b-it")
	o.ChatTemplate = tp
	sum, text := runExport(t, o)
	after := readLines(t, filepath.Join(out, "train.jsonl"))
	if len(after) != len(before) || len(after) == 0 {
		t.Fatalf("%d rows through the template, %d without", len(after), len(before))
	}
	for i := range after {
		if before[i].Messages[0].Role != "system" {
			t.Fatalf("row %d had no system prompt to fold", i+1)
		}
		sys, user := before[i].Messages[0].Content, before[i].Messages[1].Content
		got := after[i].Messages
		if got[0].Role != "user" || got[0].Content != sys+"\n\n"+user || len(got) != len(before[i].Messages)-1 {
			t.Errorf("row %d: first message %s %.60q…, want the user message led by the system prompt", i+1, got[0].Role, got[0].Content)
		}
		if last, want := got[len(got)-1], before[i].Messages[len(before[i].Messages)-1]; last != want {
			t.Errorf("row %d: trained answer changed: %q, want %q", i+1, last.Content, want.Content)
		}
	}
	rows := 0
	for _, sp := range sum.Splits {
		rows += sp.Rows
	}
	tc := sum.Template
	if tc == nil || tc.Rows != rows || tc.Adaptations["system prompt folded into the first user message"] != rows {
		t.Fatalf("template check %+v, want all %d rows checked and folded", tc, rows)
	}
	card, err := os.ReadFile(filepath.Join(out, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Chat template", tp.Name, "| system prompt folded into the first user message | " + itoa(rows) + " |", "--chat-template " + tp.Name} {
		if !bytes.Contains(card, []byte(want)) {
			t.Errorf("card lacks %q", want)
		}
	}
	if !strings.Contains(text, "adapted: system prompt folded into the first user message") {
		t.Errorf("summary does not name the adaptation:\n%s", text)
	}
}

// TestChatTemplateRowFails: a row the template cannot render fails the
// export, naming the file and line, the template and its own message,
// and leaves no data file behind.
func TestChatTemplateRowFails(t *testing.T) {
	in := writeFixture(t)
	out := filepath.Join(t.TempDir(), "out")
	tp, err := chattemplate.Parse("strict.jinja", `{% for m in messages %}{% if m.role == 'assistant' and 'WRITE' in m.content %}{{ raise_exception('no WRITE in my training data') }}{% endif %}{{ m.content }}{% endfor %}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	o := options(in, out, export.FormatJSONL)
	o.ChatTemplate = tp
	var buf bytes.Buffer
	_, err = export.Run(context.Background(), o, &buf)
	var re *export.TemplateRowError
	if !errors.As(err, &re) {
		t.Fatalf("export: %v, want a *TemplateRowError", err)
	}
	for _, want := range []string{"train.jsonl:", "template strict.jinja", "no WRITE in my training data"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if re.Line < 1 {
		t.Errorf("line %d", re.Line)
	}
	if _, err := os.Stat(filepath.Join(out, "train.jsonl")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("train.jsonl left behind after a failed check: %v", err)
	}

	o.Format, o.Out = export.FormatParquet, filepath.Join(t.TempDir(), "pq")
	if _, err := export.Run(context.Background(), o, &buf); err == nil || !strings.Contains(err.Error(), "chat template checks jsonl and dpo") {
		t.Errorf("parquet with a chat template: %v", err)
	}
}

// TestExportUnderRealTemplates exports the fixture (the default
// selection, --include-failed-runs, --keep-tool-calls and dpo) through each
// test template. An export that succeeds has had every row rendered and
// checked: no row raised, no system prompt or user message dropped, no
// trained answer altered, every tool call rendered, none double-encoded.
// A template that cannot train native tool calls must fail the
// --keep-tool-calls export, naming the row.
func TestExportUnderRealTemplates(t *testing.T) {
	in := writeFixture(t)
	names, err := filepath.Glob(filepath.Join("..", "harness", "chattemplate", "testdata", "templates", "*.jinja"))
	if err != nil || len(names) < 20 {
		t.Fatalf("test templates: %v (%d)", err, len(names))
	}
	noTools := dropsToolCalls(t)
	variants := []struct {
		name string
		set  func(*export.Options)
	}{
		{"default", func(*export.Options) {}},
		{"include-failed-runs", func(o *export.Options) { o.IncludeFailedRuns = true }},
		{"keep-tool-calls", func(o *export.Options) { o.KeepToolCalls = true }},
		{"dpo", func(o *export.Options) { o.Format = export.FormatDPO }},
		{"messages", func(o *export.Options) { o.Layout = "messages" }},
		{"messages-keep-tool-calls", func(o *export.Options) { o.Layout, o.KeepToolCalls = "messages", true }},
		{"assistant-only", func(o *export.Options) { o.Layout = "assistant-only" }},
		{"assistant-only-include-failed-runs", func(o *export.Options) { o.Layout, o.IncludeFailedRuns = "assistant-only", true }},
	}
	for _, f := range names {
		name := strings.TrimSuffix(filepath.Base(f), ".jinja")
		t.Run(name, func(t *testing.T) {
			tp := loadChatTemplate(t, name)
			for _, v := range variants {
				o := options(in, filepath.Join(t.TempDir(), v.name), export.FormatJSONL)
				v.set(&o)
				o.ChatTemplate = tp
				var buf bytes.Buffer
				sum, err := export.Run(context.Background(), o, &buf)
				const want = "drops the answer's tool calls"
				switch {
				case strings.HasSuffix(v.name, "keep-tool-calls") && noTools[name]:
					var re *export.TemplateRowError
					if !errors.As(err, &re) || !strings.Contains(err.Error(), want) {
						t.Errorf("%s: %v, want a row error with %q", v.name, err, want)
					}
				case err != nil:
					t.Errorf("%s: %v", v.name, err)
				case sum.Template == nil || sum.Template.Rows == 0:
					t.Errorf("%s: no row checked: %+v", v.name, sum.Template)
				}
			}
		})
	}
}

// dropsToolCalls reads the list of test templates that drop native tool
// calls, which chattemplate's tests share.
func dropsToolCalls(t *testing.T) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "harness", "chattemplate", "testdata", "drops-tool-calls.txt"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out[l] = true
		}
	}
	if len(out) == 0 {
		t.Fatal("drops-tool-calls.txt names no template")
	}
	return out
}
