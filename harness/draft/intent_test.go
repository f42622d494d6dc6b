package draft

import (
	"errors"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/schemas"
)

// TestNeverActedOn holds replies that announce, describe, ask or wait
// instead of acting, each of which holds words an action can be read
// from, and replies that act after a short preface, which must be read.
func TestNeverActedOn(t *testing.T) {
	refused := []struct {
		name, draft string
		code        schemas.Code
	}{
		{"plan-steps-not-verbs", "Here's the plan:\n1. Add a strip() call to greet in greet.py.\n2. Add the test for spaces.\n3. Run the test suite to verify the change.\n\nI'll start with step 1.", schemas.CodePlan},
		{"plan-one-line", "Here's the plan: 1. Add the strip call. 2. Add the test. 3. Run the tests to verify. I'll start with step 1.", schemas.CodePlan},
		{"plan-verb-steps", "1. READ greet.py to see the code\n2. PATCH greet.py\n3. RUN tests\n\nFirst, step 1.", schemas.CodePlan},
		{"plan-header", "Here is my plan:\n- READ greet.py\n- RUN tests", schemas.CodePlan},
		{"plan-bullets-future", "I will:\n- read greet.py\n- fix the bug\n- run tests", schemas.CodePlan},
		{"plan-sentences", "First, I'll read greet.py to see what it does. Then I'll add the strip() call. Finally, I'll run tests.", schemas.CodePlan},
		{"plan-step-labels", "My plan:\nStep 1: READ greet.py\nStep 2: PATCH greet.py\nStep 3: RUN tests", schemas.CodePlan},
		{"plan-numbered-calls", "The plan:\n1. read_file(path=\"greet.py\")\n2. run_tests()\n\nLet me begin with the first one.", schemas.CodePlan},
		{"example-pythonic", "I can work with the tools you gave me. For example, a read would look like `[read_file(path=…)]` and a test run like `[run_tests()]`. Tell me when to begin.", schemas.CodeProtocolExample},
		{"example-fenced", "For example, to read a file I would write:\n```\nREAD path/to/file.py\n```\nand then I would patch it.", schemas.CodeProtocolExample},
		{"example-placeholder-call", "A call looks like this: {\"name\": \"read_file\", \"arguments\": {\"path\": \"<path>\"}}", schemas.CodeProtocolExample},
		{"example-placeholder-line", "READ path/to/file.py", schemas.CodeProtocolExample},
		{"example-json-e-g", "The format would be one JSON object, e.g. {\"name\": \"read_file\", \"arguments\": {\"path\": \"...\"}}.", schemas.CodeProtocolExample},
		{"wait-go-ahead", "I understand the task. I'll read greet.py, fix the strip, and run the tests. Let me know when you're ready for me to start.", schemas.CodeWaiting},
		{"wait-shall-i", "The fix is to call name.strip() in greet. Shall I proceed and run the tests?", schemas.CodeWaiting},
		{"wait-want-me-to", "I found the bug in greet.py. Do you want me to patch greet.py now?", schemas.CodeWaiting},
		{"wait-ill-wait", "Ready. I'll wait for your go-ahead before I READ greet.py.", schemas.CodeWaiting},
		{"question-which-file", "Which file holds the greet function, greet.py or utils.py?", schemas.CodeQuestion},
		{"question-should-strip", "Should greet strip tabs as well as spaces?", schemas.CodeQuestion},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Parse(tc.draft, nil)
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("acted on: %s", show(a))
			}
			if pe.Code != tc.code {
				t.Fatalf("code %q (%s); want %q", pe.Code, pe.Reason, tc.code)
			}
			if msg := pe.Error(); !strings.Contains(msg, "Send the one action you are taking now") {
				t.Errorf("the message does not ask for one action: %s", msg)
			}
		})
	}
	acted := []struct{ name, draft, want string }{
		{"preface-then-line", "I'll look at the module first.\n\nREAD greet.py", "READ greet.py"},
		{"plan-then-the-action", "Plan:\n1. READ greet.py\n2. RUN tests\n\nI'll start with the first:\n\nREAD greet.py", "READ greet.py"},
		{"sequence-then-call", "First I'll read the file, then I'll fix it.\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"greet.py\"}}\n</tool_call>", "READ greet.py"},
		{"example-word-in-prose-then-action", "For example, greet(' Ann ') returns ' Hello,  Ann '. The module is small.\nREAD greet.py", "READ greet.py"},
		{"done-with-offer", "DONE greet strips the name; the suite passes. Let me know if you want me to add more tests.", "DONE summary"},
		{"ask-canonical", "ASK Should greet strip tabs as well?", "ASK Should greet strip tabs as well?"},
		{"write-with-question-after", "WRITE greet.py\n```python\ndef greet(name):\n    return 'Hello, ' + name.strip()\n```\nDoes greet need a docstring too?", "WRITE greet.py, then the whole file in one fenced block"},
		{"list-item-action-alone", "1. READ greet.py", "READ greet.py"},
		{"let-me-call", "Let me read the file.\n```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"greet.py\"}}\n```", "READ greet.py"},
	}
	for _, tc := range acted {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Parse(tc.draft, nil)
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if got := Canonical(a); got != tc.want {
				t.Errorf("read as %q; want %q", got, tc.want)
			}
		})
	}
}
