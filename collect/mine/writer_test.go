package mine

import (
	"bytes"
	"context"
	"testing"

	"github.com/pyharness/pyharness/harness/model/scripted"
)

// A writer's text is taken only when it says something, names every
// failing test and holds no line of the fix; otherwise the evidence
// stands, and why is told. The scripted backend plays the writer.
func TestWriterTextIsCheckedAsTheEvidenceIs(t *testing.T) {
	failing := []string{"tests/test_calc.py::test_clamp_low"}
	fix := fixLines("    if value > low:\n", "    if value < low:\n")
	good := "clamp returns the value below the range\n\n`tests/test_calc.py::test_clamp_low` fails: assert -5 == 0."
	be, err := scripted.NewFromReader(bytes.NewReader(scripted.Drafts(
		good,
		"clamp is wrong: write `if value < low:` in clamp. tests/test_calc.py::test_clamp_low",
		"   ",
		"clamp returns the wrong value for small inputs.",
	)), "writer.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	w := &Writer{Chat: be, Name: "scripted:writer.jsonl"}
	for i, want := range []string{"", writerQuotesFix, writerEmpty, writerLeftOutTest, writerFailed} {
		text, why := w.rewrite(context.Background(), "A test that used to pass fails now: ...", failing, fix)
		if why != want {
			t.Errorf("reply %d: fallback %q, want %q (text %q)", i+1, why, want, text)
		}
		if want == "" && text != good+"\n" {
			t.Errorf("reply %d: text %q, want the writer's", i+1, text)
		}
		if want != "" && text != "" {
			t.Errorf("reply %d: fell back (%s) but gave text %q", i+1, why, text)
		}
	}
}
