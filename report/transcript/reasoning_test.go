package transcript

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/schemas"
)

// A turn's reasoning is shown apart from its draft, with where it was
// found, its size and whether the reply was cut inside it, in the text
// transcript and on the HTML page alike.
func TestReasoningShown(t *testing.T) {
	f, err := Find(t.Context(), fixtures, "dogfood-cli-flag")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Load(f.File, f.Earlier)
	if err != nil {
		t.Fatal(err)
	}
	r.Turns[0].Reasoning = &schemas.Reasoning{Text: "The flag is parsed in cli.py; READ it first.", Tokens: 12, Source: schemas.ReasoningThinkTag, Cut: true}
	var text, page bytes.Buffer
	if err := WriteText(context.Background(), &text, r, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(context.Background(), &page, r, HTMLOptions{Title: "t"}); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"text": text.String(), "html": page.String()} {
		for _, want := range []string{"reasoning", "think-tag, about 12 tokens, cut: no answer", "The flag is parsed in cli.py"} {
			if !strings.Contains(out, want) {
				t.Errorf("the %s transcript does not show %q", name, want)
			}
		}
	}
}
