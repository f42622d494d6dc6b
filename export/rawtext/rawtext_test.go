package rawtext_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/export/rawtext"
	"github.com/pyharness/pyharness/internal/testkit/wiretest"
)

// tinyTemplate is the template and first stop string of the model Ollama
// v0.17.4 served when show-tiny was recorded.
func tinyTemplate(t *testing.T) *rawtext.OllamaTemplate {
	t.Helper()
	var show struct {
		Template   string `json:"template"`
		Parameters string `json:"parameters"`
	}
	if err := json.Unmarshal(wiretest.MustLoad("show-tiny").Body, &show); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(show.Parameters, `"<|eot_id|>"`) {
		t.Fatalf("recorded parameters: %q", show.Parameters)
	}
	r, err := rawtext.NewOllamaTemplate("tiny", show.Template, "<|eot_id|>")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func writeExport(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const (
	firstRow  = `{"messages":[{"role":"system","content":"Use the protocol."},{"role":"user","content":"Task: fix a.py"},{"role":"assistant","content":"READ a.py"}]}`
	secondRow = `{"messages":[{"role":"system","content":"Use the protocol."},{"role":"user","content":"Task"},{"role":"assistant","content":"**Action:** READ b.py"},{"role":"user","content":"parse-failed"},{"role":"assistant","content":"READ b.py"}]}`
	validRow  = `{"prompt":[{"role":"system","content":"S"},{"role":"user","content":"U"}],"completion":[{"role":"assistant","content":"RUN tests"}]}`
)

func TestWriteLayouts(t *testing.T) {
	in := writeExport(t, map[string]string{"train.jsonl": firstRow + "\n" + secondRow + "\n", "valid.jsonl": validRow + "\n"})
	out := filepath.Join(t.TempDir(), "text")
	s, err := rawtext.Write(context.Background(), in, out, tinyTemplate(t), rawtext.Layouts)
	if err != nil {
		t.Fatal(err)
	}
	// What Ollama sends the model for the context, then the draft and
	// the end of turn.
	want1 := "<|start_header_id|>system<|end_header_id|>\n\nUse the protocol.<|eot_id|>" +
		"<|start_header_id|>user<|end_header_id|>\n\nTask: fix a.py<|eot_id|>" +
		"<|start_header_id|>assistant<|end_header_id|>\n\nREAD a.py<|eot_id|>"
	plain, err := os.ReadFile(filepath.Join(out, "plain", "train.txt"))
	if err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(strings.TrimSuffix(string(plain), "\n"), "\n<|start_header_id|>system")
	if len(rows) != 2 || !strings.HasPrefix(string(plain), want1+"\n") {
		t.Errorf("train.txt =\n%q\nwant it to start\n%q", plain, want1)
	}
	if !strings.Contains(string(plain), "**Action:** READ b.py<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nparse-failed<|eot_id|>") {
		t.Errorf("the earlier draft is not in the second row's context: %q", plain)
	}
	var line struct{ Text string }
	jl, _ := os.ReadFile(filepath.Join(out, "text-jsonl", "valid.jsonl"))
	if err := json.Unmarshal(jl, &line); err != nil || !strings.HasSuffix(line.Text, "<|start_header_id|>assistant<|end_header_id|>\n\nRUN tests<|eot_id|>") {
		t.Errorf("valid.jsonl = %q (%v)", jl, err)
	}
	if s.Rows["train"] != 2 || s.Rows["valid"] != 1 || s.EarlierDrafts != 1 {
		t.Errorf("summary %+v", s)
	}
	readme, _ := os.ReadFile(filepath.Join(out, "README.md"))
	for _, want := range []string{"Every token is trained", "1 row(s) hold earlier drafts", "llama-finetune -f plain/train.txt", "| train | 2 |"} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("README lacks %q:\n%s", want, readme)
		}
	}
}

func TestWriteBadRows(t *testing.T) {
	for _, tt := range []struct {
		name, body, want string
	}{
		{"not JSON", firstRow + "\n{oops\n", "train.jsonl:2: "},
		{"no conversation", `{"text":"x"}` + "\n", `train.jsonl:1: the row has neither "messages"`},
		{"ends with the user", `{"messages":[{"role":"user","content":"x"}]}` + "\n", `train.jsonl:1: the last message is "user"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := writeExport(t, map[string]string{"train.jsonl": tt.body})
			out := filepath.Join(t.TempDir(), "text")
			_, err := rawtext.Write(context.Background(), in, out, tinyTemplate(t), rawtext.Layouts)
			var re *rawtext.RowError
			if !errors.As(err, &re) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want a RowError with %q", err, tt.want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Error("a partial output was left")
			}
		})
	}
	if _, err := rawtext.Write(context.Background(), t.TempDir(), filepath.Join(t.TempDir(), "x"), tinyTemplate(t), rawtext.Layouts); err == nil || !strings.Contains(err.Error(), "no train.jsonl") {
		t.Errorf("empty export: %v", err)
	}
}
