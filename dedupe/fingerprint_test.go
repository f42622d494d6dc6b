package dedupe

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/dedupe/dedupetest"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/trace"
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
		c := f.MakeConfirmed(prompt, d)
		if !bytes.Equal(c.KeyText, confirmDigest(want.KeyText)) || c.Key != want.Key || c.Bands != want.Bands || !slices.Equal(c.Shingles, want.Shingles) {
			t.Fatalf("turn %d: the confirmed fingerprint differs", i+1)
		}
		prompt = append(prompt, schemas.Message{Role: "assistant", Content: d.Content, ToolCalls: d.ToolCalls},
			schemas.Message{Role: "user", Content: "Result of step " + string(rune('1'+i)) + ": ok at /tmp/pyharness-123/ws"})
	}
}

// TestEncodedRunPrintsAreTheBuiltOnes holds the entry classify stores
// (encodeRunPrints, fingerprinting turn by turn into the bytes with
// Fingerprinters kept from run to run) to appendRunPrints of the runs'
// fingerprints made one by one, for every run of the fixture, twice over
// so that every run meets a Fingerprinter that served another.
func TestEncodedRunPrintsAreTheBuiltOnes(t *testing.T) {
	dir := t.TempDir()
	long := "WRITE big.py\n```python\n" + strings.Repeat("total = add(total, x)  # at 0.002s\n", 300) + "```"
	runs := []dedupetest.Run{
		{ID: "bench-a-p1-000000000001", Case: "a", Pass: 1, Verdict: "worked", Turns: []dedupetest.Turn{
			{Draft: "READ f.py", Verb: "READ", Result: "f.py (lines 1-2 of 2):\n```\ndef f(xs):\n    pass\n```"},
			{Draft: long, Verb: "WRITE", Path: "big.py", Result: "Wrote big.py at 2026-01-01T10:00:00Z."},
			{Draft: "", NoModel: true, Verb: "RUN", Result: "Ran 0 tests"},
			{Draft: "RUN tests", Verb: "RUN", Result: "Ran 3 tests in 0.004s\n\nOK"},
			{Draft: "DONE", Verb: "DONE", Status: schemas.StatusStopped},
		}},
		{ID: "bench-b-p1-000000000002", Case: "b", Pass: 1, Verdict: "failed", Turns: []dedupetest.Turn{
			{Calls: []schemas.ToolCall{{Name: "read", Arguments: map[string]any{"path": "g.py"}}}, Verb: "READ", Result: "g.py is empty"},
			{Draft: "I will look first.", Verb: ""},
		}},
	}
	for _, r := range runs {
		if _, err := dedupetest.Write(dir, r); err != nil {
			t.Fatal(err)
		}
	}
	c, err := trace.OpenCorpus(context.Background(), dir, GroupOf)
	if err != nil {
		t.Fatal(err)
	}
	pairs := 0
	for range 2 {
		for i := range c.Len() {
			r, err := c.Read(i)
			if err != nil {
				t.Fatal(err)
			}
			built := makeRunPrints(r)
			for _, tp := range built.Turns {
				if tp.What == turnPair {
					pairs++
				}
			}
			if got, want := encodeRunPrints(r), appendRunPrints(nil, built); !bytes.Equal(got, want) {
				t.Fatalf("run %s: the entry written as it is made differs from the one of the built fingerprints", c.File(i).RunID)
			}
		}
	}
	if pairs == 0 {
		t.Fatal("the fixture gave no pairs")
	}
}
