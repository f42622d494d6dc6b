package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pyharness/pyharness/internal/testkit/wiretest"
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
	srv.Trained = wiretest.Trained4096 // the first recorded model's 512 leaves no room for --num-predict 1024
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
		{"llama3:8b", "ollama", "llama3:8b", ""},
		{"llama:latest", "ollama", "llama:latest", ""},
		{"hf.co/bartowski/qwen:Q4_K_M", "ollama", "hf.co/bartowski/qwen:Q4_K_M", ""},
		{"scriptd:s.jsonl", "", "", `unknown backend "scriptd"; the backends are ollama:NAME, openai:NAME, scripted:FILE and replay:TRACE (did you mean scripted:s.jsonl?)`},
		{"olama:foo", "", "", "the backends are ollama:NAME, openai:NAME, scripted:FILE and replay:TRACE"},
		{"olama:llama3.1:8b", "", "", `unknown backend "olama"; the backends are ollama:NAME, openai:NAME, scripted:FILE and replay:TRACE (did you mean ollama:llama3.1:8b?)`},
		{"opanai:gpt", "", "", `unknown backend "opanai"; the backends are ollama:NAME, openai:NAME, scripted:FILE and replay:TRACE (did you mean openai:gpt?)`},
		{"replya:out", "", "", "(did you mean replay:out?)"},
		{"drafts:my/drafts.jsonl", "", "", `unknown backend "drafts"; the backends are ollama:NAME, openai:NAME, scripted:FILE and replay:TRACE (for a script of drafts, write scripted:my/drafts.jsonl)`},
		{"docs:a/b", "", "", "(for an Ollama model of that name, write ollama:docs:a/b)"},
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

// TestDoctorServerFamilies: doctor against both recorded server families
// reports the model present and the window in force (llama-server
// serves any model name it is asked for), with the requested, trained,
// in-force and effective sizes, and a warning where the window asked for
// is not the one that applies.
func TestDoctorServerFamilies(t *testing.T) {
	llama := wiretest.NewLlamaServer(t)
	ollamaV1 := wiretest.NewOpenAI(t)
	native := wiretest.NewOllama(t)
	native.Trained = wiretest.Trained4096
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"llama-server", []string{"--model", "openai:tiny", "--base-url", llama.URL},
			[]string{"ok    model              tiny at " + llama.URL + ", trained context 4096, served by llama-server; llama-server answers for any model name with the one it serves (/models/tiny.gguf)",
				"warn  context            requested 8192 (not sent: this API has no num_ctx), trained 4096, in force 2048, effective 2048 (from server): --num-ctx 8192 is above the model's trained context 4096; the server's window is 2048 whatever --num-ctx asks"}},
		{"llama-server, any model name", []string{"--model", "openai:whatever", "--base-url", llama.URL, "--num-ctx", "2048"},
			[]string{"ok    model              whatever at ", "ok    context            requested 2048 (not sent: this API has no num_ctx), trained 4096, in force 2048, effective 2048 (from server)"}},
		{"ollama /v1", []string{"--model", "openai:tiny", "--base-url", ollamaV1.URL},
			[]string{"ok    model              tiny at " + ollamaV1.URL + ", trained context 4096, served by ollama",
				"warn  context            requested 8192 (not sent: this API has no num_ctx), trained 4096, in force unknown, effective 4096 (from trained): --num-ctx 8192 is above the model's trained context 4096\n"}},
		{"ollama /v1 with --context-size", []string{"--model", "openai:tiny", "--base-url", ollamaV1.URL, "--num-ctx", "4096", "--context-size", "3000"},
			[]string{"warn  context            requested 4096 (not sent: this API has no num_ctx), trained 4096, in force 3000, effective 3000 (from context-size): the server's window is 3000 whatever --num-ctx asks"}},
		{"ollama, num_ctx above the trained context", []string{"--model", "ollama:tiny", "--base-url", native.URL},
			[]string{"ok    model              tiny at ", "warn  context            requested 8192 (sent), trained 4096, in force 4096, effective 4096 (from trained): --num-ctx 8192 is above the model's trained context 4096: the server caps it silently"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, _ := runCLI(t, append([]string{"doctor", "--out", t.TempDir()}, tt.args...)...)
			if strings.Contains(out, "FAIL  model") || strings.Contains(out, "FAIL  server") || strings.Contains(out, "FAIL  options") {
				t.Errorf("exit %d: a FAIL about the model or server:\n%s", code, out)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks\n%s\n%s", w, out)
				}
			}
		})
	}
}

// TestDoctorAgreesWithRun: doctor refuses --num-ctx 512 --num-predict 16
// as run does, rather than saying all is well.
func TestDoctorAgreesWithRun(t *testing.T) {
	srv := wiretest.NewOllama(t)
	code, out, _ := runCLI(t, "doctor", "--model", "ollama:tiny", "--base-url", srv.URL, "--out", t.TempDir(), "--num-ctx", "512", "--num-predict", "16")
	want := "--num-ctx 512, --num-predict 16: num_ctx 512 minus num_predict 16 leaves 496 tokens for the prompt; at least 512 are needed"
	if code != exitPreflight || !strings.Contains(out, "FAIL  options            "+want) {
		t.Errorf("doctor: exit %d, want %d with %q:\n%s", code, exitPreflight, want, out)
	}
	code, _, errOut := runCLI(t, "run", "--model", "ollama:tiny", "--base-url", srv.URL, "--repo", t.TempDir(), "--task", "x", "--num-ctx", "512", "--num-predict", "16")
	if code != exitUsage || !strings.Contains(errOut, want) {
		t.Errorf("run: exit %d, want %d with %q:\n%s", code, exitUsage, want, errOut)
	}
	code, out, _ = runCLI(t, "doctor", "--model", "ollama:tiny", "--base-url", srv.URL, "--out", t.TempDir(), "--num-ctx", "2048", "--num-predict", "512")
	if strings.Contains(out, "options") {
		t.Errorf("doctor with room for a prompt: exit %d\n%s", code, out)
	}
}
