package transcript

import (
	"strings"
	"testing"

	"github.com/pyharness/pyharness/schemas"
)

// TestModelLineThink: show says a run asked its model to think, and says
// nothing of it for a run that did not.
func TestModelLineThink(t *testing.T) {
	m := schemas.Model{Backend: "ollama", Name: "qwen3:8b", Options: schemas.Options{Seed: 1, NumCtx: 8192, NumPredict: 1024}}
	if got := modelLine(m); strings.Contains(got, "think") {
		t.Errorf("ModelLine without think = %q", got)
	}
	m.Options.Think = true
	if got, want := modelLine(m), "num_ctx 8192, num_predict 1024, think"; !strings.Contains(got, want) {
		t.Errorf("ModelLine with think = %q, want it to contain %q", got, want)
	}
}
