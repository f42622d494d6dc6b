package draft_test

import (
	"testing"

	"github.com/pyharness/pyharness/harness/draft"
)

// CanonicalText writes every action the protocol can state so that the
// parser reads it back as the canonical shape and the same action, and
// refuses the two it cannot state.
func TestCanonicalTextRoundTrip(t *testing.T) {
	tests := []struct {
		name  string
		draft string
		want  string // "" when there is no canonical form
	}{
		{"read", "**Action:** READ a.py", "READ a.py"},
		{"read window", "read a.py lines 3 to 9", "READ a.py:3-9"},
		{"write named in a fence comment", "```python\n# d.py\ndef d():\n    return 2\n```", "WRITE d.py\n```python\ndef d():\n    return 2\n```"},
		{"write with a fence inside", "WRITE README.md\n````\n# Use\n\n```sh\nls\n```\n````", "WRITE README.md\n````\n# Use\n\n```sh\nls\n```\n````"},
		{"patch", "PATCH a.py\nFIND:\n```python\nx = 1\n```\nREPLACE:\n```python\nx = 2\n```", "PATCH a.py\nFIND:\n```python\nx = 1\n```\nREPLACE:\n```python\nx = 2\n```"},
		{"patch that deletes", "PATCH a.py\nFIND:\n```python\nx = 1\n```\nREPLACE:\n```python\n```", "PATCH a.py\nFIND:\n```python\nx = 1\n```\nREPLACE:\n```python\n```"},
		{"one-hunk diff", "PATCH d.py\n```diff\n--- a/d.py\n+++ b/d.py\n@@ -1,2 +1,2 @@\n def d():\n-    return 1\n+    return 2\n```", "PATCH d.py\nFIND:\n```python\ndef d():\n    return 1\n```\nREPLACE:\n```python\ndef d():\n    return 2\n```"},
		{"two-hunk diff", "PATCH d.py\n```diff\n--- a/d.py\n+++ b/d.py\n@@ -1,2 +1,2 @@\n def d():\n-    return 1\n+    return 2\n@@ -10,2 +10,2 @@\n def e():\n-    return 3\n+    return 4\n```", ""},
		{"run with words", "RUN pytest -q", "RUN tests"},
		{"skill", "SKILL locate parse_args", "SKILL locate parse_args"},
		{"ask", "ASK Should the flag default to off?", "ASK Should the flag default to off?"},
		{"done after chatter", "All set.\nDONE count_words added; tests pass", "DONE count_words added; tests pass"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := draft.Parse(tt.draft, nil)
			if err != nil {
				t.Fatalf("the draft does not parse: %v", err)
			}
			got, ok := draft.CanonicalText(a)
			if tt.want == "" {
				if ok {
					t.Fatalf("a canonical form for an action the protocol cannot state: %q", got)
				}
				return
			}
			if !ok || got != tt.want {
				t.Fatalf("got %q (%v), want %q", got, ok, tt.want)
			}
			b, err := draft.Parse(got, nil)
			if err != nil || b.Shape != draft.ShapeCanonical {
				t.Fatalf("the canonical form reads back as %s (%v)", b.Shape, err)
			}
			again, _ := draft.CanonicalText(b)
			if again != got {
				t.Errorf("the canonical form is not stable: %q, then %q", got, again)
			}
		})
	}
}
