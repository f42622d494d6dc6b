package draft

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/schemas"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// f is a code fence, spelled out because Go raw strings cannot hold one.
const f = "```"

const pyBody = "def count_words(text):\n    return {w: text.split().count(w) for w in text.split()}\n"

type parseCase struct {
	name  string
	draft string
	calls []schemas.ToolCall
	// What the case is about, checked before the golden comparison so that
	// regenerating goldens cannot quietly accept a wrong parse.
	verb string // "" when the draft must fail
	path string
	err  string       // part of the failure reason
	code schemas.Code // Error.Code of a refused draft
	// shape is a shape code the parse must record (foreign formats).
	shape string
}

var parseCases = []parseCase{
	// Canonical shapes.
	{name: "read-canonical", draft: "READ src/app.py", verb: VerbRead, path: "src/app.py"},
	{name: "read-window", draft: "READ src/app.py:120-220", verb: VerbRead, path: "src/app.py"},
	{name: "read-window-start-only", draft: "READ src/app.py:120", verb: VerbRead, path: "src/app.py"},
	{name: "write-canonical", draft: "WRITE wordcount.py\n" + f + "python\n" + pyBody + f + "\n", verb: VerbWrite, path: "wordcount.py"},
	{name: "patch-canonical", draft: "PATCH src/app.py\nFIND:\n" + f + "python\n    return total\n" + f + "\nREPLACE:\n" + f + "python\n    return total + 1\n" + f + "\n", verb: VerbPatch, path: "src/app.py"},
	{name: "run-canonical", draft: "RUN tests", verb: VerbRun},
	{name: "skill-locate", draft: "SKILL locate parse_args", verb: VerbSkill},
	{name: "skill-outline", draft: "SKILL outline src/app.py", verb: VerbSkill},
	{name: "skill-scaffold-test", draft: "SKILL scaffold-test wordcount", verb: VerbSkill},
	{name: "ask-canonical", draft: "ASK Should the flag default to off?", verb: VerbAsk},
	{name: "done-canonical", draft: "DONE count_words added to wordcount.py; tests pass", verb: VerbDone},

	// Bold labels.
	{name: "bold-action-label", draft: "**Action:** READ x.py", verb: VerbRead, path: "x.py"},
	{name: "bold-verb", draft: "**READ** x.py", verb: VerbRead, path: "x.py"},
	{name: "bold-action-colon-outside", draft: "**Action**: WRITE x.py\n" + f + "python\nprint('hi')\n" + f, verb: VerbWrite, path: "x.py"},
	{name: "plain-action-label", draft: "Action: READ x.py", verb: VerbRead, path: "x.py"},
	{name: "bold-whole-line", draft: "**READ src/app.py**", verb: VerbRead, path: "src/app.py"},

	// List markers, headings, quotes.
	{name: "list-numbered", draft: "1. READ x.py", verb: VerbRead, path: "x.py"},
	{name: "list-dash", draft: "- READ x.py", verb: VerbRead, path: "x.py"},
	{name: "list-star", draft: "* READ x.py", verb: VerbRead, path: "x.py"},
	{name: "list-bold-backtick", draft: "1. **READ** `src/app.py`", verb: VerbRead, path: "src/app.py"},
	{name: "heading", draft: "### READ x.py", verb: VerbRead, path: "x.py"},
	{name: "inline-code-action", draft: "`READ x.py`", verb: VerbRead, path: "x.py"},

	// A reason after the verb.
	{name: "reason-to", draft: "READ x.py to see the loader", verb: VerbRead, path: "x.py"},
	{name: "reason-because", draft: "READ x.py because the loader lives there.", verb: VerbRead, path: "x.py"},
	{name: "reason-after-skill", draft: "SKILL locate parse_args to find where it is defined", verb: VerbSkill},
	{name: "lines-words", draft: "READ src/app.py lines 120-220", verb: VerbRead, path: "src/app.py"},

	// Whole-reply fences.
	{name: "whole-reply-fence", draft: f + "\nREAD x.py\n" + f, verb: VerbRead, path: "x.py"},
	{name: "whole-reply-fence-write", draft: f + "\nWRITE x.py\n" + f + "python\nprint(1)\n" + f + "\n" + f + "\n", verb: VerbWrite, path: "x.py"},
	{name: "whole-reply-fence-bare-inner", draft: f + "\nWRITE x.py\n" + f + "\nprint(1)\n" + f + "\n" + f, verb: VerbWrite, path: "x.py"},
	{name: "fenced-action-with-chatter", draft: "Here is my next step:\n\n" + f + "text\nRUN tests\n" + f + "\n", verb: VerbRun},

	// Lower-case and verb-like forms.
	{name: "lowercase-read", draft: "read x.py", verb: VerbRead, path: "x.py"},
	{name: "titlecase-colon", draft: "Read: x.py", verb: VerbRead, path: "x.py"},
	{name: "verb-alias-word", draft: "read_file src/app.py", verb: VerbRead, path: "src/app.py"},
	{name: "call-read-file", draft: `read_file(path="x.py")`, verb: VerbRead, path: "x.py"},
	{name: "call-read-window", draft: `read_file("src/app.py", start=120, end=220)`, verb: VerbRead, path: "src/app.py"},
	{name: "call-write-file-content", draft: "write_file(\"wordcount.py\", \"\"\"" + pyBody + "\"\"\")", verb: VerbWrite, path: "wordcount.py"},
	{name: "call-write-file-fence", draft: "write_file(\"x.py\", ...)\n" + f + "python\nprint(1)\n" + f, verb: VerbWrite, path: "x.py"},
	{name: "call-write-file-escapes", draft: `write_file(path='x.py', content='import sys\nprint(sys.argv)\n')`, verb: VerbWrite, path: "x.py"},
	{name: "call-patch-file", draft: `patch_file("x.py", find="x = 1", replace="x = 2")`, verb: VerbPatch, path: "x.py"},
	{name: "call-run-tests", draft: "run_tests()", verb: VerbRun},
	{name: "call-done", draft: `done("count_words added; tests pass")`, verb: VerbDone},
	{name: "call-skill", draft: `skill("locate", "parse_args")`, verb: VerbSkill},
	{name: "lowercase-run", draft: "run the tests", verb: VerbRun},

	// Names in brackets; signatures never used.
	{name: "bracket-square-write", draft: "WRITE [wordcount.py]\n" + f + "python\n" + pyBody + f, verb: VerbWrite, path: "wordcount.py"},
	{name: "bracket-angle", draft: "READ <x.py>", verb: VerbRead, path: "x.py"},
	{name: "bracket-backtick", draft: "READ `x.py`", verb: VerbRead, path: "x.py"},
	{name: "bracket-backtick-window", draft: "READ `src/app.py`:120-220", verb: VerbRead, path: "src/app.py"},
	{name: "bracket-quote-patch", draft: "PATCH \"src/x.py\"\nFIND:\n" + f + "\nx = 1\n" + f + "\nREPLACE:\n" + f + "\nx = 2\n" + f, verb: VerbPatch, path: "src/x.py"},
	{name: "bracket-markdown-link", draft: "READ [src/app.py](src/app.py)", verb: VerbRead, path: "src/app.py"},
	{name: "bracket-name-is-part-of-file", draft: "READ pages/[id].py", verb: VerbRead, path: "pages/[id].py"},
	{name: "signature-after-path-ignored", draft: "WRITE wordcount.py: def count_words(text) -> dict\n" + f + "python\n" + pyBody + f, verb: VerbWrite, path: "wordcount.py"},

	// Chatter around the action.
	{name: "chatter-around-read", draft: "Sure! Let me look at the file first.\n\nREAD x.py\n\nThis will show me how the loader works.", verb: VerbRead, path: "x.py"},
	{name: "chatter-around-write", draft: "I'll create the module now.\n\nWRITE wordcount.py\nHere is the file:\n" + f + "python\n" + pyBody + f + "\n\nThis adds count_words.", verb: VerbWrite, path: "wordcount.py"},
	{name: "chatter-sentence-not-action", draft: "Read the file first, then decide.\n\nREAD src/app.py", verb: VerbRead, path: "src/app.py"},
	{name: "think-block", draft: "<think>\nI should READ y.py, or maybe not.\n</think>\nREAD x.py", verb: VerbRead, path: "x.py"},

	// Fences: three or four backticks, tildes, with or without a tag.
	{name: "fence-four-backticks", draft: "WRITE x.py\n````python\n" + pyBody + "````\n", verb: VerbWrite, path: "x.py"},
	{name: "fence-four-py", draft: "WRITE x.py\n````py\nprint(1)\n````", verb: VerbWrite, path: "x.py"},
	{name: "fence-tilde", draft: "WRITE x.py\n~~~python\nprint(1)\n~~~", verb: VerbWrite, path: "x.py"},
	{name: "fence-no-language", draft: "WRITE x.py\n" + f + "\nprint(1)\n" + f, verb: VerbWrite, path: "x.py"},
	{name: "fence-unclosed", draft: "WRITE x.py\n" + f + "python\nprint(1)\n", verb: VerbWrite, path: "x.py"},
	{name: "fence-nested-markdown", draft: "WRITE README.md\n" + f + "markdown\n# wordcount\n\n" + f + "bash\npython -m wordcount file.txt\n" + f + "\n\nCounts words.\n" + f, verb: VerbWrite, path: "README.md"},
	{name: "fence-indented-in-list", draft: "1. WRITE x.py\n   " + f + "python\n   def f():\n       return 1\n   " + f, verb: VerbWrite, path: "x.py"},
	{name: "fence-second-block-ignored", draft: "WRITE wordcount.py\n" + f + "python\n" + pyBody + f + "\n\nAnd a test:\n" + f + "python\nimport unittest\n" + f, verb: VerbWrite, path: "wordcount.py"},
	{name: "unfenced-body", draft: "WRITE x.py\nimport sys\n\nprint(sys.argv)\n", verb: VerbWrite, path: "x.py"},
	{name: "crlf-line-endings", draft: "WRITE x.py\r\n" + f + "python\r\nprint(1)\r\n" + f + "\r\n", verb: VerbWrite, path: "x.py"},

	// FIND:/REPLACE: label variants.
	{name: "patch-titlecase-labels", draft: "PATCH x.py\nFind:\n" + f + "python\nx = 1\n" + f + "\nReplace:\n" + f + "python\nx = 2\n" + f, verb: VerbPatch, path: "x.py"},
	{name: "patch-bold-labels", draft: "PATCH x.py\n**FIND:**\n" + f + "python\nx = 1\n" + f + "\n**REPLACE:**\n" + f + "python\nx = 2\n" + f, verb: VerbPatch, path: "x.py"},
	{name: "patch-search-labels", draft: "PATCH x.py\nSEARCH:\n" + f + "\nx = 1\n" + f + "\nREPLACE:\n" + f + "\nx = 2\n" + f, verb: VerbPatch, path: "x.py"},
	{name: "patch-merge-markers", draft: "PATCH x.py\n" + f + "python\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n" + f, verb: VerbPatch, path: "x.py"},
	{name: "patch-inline-labels", draft: "PATCH x.py\nFIND: `x = 1`\nREPLACE: `x = 2`", verb: VerbPatch, path: "x.py"},
	{name: "patch-empty-replace", draft: "PATCH x.py\nFIND:\n" + f + "\nimport os\n" + f + "\nREPLACE:\n" + f + "\n" + f, verb: VerbPatch, path: "x.py"},
	{name: "patch-two-blocks", draft: "PATCH x.py\nFIND:\n" + f + "\nx = 1\n" + f + "\nREPLACE:\n" + f + "\nx = 2\n" + f + "\nFIND:\n" + f + "\ny = 1\n" + f + "\nREPLACE:\n" + f + "\ny = 2\n" + f, verb: VerbPatch, path: "x.py"},

	// DONE in its shapes.
	{name: "done-alone", draft: "DONE", verb: VerbDone},
	{name: "done-colon", draft: "DONE: count_words added; tests pass", verb: VerbDone},
	{name: "done-bold", draft: "**DONE** count_words added; tests pass", verb: VerbDone},
	{name: "done-last-line", draft: "Task complete. DONE", verb: VerbDone},
	{name: "done-after-text", draft: "All tests pass now; the file already had `return total + 1`.\n\nDONE", verb: VerbDone},
	{name: "done-summary-below", draft: "DONE\n\nAdded count_words to wordcount.py.", verb: VerbDone},
	{name: "done-lowercase", draft: "done.", verb: VerbDone},

	// One action a reply.
	{name: "extra-actions-ignored", draft: "1. READ x.py\n2. READ y.py\n3. RUN tests", verb: VerbRead, path: "x.py"},

	// Paths: recorded as named, cleaned, never resolved.
	{name: "path-backslashes", draft: `READ src\app.py`, verb: VerbRead, path: "src/app.py"},
	{name: "path-dot-slash-period", draft: "READ ./src/app.py.", verb: VerbRead, path: "src/app.py"},
	{name: "path-dotdot-verbatim", draft: "READ ../secrets/.env", verb: VerbRead, path: "../secrets/.env"},
	{name: "path-absolute-dotdot-verbatim", draft: "WRITE /tmp/../etc/cron.d/x\n" + f + "\n* * * * * true\n" + f, verb: VerbWrite, path: "/tmp/../etc/cron.d/x"},

	// Tool calls written as text.
	{name: "json-call-text", draft: `{"name": "read_file", "arguments": {"path": "x.py"}}`, verb: VerbRead, path: "x.py"},
	{name: "json-call-tool-call-tags", draft: "<tool_call>\n{\"name\": \"write_file\", \"arguments\": {\"path\": \"x.py\", \"content\": \"print(1)\"}}\n</tool_call>", verb: VerbWrite, path: "x.py"},

	{name: "json-call-in-fence", draft: f + "json\n{\"name\": \"done\", \"arguments\": {\"summary\": \"tests pass\"}}\n" + f, verb: VerbDone},
	{name: "json-call-string-arguments", draft: `{"name": "read_file", "arguments": "{\"path\": \"src/app.py\", \"start\": 10, \"end\": 40}"}`, verb: VerbRead, path: "src/app.py"},

	// More decorations seen in the wild.
	{name: "blockquote", draft: "> READ x.py", verb: VerbRead, path: "x.py"},
	{name: "step-label", draft: "Step 2: RUN tests", verb: VerbRun},
	{name: "ask-question-below", draft: "ASK\nShould the flag default to off,\nor follow the environment?", verb: VerbAsk},
	{name: "patch-old-new-code-labels", draft: "PATCH x.py\nOld code:\n" + f + "\nx = 1\n" + f + "\nNew code:\n" + f + "\nx = 2\n" + f, verb: VerbPatch, path: "x.py"},
	{name: "patch-unfenced-multiline", draft: "PATCH x.py\nFIND:\nx = 1\ny = 1\nREPLACE:\nx = 2\ny = 2\n", verb: VerbPatch, path: "x.py"},
	{name: "write-then-done-ignored", draft: "WRITE x.py\n" + f + "python\nprint(1)\n" + f + "\n\nDONE", verb: VerbWrite, path: "x.py"},

	// Native tool calls.
	{name: "tool-read-file", calls: calls("read_file", map[string]any{"path": "src/app.py"}), verb: VerbRead, path: "src/app.py"},
	{name: "tool-read-window", calls: calls("read", map[string]any{"path": "src/app.py", "start": 120.0, "end": 220.0}), verb: VerbRead, path: "src/app.py"},
	{name: "tool-write-file-fenced", calls: calls("write_file", map[string]any{"path": "wordcount.py", "content": f + "python\n" + pyBody + f}), verb: VerbWrite, path: "wordcount.py"},
	{name: "tool-write", calls: calls("write", map[string]any{"path": "x.py", "content": "print(1)"}), verb: VerbWrite, path: "x.py"},
	{name: "tool-patch-file", calls: calls("patch_file", map[string]any{"path": "x.py", "find": "x = 1", "replace": "x = 2"}), verb: VerbPatch, path: "x.py"},
	{name: "tool-edit-file", calls: calls("edit_file", map[string]any{"path": "x.py", "find": "x = 1", "replace": "x = 2"}), verb: VerbPatch, path: "x.py"},
	{name: "tool-run-tests", draft: "Running the suite.", calls: calls("run_tests", map[string]any{}), verb: VerbRun},
	{name: "tool-skill", calls: calls("skill", map[string]any{"name": "outline", "args": []any{"src/app.py"}}), verb: VerbSkill},
	{name: "tool-ask", calls: calls("ask", map[string]any{"question": "Should the flag default to off?"}), verb: VerbAsk},
	{name: "tool-done", calls: calls("done", map[string]any{"summary": "count_words added; tests pass"}), verb: VerbDone},
	{name: "tool-several-calls", calls: append(calls("read_file", map[string]any{"path": "x.py"}), calls("read_file", map[string]any{"path": "y.py"})...), err: "2 different calls", code: codeAmbiguous},

	// Failures.
	{name: "fail-empty", draft: "", err: "no action verb found"},
	{name: "fail-only-chatter", draft: "I think the bug is in the loader. Let me know what you think.", err: "no action verb found"},
	{name: "fail-sentence-with-verb", draft: "Read the file first, then decide what to change.", err: "no action verb found"},
	{name: "fail-run-sentence", draft: "Run into a problem with the loader, it seems.", err: "no action verb found"},
	{name: "fail-not-done", draft: "The task is NOT DONE", err: "no action verb found"},
	{name: "fail-read-without-path", draft: "READ", err: "READ without a path"},
	{name: "fail-write-without-body", draft: "WRITE x.py", err: "WRITE without a fenced body"},
	{name: "fail-signature-only", draft: "WRITE wordcount.py: def count_words(text) -> dict", err: "WRITE without a fenced body"},
	{name: "fail-signature-as-path", draft: "WRITE count_words(text) -> dict\n" + f + "python\n" + pyBody + f, err: "names a signature"},
	{name: "fail-patch-without-blocks", draft: "PATCH x.py\n" + f + "python\nx = 2\n" + f, err: "PATCH without FIND: and REPLACE: blocks"},
	{name: "fail-patch-without-replace", draft: "PATCH x.py\nFIND:\n" + f + "\nx = 1\n" + f, err: "PATCH without a REPLACE: block"},
	{name: "fail-patch-empty-find", draft: "PATCH x.py\nFIND:\n" + f + "\n" + f + "\nREPLACE:\n" + f + "\nx = 2\n" + f, err: "empty FIND block"},
	{name: "fail-patch-unterminated-markers", draft: "PATCH x.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n", err: "unterminated <<<<<<< SEARCH"},
	{name: "fail-ask-without-question", draft: "ASK", err: "ASK without a question"},
	{name: "fail-skill-without-name", draft: "SKILL", err: "SKILL without a name"},
	{name: "fail-bad-window", draft: "READ x.py:220-120", err: "line window"},
	{name: "fail-path-nul", draft: "READ x\x00.py", err: "NUL"},
	{name: "fail-call-unterminated", draft: `read_file("x.py"`, err: "not closed"},
	{name: "fail-call-path-newline", draft: `read_file("x\n.py")`, err: "line break"},
	{name: "fail-tool-unknown", calls: calls("delete_file", map[string]any{"path": "x.py"}), err: "unknown tool"},
	{name: "fail-tool-path-newline", calls: calls("read_file", map[string]any{"path": "x\n.py"}), err: "line break"},
	{name: "fail-tool-write-without-content", calls: calls("write_file", map[string]any{"path": "x.py"}), err: "without content"},
	{name: "fail-tool-path-not-string", calls: calls("read_file", map[string]any{"path": 7.0}), err: "must be a string"},
}

func calls(name string, args map[string]any) []schemas.ToolCall {
	return []schemas.ToolCall{{Name: name, Arguments: args}}
}

// golden is what a case's .golden.json holds: the action, or the failure.
type golden struct {
	Action *Action       `json:"action,omitempty"`
	Error  *goldenFailed `json:"error,omitempty"`
}

type goldenFailed struct {
	Reason string       `json:"reason"`
	Code   schemas.Code `json:"code,omitempty"`
	Verb   string       `json:"verb,omitempty"`
	Shape  string       `json:"shape"`
	Via    string       `json:"via"`
}

// allCases are the golden cases: the protocol's own shapes, then the
// documented formats of other models and frameworks.
func allCases() []parseCase {
	return append(append(append([]parseCase(nil), parseCases...), foreignCases...), callCases...)
}

// Every call format the reader knows has at least three golden drafts.
func TestCallFormatsCovered(t *testing.T) {
	for _, src := range callSources {
		if n := countPrefixed(src); n < 3 {
			t.Errorf("%s: %d golden drafts; want at least 3", src, n)
		}
	}
}

func TestParse(t *testing.T) {
	seen := map[string]bool{}
	for _, tc := range allCases() {
		if seen[tc.name] {
			t.Fatalf("case %q is listed twice", tc.name)
		}
		seen[tc.name] = true
		t.Run(tc.name, func(t *testing.T) {
			a, err := Parse(tc.draft, tc.calls)
			var g golden
			if tc.err != "" {
				var pe *Error
				if !errors.As(err, &pe) {
					t.Fatalf("Parse = %+v, %v; want *Error with %q", a, err, tc.err)
				}
				if !strings.Contains(pe.Reason, tc.err) {
					t.Errorf("Reason = %q; want it to contain %q", pe.Reason, tc.err)
				}
				if pe.Code != tc.code {
					t.Errorf("Code = %q; want %q", pe.Code, tc.code)
				}
				if tc.calls == nil && pe.Draft != tc.draft {
					t.Errorf("Error.Draft = %q; want the raw draft %q", pe.Draft, tc.draft)
				}
				g.Error = &goldenFailed{Reason: pe.Reason, Code: pe.Code, Verb: pe.Verb, Shape: pe.Shape, Via: pe.Via}
			} else {
				if err != nil {
					t.Fatalf("Parse: %v", err)
				}
				if a.Verb != tc.verb || a.Path != tc.path {
					t.Errorf("Verb, Path = %q, %q; want %q, %q", a.Verb, a.Path, tc.verb, tc.path)
				}
				checkInvariants(t, tc.draft, a)
				g.Action = &a
			}
			if tc.shape != "" {
				shape := a.Shape
				if pe := (*Error)(nil); errors.As(err, &pe) {
					shape = pe.Shape
				}
				if !slices.Contains(strings.Split(shape, "+"), tc.shape) {
					t.Errorf("Shape = %q; want it to hold %q", shape, tc.shape)
				}
			}
			compareGolden(t, tc, g)
		})
	}
	if len(parseCases) < 45 {
		t.Errorf("%d cases; the protocol needs at least 45", len(parseCases))
	}
}

// compareGolden checks the stored draft and the parsed result against the
// files in testdata/, or rewrites them under -update.
func compareGolden(t *testing.T, tc parseCase, g golden) {
	t.Helper()
	got, err := json.MarshalIndent(g, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	files := map[string][]byte{
		tc.name + ".draft":       []byte(tc.draft),
		tc.name + ".golden.json": got,
	}
	if tc.calls != nil {
		c, err := json.MarshalIndent(tc.calls, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		files[tc.name+".calls.json"] = append(c, '\n')
	}
	for name, want := range files {
		path := filepath.Join("testdata", name)
		if *update {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		have, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -update to write it)", err)
		}
		if !bytes.Equal(have, want) {
			t.Errorf("%s differs from the parse (run go test -update after checking the change)\n--- file\n%s\n--- now\n%s", path, have, want)
		}
	}
}

// TestGoldenFilesHaveCases keeps testdata/ free of goldens whose case was
// removed: the fuzz corpus is seeded from these files.
func TestGoldenFilesHaveCases(t *testing.T) {
	names := map[string]bool{}
	for _, tc := range allCases() {
		names[tc.name] = true
	}
	entries, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		base, _, _ := strings.Cut(e.Name(), ".")
		if !names[base] {
			t.Errorf("testdata/%s has no case in parseCases", e.Name())
		}
	}
}

func TestParseDetails(t *testing.T) {
	tests := []struct {
		name  string
		draft string
		want  Action
	}{
		{"window", "READ src/app.py:120-220", Action{Verb: VerbRead, Path: "src/app.py", Start: 120, End: 220, Shape: ShapeCanonical, Via: viaText}},
		{"write-body", "WRITE x.py\n" + f + "python\n\nprint(1)\n\n\n" + f, Action{Verb: VerbWrite, Path: "x.py", Body: "print(1)\n", Shape: ShapeCanonical, Via: viaText, Repairs: []string{repairStripFence}}},
		{"patch-blocks-exact", "PATCH x.py\nFIND:\n" + f + "\n    a = 1\n    b = 2\n" + f + "\nREPLACE:\n" + f + "\n    a = 2\n" + f, Action{Verb: VerbPatch, Path: "x.py", Find: "    a = 1\n    b = 2", Replace: "    a = 2", Shape: ShapeCanonical, Via: viaText, Repairs: []string{repairStripFence}}},
		{"skill-args", "SKILL outline src/app.py.", Action{Verb: VerbSkill, Skill: "outline", Args: []string{"src/app.py"}, Shape: ShapeCanonical, Via: viaText}},
		{"done-last-line", "Task complete. DONE", Action{Verb: VerbDone, Text: "Task complete.", Shape: shapeDoneLastLine, Via: viaText}},
		{"bracket-name", "WRITE [wordcount.py]\n" + f + "\nx = 1\n" + f, Action{Verb: VerbWrite, Path: "wordcount.py", Body: "x = 1\n", Shape: shapeBracketedName, Via: viaText, Repairs: []string{repairNameFromBrackets, repairStripFence}}},
		{"four-backticks", "WRITE x.py\n````python\nx = 1\n````", Action{Verb: VerbWrite, Path: "x.py", Body: "x = 1\n", Shape: ShapeCanonical, Via: viaText, Repairs: []string{repairStripFourBacktick}}},
		{"bold-label", "**Action:** READ x.py", Action{Verb: VerbRead, Path: "x.py", Shape: shapeBoldLabel, Via: viaText}},
		{"reason", "READ x.py to see the loader", Action{Verb: VerbRead, Path: "x.py", Shape: shapeReasonAfterVerb, Via: viaText}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.draft, nil)
			if err != nil {
				t.Fatal(err)
			}
			gj, _ := json.Marshal(got)
			wj, _ := json.Marshal(tt.want)
			if !bytes.Equal(gj, wj) {
				t.Errorf("Parse(%q)\n got %s\nwant %s", tt.draft, gj, wj)
			}
		})
	}
}

func TestToolCallShape(t *testing.T) {
	a, err := Parse("I will read it.", calls("READ_FILE", map[string]any{"path": `"./src\app.py"`, "start": 3.0}))
	if err != nil {
		t.Fatal(err)
	}
	want := Action{Verb: VerbRead, Path: "src/app.py", Start: 3, Shape: ShapeToolCall, Via: ViaToolCall,
		Repairs: []string{repairNameFromBrackets, repairPathSlashes, repairStripDotSlash}}
	if !slices.Equal(a.Repairs, want.Repairs) || a.Path != want.Path || a.Start != 3 || a.Shape != want.Shape || a.Via != want.Via {
		t.Errorf("got %+v\nwant %+v", a, want)
	}
}

func TestCleanPath(t *testing.T) {
	tests := []struct {
		raw, want, reason string
	}{
		{"x.py", "x.py", ""},
		{"./x.py", "x.py", ""},
		{".//x.py", "x.py", ""}, // never made absolute
		{"././x.py", "x.py", ""},
		{`src\pkg\x.py`, "src/pkg/x.py", ""},
		{"x.py:", "x.py", ""},
		{"x.py.", "x.py", ""},
		{"`x.py`", "x.py", ""},
		{"\"x.py\"", "x.py", ""},
		{"[x.py]", "x.py", ""},
		{"<x.py>", "x.py", ""},
		{"[id].py", "[id].py", ""},
		{"..", "..", ""},
		{"...", "...", ""},
		{"x/...", "x/...", ""}, // not shortened to x/..
		{"a/.", "a/.", ""},
		{"../x.py", "../x.py", ""},
		{"a/../../b", "a/../../b", ""},
		{"/x/../etc/passwd", "/x/../etc/passwd", ""},
		{"./../x", "../x", ""},
		{"", "", "empty"},
		{"./", "", "empty"},
		{"``", "", "empty"},
		{"x\x00y", "", "NUL"},
		{"x\ny", "", "line break"},
		{"x\ty", "", "control character"},
	}
	for _, tt := range tests {
		got, _, reason := cleanPath(tt.raw)
		if got != tt.want || !strings.Contains(reason, tt.reason) || (tt.reason == "") != (reason == "") {
			t.Errorf("cleanPath(%q) = %q, %q; want %q, %q", tt.raw, got, reason, tt.want, tt.reason)
		}
	}
}

func TestErrorMessage(t *testing.T) {
	_, err := Parse("Let me think about this.", nil)
	var pe *Error
	if !errors.As(err, &pe) {
		t.Fatalf("want *Error, got %v", err)
	}
	msg := err.Error()
	for _, want := range []string{"no action verb found", "READ path", "WRITE path", "PATCH path", "FIND:", "REPLACE:", "RUN tests", "SKILL name", "ASK question", "DONE summary", f} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	if pe.Shape != "none" || pe.Via != viaText {
		t.Errorf("Shape, Via = %q, %q; want none, text", pe.Shape, pe.Via)
	}
}

func TestAccepted(t *testing.T) {
	text := Protocol()
	for _, v := range []string{VerbRead, VerbWrite, VerbPatch, VerbRun, VerbSkill, VerbAsk, VerbDone} {
		if !strings.Contains(text, "\n"+v+" ") {
			t.Errorf("Protocol has no paragraph for %s", v)
		}
	}
	// The examples in the protocol text must themselves parse.
	for _, ex := range []string{"READ src/app.py:120-220", "RUN tests", "SKILL scaffold-test wordcount", "ASK Should the flag default to off?"} {
		if !strings.Contains(text, ex) {
			t.Errorf("Protocol lacks example %q", ex)
		}
		if _, err := Parse(ex, nil); err != nil {
			t.Errorf("example %q does not parse: %v", ex, err)
		}
	}
}

func TestRecord(t *testing.T) {
	a, err := Parse("**READ** `x.py`", nil)
	r := Record(a, err, "**READ** `x.py`")
	if r.Verb != VerbRead || r.Path != "x.py" || r.Shape != "bold-label+bracketed-name" || r.Via != viaText || !slices.Equal(r.Repairs, []string{repairNameFromBrackets}) {
		t.Errorf("Record = %+v", r)
	}
	if r.Reader != ReaderVersion || !r.Stated || r.Canonical != "READ x.py" {
		t.Errorf("Record's reading of a draft in another form = %d %v %q, want %d true \"READ x.py\"", r.Reader, r.Stated, r.Canonical, ReaderVersion)
	}
	a, err = Parse("READ x.py", nil)
	if r = Record(a, err, "READ x.py"); r.Reader != ReaderVersion || !r.Stated || r.Canonical != "" {
		t.Errorf("Record's reading of a canonical draft = %d %v %q, want the form left out", r.Reader, r.Stated, r.Canonical)
	}
	a, err = Parse("WRITE x.py", nil)
	r = Record(a, err, "WRITE x.py")
	if r.Verb != VerbWrite || r.Shape != "none" || r.Repairs == nil {
		t.Errorf("Record of a failure = %+v", r)
	}
	if r.Reader != ReaderVersion || r.Stated || r.Canonical != "" {
		t.Errorf("Record's reading of a failure = %d %v %q, want nothing stated", r.Reader, r.Stated, r.Canonical)
	}
	a, err = Parse("**WRITE** x.py", nil)
	if r = Record(a, err, "**WRITE** x.py"); r.Shape != shapeBoldLabel {
		t.Errorf("Record of a failure after a shape = %+v", r)
	}
}

// checkInvariants holds for every successful parse; the fuzz target checks
// the same.
func checkInvariants(t *testing.T, draft string, a Action) {
	t.Helper()
	switch a.Verb {
	case VerbRead, VerbWrite, VerbPatch:
		if a.Path == "" {
			t.Errorf("%s with an empty path", a.Verb)
		}
	case VerbRun, VerbSkill, VerbAsk, VerbDone:
		if a.Path != "" {
			t.Errorf("%s with a path %q", a.Verb, a.Path)
		}
	default:
		t.Fatalf("unknown verb %q", a.Verb)
	}
	if strings.ContainsAny(a.Path, "\x00\n\r\\") {
		t.Errorf("path %q holds NUL, a line break or a backslash", a.Path)
	}
	if strings.HasPrefix(a.Path, "./") {
		t.Errorf("path %q keeps a leading ./", a.Path)
	}
	if a.Via != viaText && a.Via != ViaToolCall {
		t.Errorf("Via = %q", a.Via)
	}
	if a.Verb == VerbWrite && (!strings.HasSuffix(a.Body, "\n") || strings.HasSuffix(a.Body, "\n\n")) {
		t.Errorf("Body %q does not end with exactly one newline", a.Body)
	}
	if a.Verb == VerbPatch && strings.TrimSpace(a.Find) == "" && len(a.Hunks) == 0 {
		t.Errorf("PATCH with an empty Find and no hunks")
	}
	for i, h := range a.Hunks {
		if h.Old == "" {
			t.Errorf("hunk %d has no old lines to place it by", i+1)
		}
	}
	if a.Last < 0 || (a.Last > 0 && (a.Verb != VerbRead || a.Start != 0)) {
		t.Errorf("Last = %d on %s with start %d", a.Last, a.Verb, a.Start)
	}
	if a.Start < 0 || a.End < 0 || (a.End > 0 && (a.Start < 1 || a.End < a.Start)) {
		t.Errorf("window %d-%d", a.Start, a.End)
	}
	known := ShapeCodes()
	parts := strings.Split(a.Shape, "+")
	last := -1
	for _, s := range parts {
		i := slices.Index(known, s)
		if i < 0 {
			t.Errorf("unknown shape %q in %q", s, a.Shape)
		}
		if i <= last {
			t.Errorf("shape %q out of order", a.Shape)
		}
		last = i
	}
	if slices.Contains(parts, ShapeCanonical) && len(parts) > 1 {
		t.Errorf("canonical joined with others: %q", a.Shape)
	}
	codes := repairCodes()
	last = -1
	for _, r := range a.Repairs {
		i := slices.Index(codes, r)
		if i < 0 {
			t.Errorf("unknown repair %q", r)
		}
		if i <= last {
			t.Errorf("repairs %q out of order", a.Repairs)
		}
		last = i
	}
	// A path is taken from the draft, never made up: outside call syntax
	// (whose string escapes change the bytes), it appears in the draft.
	viaJSON := false
	for _, s := range []string{shapeCallSyntax, shapeJSONCall, shapeJSONAction, shapeFunctionTag, shapePythonicList, shapeReAct} {
		viaJSON = viaJSON || strings.Contains(a.Shape, s)
	}
	if a.Via == viaText && a.Path != "" && !viaJSON {
		if !strings.Contains(strings.ReplaceAll(draft, `\`, "/"), a.Path) {
			t.Errorf("path %q is not in the draft", a.Path)
		}
	}
}

// docs/harness.md lists every shape and repair code, with its source.
func TestCodesDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "harness.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, code := range append(ShapeCodes()[1:], repairCodes()...) {
		if !bytes.Contains(doc, []byte("`"+code+"`")) {
			t.Errorf("docs/harness.md does not list %s", code)
		}
	}
}
