package draft

import (
	"errors"
	"testing"

	"github.com/pyharness/pyharness/schemas"
)

// greetOldLine and greetNewLine are the line a fix of greet.py changes.
const (
	greetOldLine = `    return "Hello, " + name`
	greetNewLine = `    return "Hello, " + name.strip()`
)

// TestMissClassProbes holds replies written as chat models of 2025–26
// write them, one or more for each kind of reply the reader used to miss:
// arguments nested a level deeper than the tool's schema, strings between
// a model's own tokens, an argument that holds another edit format,
// multi-line values in line-oriented blocks, namespaced tools with a
// sub-command, a call described in a bracketed line of prose, a code
// agent's block that reads a file, and JSON strings in Python's triple
// quotes. Each must read as the whole action, fields and all.
func TestMissClassProbes(t *testing.T) {
	patch := Action{Verb: VerbPatch, Path: "greet.py", Find: greetOldLine, Replace: greetNewLine}
	read := Action{Verb: VerbRead, Path: "greet.py"}
	body := "def greet(name):\n    return \"Hello, \" + name.strip()\n"
	write := Action{Verb: VerbWrite, Path: "greet.py", Body: body}
	for _, tc := range []struct {
		name, reply string
		want        Action
	}{
		// Arguments one level deeper than the tool's flat schema.
		{"nested-replacement-object",
			"The name keeps its spaces; strip it.\n\n<tool_call>\n{\"name\": \"edit\", \"arguments\": {\"file_path\": \"greet.py\", \"replacement\": {\"old_string\": " + js(greetOldLine) + ", \"new_string\": " + js(greetNewLine) + "}}}\n</tool_call>",
			patch},
		{"nested-edit-under-editor-command",
			"```json\n{\n  \"tool\": \"str_replace_based_edit_tool\",\n  \"args\": {\n    \"command\": \"str_replace\",\n    \"path\": \"greet.py\",\n    \"edit\": {\"old_str\": " + js(greetOldLine) + ", \"new_str\": " + js(greetNewLine) + "}\n  }\n}\n```",
			patch},
		{"nested-args-in-python-call",
			"[edit_file(path=\"greet.py\", edits=[{\"old_text\": " + js(greetOldLine) + ", \"new_text\": " + js(greetNewLine) + "}])]",
			patch},
		// Strings between the model's own tokens.
		{"escape-token-strings",
			"<start_function_call>call:read_file{path:<escape>greet.py<escape>}<end_function_call>",
			read},
		{"escape-token-body",
			"<start_function_call>call:write_file{path:<escape>greet.py<escape>,content:<escape>" + body + "<escape>}<end_function_call>",
			write},
		{"quote-token-body-with-quotes",
			"<|tool_call>call:write_file{path:<|\"|>greet.py<|\"|>,content:<|\"|>" + body + "<|\"|>}<tool_call|>",
			write},
		// An argument that holds another edit format.
		{"search-replace-in-parameter",
			"<tool_call>\n<function=write_file>\n<parameter=path>\ngreet.py\n</parameter>\n<parameter=content>\n<<<<<<< SEARCH\n" + greetOldLine + "\n=======\n" + greetNewLine + "\n>>>>>>> REPLACE\n</parameter>\n</function>\n</tool_call>",
			patch},
		{"search-replace-in-editor-file-text",
			"{\"name\": \"str_replace_editor\", \"arguments\": {\"command\": \"create\", \"path\": \"greet.py\", \"file_text\": \"<<<<<<< SEARCH\\n" + jsInner(greetOldLine) + "\\n=======\\n" + jsInner(greetNewLine) + "\\n>>>>>>> REPLACE\"}}",
			patch},
		// Multi-line values in line-oriented tool blocks.
		{"yaml-block-scalar",
			"tool: write_file\npath: greet.py\ncontent: |\n  def greet(name):\n      return \"Hello, \" + name.strip()\n",
			write},
		{"yaml-fence",
			"I'll read the module first.\n\n```yaml\ntool: read_file\npath: greet.py\n```",
			read},
		{"line-fields-triple-quoted",
			"<tool_call>\nname: write_file\npath: greet.py\ncontent: \"\"\"\n" + body + "\"\"\"\n</tool_call>",
			write},
		// Namespaced tools with a sub-command.
		{"namespaced-editor-view-python",
			"Let me look at the module first.\n\n```tool_code\nprint(default_api.mcp__workspace__text_editor(command=\"view\", path=\"greet.py\"))\n```",
			read},
		{"namespaced-editor-str-replace-xml",
			"<invoke name=\"filesystem__text_editor\">\n<parameter name=\"command\">str_replace</parameter>\n<parameter name=\"path\">greet.py</parameter>\n<parameter name=\"old_str\">" + greetOldLine + "</parameter>\n<parameter name=\"new_str\">" + greetNewLine + "</parameter>\n</invoke>",
			patch},
		// A call described in a bracketed line of prose.
		{"bracketed-tool-call-label",
			"I need to see the current implementation.\n\n[Tool call: read_file(path='greet.py')]",
			read},
		{"bracketed-using-tool-json",
			"[Using tool `read_file` with {\"path\": \"greet.py\"}]",
			read},
		// A code agent's block whose first statement reads a file.
		{"code-agent-pathlib",
			"Thought: I should look at greet.py before changing it.\nCode:\n```py\nfrom pathlib import Path\nprint(Path(\"greet.py\").read_text())\n```<end_code>",
			read},
		{"code-agent-pathlib-open",
			"Code:\n```py\nimport pathlib\nwith pathlib.Path(\"greet.py\").open() as f:\n    print(f.read())\n```<end_code>",
			read},
		{"code-agent-tool-result-kept",
			"Thought: read the module.\nCode:\n```py\nsource = read_file(\"greet.py\")\nprint(source)\n```<end_code>",
			read},
		// JSON whose string is in Python's triple quotes.
		{"json-single-triple-quotes",
			"Writing the fixed module.\n<tool_call>\n{\"name\": \"write_file\", \"arguments\": {\"path\": \"greet.py\", \"content\": '''" + body + "'''}}\n</tool_call>",
			write},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Parse(tc.reply, nil)
			if err != nil {
				t.Fatalf("refused: %v\nreply: %s", err, tc.reply)
			}
			if !sameAction(a, tc.want) {
				t.Errorf("read as %s\nwant       %s\nreply: %s", show(a), show(tc.want), tc.reply)
			}
		})
	}
}

// jsInner is s as the inside of a JSON string.
func jsInner(s string) string {
	q := js(s)
	return q[1 : len(q)-1]
}

// TestProbesNeverActedOn holds replies of the same models that plan,
// describe the protocol, ask or wait, each holding an action's words or a
// call's shape: none is acted on.
func TestProbesNeverActedOn(t *testing.T) {
	for _, tc := range []struct {
		name, reply string
		code        schemas.Code
	}{
		{"plan-bold-steps",
			"Here's what I'm going to do:\n\n1. **Read** `greet.py` to understand the current implementation\n2. **Modify** `greet` to strip the name\n3. **Run** the tests to confirm\n\nLet's start by reading the file.",
			schemas.CodePlan},
		{"example-tool-call-tags",
			"To read a file you would send:\n\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"path/to/file.py\"}}\n</tool_call>\n\nand the harness replies with its content.",
			schemas.CodeProtocolExample},
		{"question-before-change",
			"Before I make changes: should greet also strip tabs and newlines, or only spaces?",
			schemas.CodeQuestion},
		{"code-agent-pathlib-write",
			"Code:\n```py\nfrom pathlib import Path\nPath(\"greet.py\").open(\"w\").write(\"x = 1\\n\")\n```<end_code>",
			""},
		{"plan-inline-calls",
			"I'll proceed in three steps:\n1. `read_file(path=\"greet.py\")` to inspect it\n2. `str_replace` the return line\n3. `run_tests()`\n\nStarting with step 1 now.",
			schemas.CodePlan},
		{"wait-call-shown-asks-go-ahead",
			"Here's the call I'd make if you want me to go ahead:\n```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"greet.py\"}}\n```\nShould I proceed?",
			schemas.CodeWaiting},
		{"example-yaml-block-if-so",
			"Do you want tabs stripped too? If so I'd send:\n\n```yaml\ntool: read_file\npath: greet.py\n```",
			schemas.CodeProtocolExample},
		{"wait-say-the-word",
			"I'm ready to begin whenever you are. Just say the word and I'll start by reading greet.py.",
			schemas.CodeWaiting},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Parse(tc.reply, nil)
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("acted on: %s", show(a))
			}
			if pe.Code != tc.code {
				t.Errorf("code %q (%s); want %q", pe.Code, pe.Reason, tc.code)
			}
		})
	}
}
