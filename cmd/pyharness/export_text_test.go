package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/internal/testkit/needs"
)

// debianPython has python3-jinja2, the engine transformers renders chat
// templates with (the python3 on PATH may be a pyenv build without it).
const debianPython = "/usr/bin/python3"

// TestExportFormatText exports scripted runs as text for raw-text
// trainers through a real model's chat template (Qwen2.5's), and checks
// every text row against the same JSONL row rendered by Python jinja2 set
// up as transformers' apply_chat_template sets it up: byte for byte equal.
// The trained part of each row, its last message, is the canonical draft.
func TestExportFormatText(t *testing.T) {
	if err := exec.Command(debianPython, "-c", "import jinja2").Run(); err != nil {
		needs.Missing(t, "%s with jinja2 is needed to render rows as transformers does (apt-get install python3-jinja2): %v", debianPython, err)
	}
	dir := t.TempDir()
	traces := filepath.Join(dir, "runs")
	if code, _, stderr := runCLI(t, "bench", "--model", "scripted", "--case", "initials", "--case", "env-flag", "--repeat", "3", "--out", traces); code != 0 {
		t.Fatalf("bench: %d %s", code, stderr)
	}
	tmplPath, err := filepath.Abs("../../harness/chattemplate/testdata/templates/Qwen-Qwen2.5-7B-Instruct.jinja")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "text-export")
	code, stdout, stderr := runCLI(t, "export", "--in", traces, "--include-scripted", "--format", "text", "--chat-template", tmplPath, "--out", out)
	if code != 0 {
		t.Fatalf("export --format text: exit %d\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "a raw-text trainer learns every token of a row") {
		t.Errorf("stdout says nothing of what a raw-text trainer learns:\n%s", stdout)
	}
	card, _ := os.ReadFile(filepath.Join(out, "README.md"))
	if !strings.Contains(string(card), "## Text for raw-text trainers") || !strings.Contains(string(card), "**Every token is trained.**") {
		t.Errorf("the card lacks the text section:\n%s", card)
	}

	rows := jsonLines(t, filepath.Join(out, "train.jsonl"))
	texts := jsonLines(t, filepath.Join(out, "text", "text-jsonl", "train.jsonl"))
	if len(rows) == 0 || len(texts) != len(rows) {
		t.Fatalf("%d jsonl rows, %d text rows", len(rows), len(texts))
	}
	plain, _ := os.ReadFile(filepath.Join(out, "text", "plain", "train.txt"))
	source, _ := os.ReadFile(tmplPath)
	var jobs []map[string]any
	for _, r := range rows {
		var row struct {
			Prompt     []map[string]any `json:"prompt"`
			Completion []map[string]any `json:"completion"`
		}
		if err := json.Unmarshal(r, &row); err != nil || len(row.Completion) != 1 {
			t.Fatalf("row %s: %v", r, err)
		}
		msgs := append(row.Prompt, row.Completion...)
		jobs = append(jobs, map[string]any{"template": string(source), "context": map[string]any{"messages": msgs, "add_generation_prompt": false}})
	}
	in, _ := json.Marshal(map[string]any{"now": "2026-12-01T09:30:00", "jobs": jobs})
	cmd := exec.Command(debianPython, "../../harness/chattemplate/testdata/render_transformers.py")
	cmd.Stdin = bytes.NewReader(in)
	res, err := cmd.Output()
	if err != nil {
		t.Fatalf("render_transformers.py: %v", err)
	}
	var want []struct{ Text, Error *string }
	if err := json.Unmarshal(res, &want); err != nil {
		t.Fatal(err)
	}
	var plainWant strings.Builder
	for i, tl := range texts {
		var got struct{ Text string }
		json.Unmarshal(tl, &got)
		if want[i].Text == nil {
			t.Fatalf("row %d: Python raised %v", i, *want[i].Error)
		}
		if got.Text != *want[i].Text {
			t.Errorf("row %d: text\n%q\nPython jinja2 renders\n%q", i, got.Text, *want[i].Text)
		}
		plainWant.WriteString(*want[i].Text + "\n")
		var row struct{ Completion []struct{ Content string } }
		json.Unmarshal(rows[i], &row)
		if !strings.HasSuffix(strings.TrimRight(got.Text, "\n"), row.Completion[0].Content+"<|im_end|>") {
			t.Errorf("row %d does not end with its completion %q", i, row.Completion[0].Content)
		}
	}
	if string(plain) != plainWant.String() {
		t.Error("plain/train.txt is not the rendered rows one after another")
	}

	if code, _, stderr := runCLI(t, "export", "--in", traces, "--include-scripted", "--format", "text", "--out", filepath.Join(dir, "none")); code != exitUsage || !strings.Contains(stderr, "--format text renders each row through the chat template") {
		t.Errorf("--format text without a template: exit %d, %s", code, stderr)
	}
}

func jsonLines(t *testing.T, path string) [][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		out = append(out, append([]byte(nil), sc.Bytes()...))
	}
	return out
}
