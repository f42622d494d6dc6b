package bench

import (
	"testing"

	"github.com/pyharness/pyharness/schemas"
)

// TestRunIDThink: a run that asked the model to think is another run, and
// asking nothing leaves the ids of earlier plans as they were.
func TestRunIDThink(t *testing.T) {
	m := schemas.Model{Backend: "ollama", Name: "qwen3:8b", Options: schemas.Options{Seed: 1, NumCtx: 8192, NumPredict: 1024}}
	plain := RunID("bench", "fix-offbyone", 1, m, "v1")
	think := m
	think.Options.Think = true
	if got := RunID("bench", "fix-offbyone", 1, think, "v1"); got == plain {
		t.Errorf("RunID with think = %s, the same as without", got)
	}
	// The id this plan had before think existed.
	if want := "bench-fix-offbyone-p1-08b79d62dd68"; plain != want {
		t.Errorf("RunID without think = %s, want %s as before", plain, want)
	}
}
