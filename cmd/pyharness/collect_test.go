package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/datasets"
	"github.com/pyharness/pyharness/internal/testkit/wiretest"
)

// Runs are spread over several Ollama hosts.
func TestCollectSpreadsRunsOverOllamaHosts(t *testing.T) {
	cases, err := datasets.Cases()
	if err != nil {
		t.Fatal(err)
	}
	drafts := map[string][]string{}
	for _, c := range cases {
		if c.ID == "initials" || c.ID == "fix-offbyone" {
			if drafts[c.ID], err = c.Drafts("clean"); err != nil {
				t.Fatal(err)
			}
		}
	}
	a, b := wiretest.NewOllama(t), wiretest.NewOllama(t)
	a.Trained, b.Trained = wiretest.Trained4096, wiretest.Trained4096
	for _, d := range drafts["initials"] { // tier 1: first in the plan, first host
		a.Push(wiretest.Text(d))
	}
	for _, d := range drafts["fix-offbyone"] {
		b.Push(wiretest.Text(d))
	}
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := runCLI(t, "collect", "--case", "initials", "--case", "fix-offbyone", "--passes", "1",
		"--model", "ollama:tiny", "--ollama-host", a.URL, "--ollama-host", b.URL, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "2 run: 2 worked") {
		t.Errorf("summary:\n%s", stdout)
	}
	if len(a.ChatRequests()) != len(drafts["initials"]) || len(b.ChatRequests()) != len(drafts["fix-offbyone"]) {
		t.Errorf("host A got %d chats, host B %d; want %d and %d", len(a.ChatRequests()), len(b.ChatRequests()), len(drafts["initials"]), len(drafts["fix-offbyone"]))
	}
}
