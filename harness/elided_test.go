package harness

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/harness/draft"
	"github.com/pyharness/pyharness/schemas"
)

// greetTwo is greet.py with a second function, which an elided write of
// greet leaves out.
const greetTwo = "def greet(name):\n    return \"Hello, \" + name\n\n\ndef farewell(name):\n    return \"Goodbye, \" + name\n"

// A WRITE, a fenced whole file or a PATCH whose new text says the rest is
// unchanged: merged from the file where that can be done without guessing
// (recorded as a repair, shown in canonical form), refused with the file
// untouched where it cannot.
func TestElidedWrites(t *testing.T) {
	merged := strings.Replace(greetTwo, "+ name\n\n", "+ name.strip()\n\n", 1)
	cases := []struct {
		name, draft string
		// code is the refusal; "" when the write is merged and applied.
		code schemas.Code
	}{
		{"write-rest-unchanged", "WRITE greet.py\n```python\ndef greet(name):\n    return \"Hello, \" + name.strip()\n\n# ... rest of the file unchanged ...\n```", ""},
		{"fenced-whole-file-existing-code", "Here is the updated `greet.py`:\n```python\ndef greet(name):\n    return \"Hello, \" + name.strip()\n\n\n// ... existing code ...\n```", ""},
		{"patch-replace-elides", "PATCH greet.py\nFIND:\n```\ndef greet(name):\n    return \"Hello, \" + name\n\n\ndef farewell(name):\n```\nREPLACE:\n```\ndef greet(name):\n    return \"Hello, \" + name.strip()\n# ...\ndef farewell(name):\n```", ""},
		{"write-cannot-be-placed", "WRITE greet.py\n```python\ndef greet(name):\n    name = name.strip()\n    # ... existing code ...\n```", schemas.CodeElidedWrite},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			files := map[string]string{}
			for k, v := range fixture {
				files[k] = v
			}
			files["greet.py"] = greetTwo
			out := runScripted(t, files, Config{InPlace: true}, readGreet, tc.draft)
			if len(out.turns) < 2 {
				t.Fatalf("the run stopped after %d turns", len(out.turns))
			}
			turn := out.turns[1]
			b, err := os.ReadFile(filepath.Join(out.repo, "greet.py"))
			if err != nil {
				t.Fatal(err)
			}
			if tc.code != "" {
				if turn.Outcome.Code != tc.code || turn.Outcome.Status != schemas.StatusRefused {
					t.Fatalf("outcome %+v; want refused %s", turn.Outcome, tc.code)
				}
				if string(b) != greetTwo {
					t.Errorf("greet.py after a refused elided write = %q; want it untouched", b)
				}
				return
			}
			if turn.Outcome.Status != schemas.StatusApplied {
				t.Fatalf("outcome %+v; want applied", turn.Outcome)
			}
			if string(b) != merged {
				t.Errorf("greet.py = %q; want %q", b, merged)
			}
			if !slices.Contains(turn.Action.Repairs, draft.RepairMergeElided) {
				t.Errorf("repairs %v; want %s", turn.Action.Repairs, draft.RepairMergeElided)
			}
			if len(out.turns) > 2 {
				msgs := out.turns[2].Sent.Messages
				if sent := msgs[len(msgs)-1].Content; !strings.Contains(sent, "Read as: ") {
					t.Errorf("the merge was not shown in canonical form: %q", sent)
				}
			}
		})
	}
}
