package harness

import (
	"strings"
	"testing"

	"github.com/pyharness/pyharness/harness/draft"
	"github.com/pyharness/pyharness/schemas"
)

func hunk(old, new string) draft.Hunk {
	return draft.Hunk{Old: old, New: new, Text: "@@ ... @@"}
}

func TestApplyHunks(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		hunks []draft.Hunk
		want  string
		code  schemas.Code
	}{
		{"one hunk", "a\nb\nc\n", []draft.Hunk{hunk("b\n", "B\n")}, "a\nB\nc\n", ""},
		{"two hunks, one write", appSource, []draft.Hunk{
			hunk("def load(path):\n    return open(path).read()\n", "def load(path):\n    return open(path, encoding=\"utf-8\").read()\n"),
			hunk("def save(path, text):\n    open(path, \"w\").write(text)\n", "def save(path, text):\n    open(path, \"w\", encoding=\"utf-8\").write(text)\n"),
		}, appPatched, ""},
		{"hunks given out of order", "a\nb\nc\nd\n", []draft.Hunk{hunk("d\n", "D\n"), hunk("a\n", "A\n")}, "A\nb\nc\nD\n", ""},
		{"a deletion", "a\nb\nc\n", []draft.Hunk{hunk("a\nb\n", "a\n")}, "a\nc\n", ""},
		{"an insertion by context", "a\nc\n", []draft.Hunk{hunk("a\n", "a\nb\n")}, "a\nb\nc\n", ""},
		{"a blank line kept apart from no line", "a\n\nb\n", []draft.Hunk{hunk("\n", "")}, "a\nb\n", ""},
		{"last line without a newline", "a\nb", []draft.Hunk{hunk("b\n", "B\n")}, "a\nB", ""},
		{"context that does not match", "a\nb\n", []draft.Hunk{hunk("x\n", "y\n")}, "", schemas.CodeFindNotFound},
		{"a match inside a line is no match", "xa\nb\n", []draft.Hunk{hunk("a\n", "A\n")}, "", schemas.CodeFindNotFound},
		{"the second hunk does not match: nothing applies", "a\nb\n", []draft.Hunk{hunk("a\n", "A\n"), hunk("z\n", "Z\n")}, "", schemas.CodeFindNotFound},
		{"context found twice", "a\nb\na\n", []draft.Hunk{hunk("a\n", "A\n")}, "", schemas.CodeFindAmbiguous},
		{"overlapping hunks", "a\nb\nc\n", []draft.Hunk{hunk("a\nb\n", "A\nB\n"), hunk("b\nc\n", "B\nC\n")}, "", schemas.CodeFindAmbiguous},
		{"a hunk with no old lines", "a\n", []draft.Hunk{hunk("", "b\n")}, "", schemas.CodeFindNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, herr := applyHunks(tt.src, "x.py", tt.hunks)
			if tt.code != "" {
				if herr == nil || herr.code != tt.code {
					t.Fatalf("applyHunks = %q, %+v; want code %s", got, herr, tt.code)
				}
				if !strings.Contains(herr.msg, "x.py") {
					t.Errorf("message does not name the file: %s", herr.msg)
				}
				return
			}
			if herr != nil || got != tt.want {
				t.Fatalf("applyHunks = %q, %+v; want %q", got, herr, tt.want)
			}
		})
	}
}

// A unified diff with two hunks is one write; one whose context is not in
// the file is refused find-not-found, and the refusal shows the hunk.
func TestUnifiedDiffThroughTheLoop(t *testing.T) {
	files := map[string]string{"app.py": appSource, "tests/__init__.py": "", "tests/test_ok.py": "import unittest\n\n\nclass T(unittest.TestCase):\n    def test_ok(self):\n        pass\n"}
	twoHunks := "PATCH app.py\n```diff\n@@ ... @@\n def load(path):\n-    return open(path).read()\n+    return open(path, encoding=\"utf-8\").read()\n@@ ... @@\n def save(path, text):\n-    open(path, \"w\").write(text)\n+    open(path, \"w\", encoding=\"utf-8\").write(text)\n```"
	stale := "```diff\n--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,2 @@\n def load(filename):\n-    return open(filename).read()\n+    return open(filename, encoding=\"utf-8\").read()\n```"
	out := runScripted(t, files, Config{}, "READ app.py", stale, twoHunks, runTests, "DONE load and save read and write UTF-8")

	refused := out.turns[1]
	if refused.Outcome.Status != schemas.StatusRefused || refused.Outcome.Code != schemas.CodeFindNotFound {
		t.Fatalf("a diff whose context is not in the file: %+v", refused.Outcome)
	}
	sent := out.turns[2].Sent.Messages[len(out.turns[2].Sent.Messages)-1].Content
	if !strings.Contains(sent, "```diff\n@@ -1,2 +1,2 @@\n def load(filename):") {
		t.Errorf("the refusal does not show the hunk:\n%s", sent)
	}

	applied := out.turns[2]
	if applied.Outcome.Status != schemas.StatusApplied || len(applied.Outcome.FilesChanged) != 1 || applied.Action.Shape != draft.ShapeUnifiedDiff {
		t.Fatalf("two hunks: %+v %+v", applied.Action, applied.Outcome)
	}
	if c := strings.Count(out.res.End.Patch, "encoding=\"utf-8\""); c != 2 {
		t.Errorf("the patch holds %d of the 2 changes:\n%s", c, out.res.End.Patch)
	}
	if out.res.End.StopReason != schemas.StopDone {
		t.Errorf("stop reason %q", out.res.End.StopReason)
	}
}

// "READ either a.py or b.py" names two files that both exist: refused as
// ambiguous, never guessed.
func TestPathCandidatesAmbiguous(t *testing.T) {
	// A suite that runs a test: an ad hoc run whose suite runs none stops
	// before the model.
	files := map[string]string{"a.py": "x = 1\n", "b.py": "y = 2\n", "tests/__init__.py": "",
		"tests/test_a.py": "import unittest\n\n\nclass T(unittest.TestCase):\n    def test_x(self):\n        pass\n"}
	out := runScripted(t, files, Config{}, "READ either a.py or b.py", "READ the module b.py")
	if o := out.turns[0].Outcome; o.Code != schemas.CodeAmbiguousDraft || !strings.Contains(o.Message, "a.py and b.py") {
		t.Errorf("two existing files: %+v", o)
	}
	if a, o := out.turns[1].Action, out.turns[1].Outcome; a.Path != "b.py" || o.Status != schemas.StatusApplied {
		t.Errorf("one existing file among the words: %+v %+v", a, o)
	}
}

// FuzzApplyHunks applies arbitrary hunks to arbitrary files. An applied
// diff must hold each hunk's new lines, and lose only what its hunks'
// old lines held; a refused one must say which hunk.
func FuzzApplyHunks(f *testing.F) {
	f.Add("a\nb\nc\n", "b\n", "B\n", "", "")
	f.Add(appSource, "def load(path):\n    return open(path).read()\n", "def load(path):\n    pass\n", "def save(path, text):\n", "def save(p, t):\n")
	f.Add("a\nb", "b\n", "", "a\n", "A\n")
	f.Add("x\nx\n", "x\n", "y\n", "", "")
	f.Fuzz(func(t *testing.T, src, old1, new1, old2, new2 string) {
		hunks := []draft.Hunk{{Old: old1, New: new1, Text: "@@"}}
		if old2 != "" || new2 != "" {
			hunks = append(hunks, draft.Hunk{Old: old2, New: new2, Text: "@@"})
		}
		got, herr := applyHunks(src, "f.py", hunks)
		if herr != nil {
			if herr.code != schemas.CodeFindNotFound && herr.code != schemas.CodeFindAmbiguous {
				t.Fatalf("code %q", herr.code)
			}
			if !strings.Contains(herr.msg, "f.py") {
				t.Fatalf("message names no file: %s", herr.msg)
			}
			return
		}
		removed, added := 0, 0
		for _, h := range hunks {
			if h.Old == "" {
				t.Fatalf("a hunk with no old lines applied")
			}
			removed += len(h.Old)
			added += len(h.New)
		}
		// A file whose last line lacks its newline keeps it lacking, which
		// the byte count cannot follow; others must balance exactly.
		if want := len(src) - removed + added; (src == "" || strings.HasSuffix(src, "\n")) && len(got) != want {
			t.Fatalf("applied %d hunks to %d bytes: got %d bytes, want %d", len(hunks), len(src), len(got), want)
		}
		for _, h := range hunks {
			if !strings.Contains(got+"\n", h.New) { // a missing final newline stays missing
				t.Fatalf("result %q lacks a hunk's new lines %q", got, h.New)
			}
		}
	})
}
