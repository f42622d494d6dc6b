package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/internal/testkit/wiretest"
	"github.com/pyharness/pyharness/schemas/trace"
)

// TestRunThink: --think is sent with every request, run_start says it was
// asked, and each turn keeps the thinking apart from the draft. Asked of a
// model without the thinking capability, the pre-flight stops the run
// before any request, where the server would refuse every one.
func TestRunThink(t *testing.T) {
	srv := wiretest.NewOllama(t)
	srv.Thinking = true
	srv.Push(
		wiretest.Answer(wiretest.Reply{Thinking: "The task says check greet; read it first.", Content: "READ greet.py"}),
		wiretest.Answer(wiretest.Reply{Thinking: "It looks right; run the tests.", Content: "RUN tests"}),
		wiretest.Text("DONE nothing to change: `return \"Hello, \" + name` is right"))
	repo, out := t.TempDir(), filepath.Join(t.TempDir(), "out")
	writeFiles(t, repo, map[string]string{"greet.py": "def greet(name):\n    return \"Hello, \" + name\n", "test_greet.py": greetTest})
	code, stdout, stderr := runCLI(t, "run", "--repo", repo, "--task", "Check greet", "--model", "ollama:tiny", "--base-url", srv.URL,
		"--num-ctx", "4096", "--think", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	chats := srv.ChatRequests()
	if len(chats) != 3 {
		t.Fatalf("%d chat requests, want 3", len(chats))
	}
	for i, r := range chats {
		if v, ok := r.Lookup("think"); !ok || v != true {
			t.Errorf("request %d: think = %v (sent: %v), want true", i+1, v, ok)
		}
	}
	var runs int
	for run, err := range trace.Runs(t.Context(), out) {
		if err != nil {
			t.Fatal(err)
		}
		runs++
		if !run.Start.Model.Options.Think {
			t.Errorf("run_start options = %+v, want think", run.Start.Model.Options)
		}
		if len(run.Turns) < 2 || run.Turns[0].Reply.Thinking != "The task says check greet; read it first." || run.Turns[0].Reply.Content != "READ greet.py" {
			t.Errorf("first turn's reply = %+v, want the thinking apart from the draft", run.Turns[0].Reply)
		}
	}
	if runs != 1 {
		t.Errorf("%d runs recorded, want 1", runs)
	}

	plain := wiretest.NewOllama(t)
	out = filepath.Join(t.TempDir(), "out")
	code, _, stderr = runCLI(t, "run", "--repo", repo, "--task", "Check greet", "--model", "ollama:tiny", "--base-url", plain.URL,
		"--num-ctx", "512", "--num-predict", "0", "--think", "--out", out)
	if code != exitPreflight || !strings.Contains(stderr, "FAIL  think") || !strings.Contains(stderr, "tiny has no thinking capability") {
		t.Errorf("--think with a model that cannot think: exit %d, want %d with the think check failed\n%s", code, exitPreflight, stderr)
	}
	if n := len(plain.ChatRequests()); n != 0 {
		t.Errorf("%d chat requests sent after the pre-flight failed", n)
	}
	if _, err := os.Stat(filepath.Join(out, "runs")); err == nil {
		t.Error("a trace was written: the run went ahead")
	}
}

// TestDoctorThink: doctor says whether --think can work with the model.
func TestDoctorThink(t *testing.T) {
	srv := wiretest.NewOllama(t)
	srv.Thinking = true
	code, out, _ := runCLI(t, "doctor", "--model", "ollama:tiny", "--base-url", srv.URL, "--num-ctx", "4096", "--think", "--out", t.TempDir())
	if code != 0 || !strings.Contains(out, "ok    think") {
		t.Errorf("a thinking model: exit %d\n%s", code, out)
	}
}
