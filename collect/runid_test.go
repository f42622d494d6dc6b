package collect

import (
	"testing"

	"github.com/pyharness/pyharness/schemas"
)

// TestRunIDThink: a run that asked the model to think is another run, and
// asking nothing leaves the ids of earlier plans as they were.
func TestRunIDThink(t *testing.T) {
	m := schemas.Model{Backend: "ollama", Name: "qwen3:8b", Options: schemas.Options{Seed: 1, NumCtx: 8192, NumPredict: 1024}}
	plain := runID("bench", "fix-offbyone", 1, m, "v1")
	think := m
	think.Options.Think = true
	if got := runID("bench", "fix-offbyone", 1, think, "v1"); got == plain {
		t.Errorf("RunID with think = %s, the same as without", got)
	}
	// The id this plan had before think existed.
	if want := "bench-fix-offbyone-p1-08b79d62dd68"; plain != want {
		t.Errorf("RunID without think = %s, want %s as before", plain, want)
	}
}

func TestVariantIsDeterministicAndMixes(t *testing.T) {
	variants := []string{"chatty", "clean", "other-failure", "plausible-wrong"}
	seen := map[string]bool{}
	for p := 1; p <= 20; p++ {
		v := variant("wordcount", p, variants)
		if v != variant("wordcount", p, variants) {
			t.Fatal("not deterministic")
		}
		seen[v] = true
	}
	if len(seen) < 3 {
		t.Errorf("20 passes used only %v", seen)
	}
}
