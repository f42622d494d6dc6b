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

// A plan, an example of the protocol, a question and a waiting reply are
// refused with their own codes through the loop, and nothing is run or
// written, though each holds words an action can be read from.
func TestNeverActedOnThroughTheLoop(t *testing.T) {
	drafts := []struct {
		draft string
		code  schemas.Code
	}{
		{"Here's the plan:\n1. Add a strip() call to greet.\n2. Add a test.\n3. Run the test suite to verify the change.\n\nI'll start with step 1.", schemas.CodePlan},
		{"For example, a write would look like `[write_file(path=\"greet.py\", content=\"…\")]`. Tell me when to begin.", schemas.CodeProtocolExample},
		{"Which file should I change, greet.py or tests/test_greet.py?", schemas.CodeQuestion},
		{"I found the bug. Do you want me to PATCH greet.py now?", schemas.CodeWaiting},
	}
	var sent []string
	for _, d := range drafts {
		sent = append(sent, d.draft)
	}
	out := runScripted(t, fixture, Config{InPlace: true}, sent...)
	if len(out.turns) < len(drafts) {
		t.Fatalf("the run stopped after %d turns", len(out.turns))
	}
	for i, d := range drafts {
		o := out.turns[i].Outcome
		if o.Status != schemas.StatusRefused || o.Code != d.code || len(o.FilesChanged) != 0 {
			t.Errorf("draft %d: outcome %+v; want refused %s with nothing changed", i+1, o, d.code)
		}
	}
	intact(t, out.repo, fixture)
}
