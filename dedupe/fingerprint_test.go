package dedupe

import (
	"bytes"
	"context"
	"crypto/sha256"
	"slices"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/dedupe/dedupetest"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

// TestFingerprinterMatchesTheKeyTexts plays the turns of a run whose
// prompts grow by the draft and the harness's answer, with a text repeated
// and a tool call among them, through one Fingerprinter and checks each
// fingerprint against the one of appendKeyText and AppendNearText of the
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
		want.reset(appendKeyText(nil, prompt, d), AppendNearText(nil, prompt, d))
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
	c, err := trace.OpenCorpus(context.Background(), dir, nil)
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

// TestConfirmedKeyGoesOnOnlyFromTheSamePrompt gives one Fingerprinter
// prompts that start with the last one's messages and prompts that only
// look as if they did, and holds every confirmed key and digest to those of
// appendKeyText made anew: the hashes go on from the last prompt only when
// its messages are there, unchanged, at the head of the next.
func TestConfirmedKeyGoesOnOnlyFromTheSamePrompt(t *testing.T) {
	call := []schemas.ToolCall{{Name: "run", Arguments: map[string]any{"cmd": "pytest -q"}}}
	sys, task := schemas.Message{Role: "system", Content: "You edit code."}, schemas.Message{Role: "user", Content: "Fix add()."}
	read := schemas.Message{Role: "assistant", Content: "READ calc.py"}
	result := schemas.Message{Role: "user", Content: "calc.py:\ndef add(a, b): pass"}
	withCall := schemas.Message{Role: "assistant", ToolCalls: call}
	reused := []schemas.Message{sys, task, read}
	steps := []struct {
		name   string
		prompt []schemas.Message
	}{
		{"the first prompt", []schemas.Message{sys, task}},
		{"the same prompt again", []schemas.Message{sys, task}},
		{"grown by two messages", []schemas.Message{sys, task, read, result}},
		{"grown by a tool call", []schemas.Message{sys, task, read, result, withCall}},
		{"the tool call equal but not shared", []schemas.Message{sys, task, read, result,
			{Role: "assistant", ToolCalls: []schemas.ToolCall{{Name: "run", Arguments: map[string]any{"cmd": "pytest -q"}}}}}},
		{"another tool call in the same place", []schemas.Message{sys, task, read, result,
			{Role: "assistant", ToolCalls: []schemas.ToolCall{{Name: "run", Arguments: map[string]any{"cmd": "pytest -x"}}}}}},
		{"a message of the head changed", []schemas.Message{sys, {Role: "user", Content: "Fix sub()."}, read, result, withCall}},
		{"a role of the head changed", []schemas.Message{sys, {Role: "tool", Content: "Fix sub()."}, read, result, withCall}},
		{"shorter than the last", []schemas.Message{sys, task, read}},
		{"replaced: another system prompt", []schemas.Message{{Role: "system", Content: "You review code."}, task, read}},
		{"no messages", nil},
		{"after none", []schemas.Message{sys}},
		{"a slice the caller reuses", reused},
		{"the reused slice changed in place", reused}, // changed below
	}
	drafts := []schemas.Reply{{Content: "READ calc.py"}, {ToolCalls: call}}
	var f Fingerprinter
	for _, s := range steps {
		if s.name == "the reused slice changed in place" {
			reused[2].Content = "READ other.py"
		}
		for _, d := range drafts {
			text := appendKeyText(nil, s.prompt, d)
			confirm := sha256.Sum256(appendConfirmText(nil, s.prompt, d, appendNormalizedString))
			if !bytes.Equal(confirmDigest(text), confirm[:]) {
				t.Fatalf("%s: the digest made from the key text is not the confirm text's", s.name)
			}
			key, digest := f.confirmedKey(nil, s.prompt, d)
			if key != Key(text) || !bytes.Equal(digest, confirm[:]) {
				t.Fatalf("%s: the confirmed key differs from the key text's", s.name)
			}
		}
	}
}
