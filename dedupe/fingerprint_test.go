package dedupe

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/schemas"
)

// TestFingerprinterMatchesTheKeyTexts plays the turns of a run whose
// prompts grow by the draft and the harness's answer, with a text repeated
// and a tool call among them, through one Fingerprinter and checks each
// fingerprint against the one of AppendKeyText and AppendNearText of the
// same pair, which normalise every text anew.
func TestFingerprinterMatchesTheKeyTexts(t *testing.T) {
	prompt := []schemas.Message{{Role: "system", Content: "You edit code.\n  Reply with one action.  "}, {Role: "user", Content: "Fix add() in calc.py at 2026-01-02T03:04:05Z"}}
	drafts := []schemas.Reply{
		{Content: "READ calc.py"},
		{Content: "WRITE calc.py\n```python\ndef add(a, b):\n    return a + b\n```"},
		{Content: "READ calc.py"}, // the same text again
		{ToolCalls: []schemas.ToolCall{{Name: "run", Arguments: map[string]any{"cmd": "pytest -q"}}}},
		// Texts longer than the hasher gathers, and between half and all
		// of it.
		{Content: "WRITE big.py\n```python\n" + strings.Repeat("x = 1  # filler\n", 400) + "```"},
		{Content: "WRITE mid.py\n```python\n" + strings.Repeat("y = 2\n", 500) + "```"},
		{Content: "DONE"},
	}
	var f Fingerprinter
	for i, d := range drafts {
		got := f.Make(prompt, d)
		var want Fingerprint
		want.reset(AppendKeyText(nil, prompt, d), AppendNearText(nil, prompt, d))
		if !bytes.Equal(got.KeyText, want.KeyText) || got.Key != want.Key || got.Bands != want.Bands || len(got.Shingles) != len(want.Shingles) {
			t.Fatalf("turn %d: the fingerprints differ", i+1)
		}
		// The fingerprint dedupe stores: the key text hashed as it goes,
		// its SHA-256 in place of the text.
		c := f.makeConfirmed(prompt, d)
		if !bytes.Equal(c.KeyText, confirmDigest(want.KeyText)) || c.Key != want.Key || c.Bands != want.Bands || !slices.Equal(c.Shingles, want.Shingles) {
			t.Fatalf("turn %d: the confirmed fingerprint differs", i+1)
		}
		prompt = append(prompt, schemas.Message{Role: "assistant", Content: d.Content, ToolCalls: d.ToolCalls},
			schemas.Message{Role: "user", Content: "Result of step " + string(rune('1'+i)) + ": ok at /tmp/pyharness-123/ws"})
	}
}
