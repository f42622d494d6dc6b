package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/datasets"
	"github.com/pyharness/pyharness/internal/testkit/wiretest"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

// run makes the pre-flight bench and collect make: a server that is down
// or lacks the model stops it before the baseline suite, with the fix, and
// no run is recorded.
func TestRunPreflightStopsBeforeTheBaseline(t *testing.T) {
	srv := wiretest.NewOllama(t)
	srv.Trained = wiretest.Trained4096
	tests := []struct {
		name  string
		url   string
		model string
		want  []string
	}{
		{"no server", "http://127.0.0.1:1", "ollama:tiny", []string{"FAIL  server", "ollama serve", "connection refused"}},
		{"model not pulled", srv.URL, "ollama:llama3.1:8b", []string{"FAIL  model", "ollama pull llama3.1:8b"}},
		{"num_predict fills the window", srv.URL, "ollama:tiny", []string{"FAIL  context", "num_predict 4000 leaves 96 tokens for the prompt", "lower --num-predict"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			repo, out := t.TempDir(), filepath.Join(t.TempDir(), "out")
			writeFiles(t, repo, map[string]string{"greet.py": "def greet(name):\n    return \"Hello, \" + name\n", "test_greet.py": greetTest})
			args := []string{"run", "--repo", repo, "--task", "Add initials", "--model", tt.model, "--base-url", tt.url, "--out", out}
			if strings.Contains(tt.name, "num_predict") {
				args = append(args, "--num-predict", "4000")
			}
			code, stdout, stderr := runCLI(t, args...)
			if code != exitPreflight {
				t.Errorf("exit %d, want the pre-flight's %d", code, exitPreflight)
			}
			for _, w := range append(tt.want, "nothing was run") {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if strings.Contains(stdout, "verdict:") {
				t.Errorf("a run happened:\n%s", stdout)
			}
			if _, err := os.Stat(filepath.Join(out, "runs")); err == nil {
				t.Error("a trace was written: the run went ahead")
			}
		})
	}
	if n := len(srv.ChatRequests()); n != 0 {
		t.Errorf("the server got %d chat requests from runs that failed their pre-flight", n)
	}
}

// The run summary and run_start say the context in force: requested
// 8192, trained 4096, effective 4096, with the warning.
func TestRunSaysTheContextInForce(t *testing.T) {
	srv := wiretest.NewOllama(t)
	srv.Trained = wiretest.Trained4096
	srv.Push(wiretest.Text("READ greet.py"), wiretest.Text("RUN tests"), wiretest.Text("DONE nothing to change: `return \"Hello, \" + name` is right"))
	repo, out := t.TempDir(), filepath.Join(t.TempDir(), "out")
	writeFiles(t, repo, map[string]string{"greet.py": "def greet(name):\n    return \"Hello, \" + name\n", "test_greet.py": greetTest})
	code, stdout, stderr := runCLI(t, "run", "--repo", repo, "--task", "Check greet", "--model", "ollama:tiny", "--base-url", srv.URL, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, w := range []string{
		"context:  requested 8192, trained 4096, in force 4096, effective 4096 (trained)",
		"warning:  --num-ctx 8192 is above the model's trained context 4096",
	} {
		if !strings.Contains(stdout, w) {
			t.Errorf("summary lacks %q:\n%s", w, stdout)
		}
	}
	var start *schemas.RunStart
	for run, err := range trace.Runs(t.Context(), out) {
		if err != nil {
			t.Fatal(err)
		}
		start = run.Start
	}
	want := schemas.ContextSizes{Requested: 8192, Sent: true, Trained: 4096, InForce: 4096, Effective: 4096, Source: schemas.ContextFromTrained}
	if start == nil || start.Model.Context == nil || *start.Model.Context != want {
		t.Errorf("run_start context %+v, want %+v", start, want)
	}
}

// bench's header says the context and its warning, and its tables count
// the turns the context cut or refused.
func TestBenchSaysTheContextInForce(t *testing.T) {
	cases, err := datasets.Cases()
	if err != nil {
		t.Fatal(err)
	}
	srv := wiretest.NewOllama(t)
	srv.Trained = wiretest.Trained4096
	for _, c := range cases {
		if c.ID == "initials" {
			drafts, err := c.Drafts("clean")
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range drafts {
				srv.Push(wiretest.Text(d))
			}
		}
	}
	code, stdout, stderr := runCLI(t, "bench", "--model", "ollama:tiny", "--base-url", srv.URL, "--case", "initials", "--repeat", "1",
		"--out", filepath.Join(t.TempDir(), "out"))
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, w := range []string{
		"Model: ollama tiny\nContext: requested 8192, trained 4096, in force 4096, effective 4096 (trained)\n",
		"warning: --num-ctx 8192 is above the model's trained context 4096",
		"Context limits: 0 replies cut by a full context (in 0 runs), 0 prompts the server cut (in 0 runs), 0 prompts it refused as too long (in 0 runs)",
	} {
		if !strings.Contains(stdout, w) {
			t.Errorf("bench output lacks %q:\n%s", w, stdout)
		}
	}
	if !strings.Contains(stderr, "warn  context            requested 8192 (sent), trained 4096, in force 4096, effective 4096") {
		t.Errorf("the pre-flight does not say the context:\n%s", stderr)
	}
}
