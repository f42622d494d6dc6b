package draft

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/schemas"
)

// formatCases are the formats read by their structure and the agent CLIs'
// envelopes, checked without goldens: what each must read as.
var formatCases = []parseCase{
	{name: "odd-task-complete-colon", draft: "TASK COMPLETE: greet strips spaces; the suite passes", verb: VerbDone, shape: shapeDoneAlias},
	{name: "odd-done-after-chatter", draft: "Sure. DONE: greet strips spaces; the suite passes", verb: VerbDone, shape: shapeVerbAfterChatter},
	{name: "fail-done-after-chatter-then-more", draft: "Sure. DONE: soon.\nFirst I will look at greet.py.", err: "no action verb found"},
	{name: "shell-args-alone", draft: `{"command": ["bash", "-lc", "python -m pytest -q"], "workdir": "/repo"}`, verb: VerbRun},
	{name: "fail-shell-args-with-other-keys", draft: `{"command": ["ls"], "version": 2}`, err: "no action verb found"},
	{name: "fail-plan-first-step", draft: "1. READ greet.py to see the code\n2. PATCH greet.py\n3. RUN tests\n\nFirst, step 1.", err: "it is a plan of 3 steps", code: schemas.CodePlan},
	{name: "fail-plan-header", draft: "Here is my plan:\n- READ greet.py\n- RUN tests", err: "it is a plan of 2 steps", code: schemas.CodePlan},
	{name: "fail-plan-future-step", draft: "Plan:\n1. READ greet.py to see the code\n2. PATCH greet.py to strip the name\n3. RUN tests\n\nI'll start with step 1.", err: "it is a plan of 3 steps", code: schemas.CodePlan},
	{name: "plan-then-the-action", draft: "Plan:\n1. READ greet.py\n2. RUN tests\n\nI'll start with the first:\n\nREAD greet.py", verb: VerbRead, path: "greet.py"},
	{name: "envelope-update", draft: "*** Begin Patch\n*** Update File: greet.py\n@@ def greet(name):\n-    return \"Hello, \" + name\n+    return \"Hello, \" + name.strip()\n*** End Patch", verb: VerbPatch, path: "greet.py", shape: ShapeUnifiedDiff},
	{name: "envelope-add", draft: "Adding the module.\n*** Begin Patch\n*** Add File: initials.py\n+def initials(name):\n+    return name[:1]\n*** End Patch", verb: VerbWrite, path: "initials.py", shape: ShapeUnifiedDiff},
	{name: "fail-envelope-two-files", draft: "*** Begin Patch\n*** Add File: a.py\n+x = 1\n*** Update File: b.py\n@@\n-y = 1\n+y = 2\n*** End Patch", err: "the patch touches 2 files", code: codeAmbiguous},
	{name: "envelope-in-apply-patch-call", draft: `{"name": "shell", "arguments": {"command": ["apply_patch", "*** Begin Patch\n*** Add File: a.py\n+print(1)\n*** End Patch"]}}`, verb: VerbWrite, path: "a.py", shape: ShapeUnifiedDiff},
	{name: "arg-blocks", draft: "```\nTOOL_NAME: read_file\nBEGIN_ARG: path\ngreet.py\nEND_ARG\n```", verb: VerbRead, path: "greet.py", shape: shapeCallTag},
	{name: "argv-command", draft: `{"name": "shell", "arguments": {"command": ["python", "-m", "pytest", "-q"]}}`, verb: VerbRun},
	{name: "argv-shell-line", draft: `{"name": "shell", "arguments": {"command": ["bash", "-lc", "cat greet.py"]}}`, verb: VerbRead, path: "greet.py"},
	{name: "structure-relaxed-json", draft: "{'name': 'read_file', 'arguments': {'path': 'greet.py'}}", verb: VerbRead, path: "greet.py", shape: ""},
	{name: "structure-bare-keys", draft: `{name: "read_file", arguments: {path: "greet.py"}}`, verb: VerbRead, path: "greet.py", shape: ""},
	{name: "structure-tool-wrapper", draft: `{"tool": {"name": "read_file", "arguments": {"path": "greet.py"}}}`, verb: VerbRead, path: "greet.py", shape: ""},
	{name: "structure-name-as-key", draft: `<|tools_prefix|>[{"read_file": {"path": "greet.py"}}]<|tools_suffix|>`, verb: VerbRead, path: "greet.py", shape: ""},
	{name: "structure-name-then-json", draft: "<|tool_call_begin|>functions.read_file:0<|tool_call_argument_begin|>{\"path\": \"greet.py\"}<|tool_call_end|>", verb: VerbRead, path: "greet.py", shape: ""},
	{name: "structure-key-value-tags", draft: "<tool_call>write_file\n<arg_key>path</arg_key>\n<arg_value>greet.py</arg_value>\n<arg_key>content</arg_key>\n<arg_value>x = '</arg_value>'\n</arg_value>\n</tool_call>", verb: VerbWrite, path: "greet.py", shape: ""},
	{name: "structure-quote-token", draft: `<|tool_call>call:read_file{path:<|"|>greet.py<|"|>}<tool_call|>`, verb: VerbRead, path: "greet.py", shape: ""},
	{name: "structure-parameter-elements", draft: "<｜DSML｜invoke name=\"read_file\">\n<｜DSML｜parameter name=\"path\" string=\"true\">greet.py</｜DSML｜parameter>\n</｜DSML｜invoke>", verb: VerbRead, path: "greet.py", shape: ""},
	{name: "structure-wrapped-elements", draft: "to=read_file<|message|><atem:function_calls>\n<atem:invoke name=\"read_file\">\n<atem:parameter name=\"path\">greet.py</atem:parameter>\n</atem:invoke>\n</atem:function_calls>", verb: VerbRead, path: "greet.py", shape: ""},
	{name: "fail-structure-name-in-prose", draft: "I would read_file the module, then run_tests when it is fixed.", err: "no action verb found"},
	// Arguments found by what they are, wherever they sit.
	{name: "meaning-nested-edit-object", draft: "<tool_call>\n{\"name\": \"edit_file\", \"arguments\": {\"path\": \"greet.py\", \"edit\": {\"old_text\": \"    return x\", \"new_text\": \"    return y\"}}}\n</tool_call>", verb: VerbPatch, path: "greet.py"},
	{name: "meaning-list-of-one-edit", draft: "<tool_call>\n{\"name\": \"edit_file\", \"arguments\": {\"path\": \"greet.py\", \"edits\": [{\"oldText\": \"    return x\", \"newText\": \"    return y\"}]}}\n</tool_call>", verb: VerbPatch, path: "greet.py"},
	{name: "meaning-react-nested-changes", draft: "Action: edit_file\nAction Input: {\"path\": \"greet.py\", \"changes\": {\"old\": \"    return x\", \"new\": \"    return y\"}}", verb: VerbPatch, path: "greet.py"},
	{name: "meaning-search-replace-in-content", draft: "<tool_call>\n{\"name\": \"write_file\", \"arguments\": {\"path\": \"greet.py\", \"content\": \"<<<<<<< SEARCH\\n    return x\\n=======\\n    return y\\n>>>>>>> REPLACE\\n\"}}\n</tool_call>", verb: VerbPatch, path: "greet.py", shape: shapeSearchReplaceBlock},
	{name: "meaning-namespaced-editor-view", draft: "<tool_call>\n{\"name\": \"mcp__filesystem__text_editor\", \"arguments\": {\"command\": \"view\", \"path\": \"greet.py\"}}\n</tool_call>", verb: VerbRead, path: "greet.py"},
	{name: "meaning-bracketed-prose-with", draft: "[Calling read_file with path=\"greet.py\"]", verb: VerbRead, path: "greet.py"},
	{name: "meaning-bracketed-prose-call", draft: "[I will call read_file(path=\"greet.py\")]", verb: VerbRead, path: "greet.py"},
	{name: "fail-bracketed-prose-english", draft: "[I will open the file and run the tests]", err: "no action verb found"},
	{name: "meaning-code-agent-reads", draft: "```python\nsource = open(\"greet.py\").read()\nprint(source)\n```", verb: VerbRead, path: "greet.py"},
	{name: "meaning-code-agent-with-open", draft: "```python\nwith open(\"greet.py\") as f:\n    print(f.read())\n```", verb: VerbRead, path: "greet.py"},
	{name: "fail-code-agent-writes", draft: "```python\nopen(\"greet.py\", \"w\").write(\"x = 1\\n\")\n```", err: "open"},
	{name: "meaning-json-triple-quotes", draft: "{\"name\": \"write_file\", \"arguments\": {\"path\": \"x.py\", \"content\": \"\"\"def f():\n    return 1\n\"\"\"}}", verb: VerbWrite, path: "x.py"},
	{name: "meaning-arg-block-quoted-lines", draft: "TOOL_NAME: write_file\nBEGIN_ARG: path\nx.py\nEND_ARG\nBEGIN_ARG: content\n\"def f():\n    return 1\n\"\nEND_ARG", verb: VerbWrite, path: "x.py"},
	{name: "meaning-line-fields-in-tag", draft: "<tool_call>\nname: write_file\npath: x.py\ncontent: \"def f():\n    return 1\n\"\n</tool_call>", verb: VerbWrite, path: "x.py"},
	{name: "meaning-name-then-field-lines", draft: "<tool_call>read_file\npath: greet.py\n</tool_call>", verb: VerbRead, path: "greet.py"},
	{name: "meaning-own-quote-marks", draft: "<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": «greet.py»}}</tool_call>", verb: VerbRead, path: "greet.py"},
}

func TestFormatsByStructure(t *testing.T) {
	for _, tc := range formatCases {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Parse(tc.draft, nil)
			if tc.err != "" {
				var pe *Error
				if !errors.As(err, &pe) {
					t.Fatalf("Parse = %+v, %v; want *Error with %q", a, err, tc.err)
				}
				if !strings.Contains(pe.Reason, tc.err) || pe.Code != tc.code {
					t.Errorf("refused %q (%q); want %q (%q)", pe.Reason, pe.Code, tc.err, tc.code)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if a.Verb != tc.verb || a.Path != tc.path {
				t.Errorf("Verb, Path = %q, %q; want %q, %q", a.Verb, a.Path, tc.verb, tc.path)
			}
			if tc.shape != "" && !slices.Contains(strings.Split(a.Shape, "+"), tc.shape) {
				t.Errorf("Shape = %q; want it to hold %q", a.Shape, tc.shape)
			}
			checkInvariants(t, tc.draft, a)
		})
	}
}
