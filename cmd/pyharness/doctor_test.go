package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pyharness/pyharness/internal/wiretest"
)

func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	a := &app{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, now: time.Now, getenv: func(string) string { return "" }}
	code := run(context.Background(), a, args)
	return code, out.String(), errb.String()
}

func TestDoctor(t *testing.T) {
	srv := wiretest.NewOllama(t)
	tests := []struct {
		name     string
		model    string
		wantCode int
		want     []string
	}{
		{"model on the server", "ollama:tiny", 0, []string{"ok    model", "tiny at " + srv.URL, "digest ", "ok    git"}},
		{"model not on the server", "ollama:llama3.1:8b", exitPreflight, []string{"FAIL  model", "ollama pull llama3.1:8b", "model 'llama3.1:8b' not found"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, _ := runCLI(t, "doctor", "--model", tt.model, "--base-url", srv.URL, "--out", t.TempDir())
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d\n%s", code, tt.wantCode, out)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
	code, out, _ := runCLI(t, "doctor", "--model", "ollama:tiny", "--base-url", "http://127.0.0.1:1", "--out", t.TempDir())
	if code != exitPreflight || !strings.Contains(out, "FAIL  server") || !strings.Contains(out, "connection refused") {
		t.Errorf("a server that is down: exit %d\n%s", code, out)
	}
}

func TestParseModelSpec(t *testing.T) {
	tests := []struct {
		in          string
		backend     string
		arg         string
		errContains string
	}{
		{"ollama:llama3.1:8b", "ollama", "llama3.1:8b", ""},
		{"llama3.1:8b", "ollama", "llama3.1:8b", ""},
		{"qwen2.5-coder:7b", "ollama", "qwen2.5-coder:7b", ""},
		{"openai:Qwen2.5-Coder-32B", "openai", "Qwen2.5-Coder-32B", ""},
		{"scripted", "scripted", "", ""},
		{"scripted:drafts.jsonl", "scripted", "drafts.jsonl", ""},
		{"replay:pyharness-out", "replay", "pyharness-out", ""},
		{"ollama:", "", "", "needs a model name"},
		{"replay:", "", "", "needs a trace file"},
		{"", "", "", "--model is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := parseModelSpec(tt.in)
			if tt.errContains != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errContains) {
					t.Fatalf("err %v, want one saying %q", err, tt.errContains)
				}
				return
			}
			if err != nil || got.backend != tt.backend || got.arg != tt.arg {
				t.Fatalf("got %+v, %v; want %s %s", got, err, tt.backend, tt.arg)
			}
		})
	}
}
