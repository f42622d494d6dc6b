package draft

import (
	"encoding/json"
	"strings"
)

// The call formats the reader knows, each written as its public documentation
// shows it (docs/harness.md cites the source of each shape), on the greet
// fixture of foreign_test.go; harness/foreign_test.go plays each through
// the real loop. Reasoning comes first in every reply that has it.

// js is s as a JSON string literal.
func js(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

var (
	oldJS, newJS, initJS = js(greetOld), js(greetNew), js(initBody)
	// DeepSeek's tool-call tokens, with their full-width bars.
	dsCallsBegin, dsCallBegin, dsSep, dsCallEnd, dsCallsEnd = "<｜tool▁calls▁begin｜>", "<｜tool▁call▁begin｜>", "<｜tool▁sep｜>", "<｜tool▁call▁end｜>", "<｜tool▁calls▁end｜>"
)

var callCases = []parseCase{
	// Hermes and Qwen 2.5: <tool_call>JSON</tool_call>, after chatter too;
	// Granite 3: <tool_call> then a JSON list.
	{name: "qwen25-tool-call-after-chatter", draft: "I'll look at the module first.\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"greet.py\"}}\n</tool_call>", verb: VerbRead, path: "greet.py", shape: shapeCallTag},
	{name: "granite-tool-call-list", draft: "<tool_call>[{\"name\": \"run_tests\", \"arguments\": {}}]", verb: VerbRun, shape: shapeCallTag},
	{name: "hermes-tool-call-write", draft: "<tool_call>\n{\"name\": \"write_file\", \"arguments\": {\"path\": \"initials.py\", \"content\": " + initJS + "}}\n</tool_call>", verb: VerbWrite, path: "initials.py", shape: shapeCallTag},

	// Phi-4-mini: <|tool_call|>[...]<|/tool_call|> (llama.cpp's reading),
	// functools[...] (its vLLM template).
	{name: "phi4-tool-call-read", draft: "<|tool_call|>[{\"name\": \"read_file\", \"arguments\": {\"path\": \"greet.py\"}}]<|/tool_call|>", verb: VerbRead, path: "greet.py", shape: shapeCallTag},
	{name: "phi4-functools-run", draft: "functools[{\"name\": \"run_tests\", \"arguments\": {}}]", verb: VerbRun, shape: shapeCallTag},
	{name: "phi4-tool-call-patch", draft: "<|tool_call|>{\"name\": \"edit_file\", \"arguments\": {\"file_path\": \"greet.py\", \"old_string\": " + oldJS + ", \"new_string\": " + newJS + "}}</|tool_call|>", verb: VerbPatch, path: "greet.py", shape: shapeCallTag},

	// Mistral, tokenizer v3: [TOOL_CALLS] then a JSON list.
	{name: "mistral-tool-calls-list-read", draft: "[TOOL_CALLS] [{\"name\": \"read_file\", \"arguments\": {\"path\": \"greet.py\"}}]", verb: VerbRead, path: "greet.py", shape: shapeCallTag},
	{name: "mistral-tool-calls-list-write", draft: "[TOOL_CALLS] [{\"name\": \"create_file\", \"arguments\": {\"filename\": \"initials.py\", \"content\": " + initJS + "}}]", verb: VerbWrite, path: "initials.py", shape: shapeCallTag},
	{name: "mistral-tool-calls-list-done", draft: "[TOOL_CALLS] [{\"name\": \"finish\", \"arguments\": {\"message\": \"initials added; tests pass\"}}]", verb: VerbDone, shape: shapeCallTag},
	// Mistral, tokenizer v11 on (Devstral, Magistral): NAME[ARGS]{...}.
	{name: "mistral-args-read", draft: "[TOOL_CALLS]read_file[ARGS]{\"path\": \"greet.py\"}", verb: VerbRead, path: "greet.py", shape: shapeCallTag},
	{name: "mistral-args-call-id-run", draft: "[TOOL_CALLS]run_tests[CALL_ID]a1b2c3d4e[ARGS]{}", verb: VerbRun, shape: shapeCallTag},
	{name: "mistral-args-str-replace", draft: "[TOOL_CALLS]str_replace[ARGS]{\"path\": \"greet.py\", \"old_str\": " + oldJS + ", \"new_str\": " + newJS + "}", verb: VerbPatch, path: "greet.py", shape: shapeCallTag},
	{name: "fail-mistral-args-two-files", draft: "[TOOL_CALLS]read_file[ARGS]{\"path\": \"greet.py\"}[TOOL_CALLS]read_file[ARGS]{\"path\": \"tests/test_greet.py\"}", err: "2 different calls", code: codeAmbiguous, shape: shapeCallTag},

	// DeepSeek-V3 and R1: the call tokens, "function", the name, a json
	// fence; V3.1: the name, the separator, the JSON.
	{name: "deepseek-r1-read", draft: dsCallsBegin + dsCallBegin + "function" + dsSep + "read_file\n```json\n{\"path\": \"greet.py\"}\n```" + dsCallEnd + dsCallsEnd, verb: VerbRead, path: "greet.py", shape: shapeCallTag},
	{name: "deepseek-v31-run", draft: dsCallsBegin + dsCallBegin + "run_tests" + dsSep + "{}" + dsCallEnd + dsCallsEnd, verb: VerbRun, shape: shapeCallTag},
	{name: "deepseek-write-after-chatter", draft: "The module does not exist yet; I will create it.\n\n" + dsCallsBegin + dsCallBegin + "write_file" + dsSep + "{\"path\": \"initials.py\", \"content\": " + initJS + "}" + dsCallEnd + dsCallsEnd, verb: VerbWrite, path: "initials.py", shape: shapeCallTag},

	// Gemma (Google's function-calling guide: ```tool_code with
	// print(default_api.NAME(...)); Gemma 3: a Python list of calls).
	{name: "gemma-tool-code-read", draft: "```tool_code\nprint(default_api.read_file(path=\"greet.py\"))\n```", verb: VerbRead, path: "greet.py", shape: shapePythonCall},
	{name: "code-agent-kept-result", draft: "Thought: I need the file.\nCode:\n```py\ncontent = read_file(path=\"greet.py\")\nprint(content)\n```<end_code>", verb: VerbRead, path: "greet.py", shape: shapePythonCall},
	{name: "code-agent-run", draft: "Code:\n```python\nresult = run_tests()\nprint(result)\n```", verb: VerbRun, shape: shapePythonCall},
	{name: "gemma-tool-code-run", draft: "Let me run the suite.\n```tool_code\nrun_tests()\n```", verb: VerbRun, shape: shapePythonCall},
	{name: "gemma-tool-code-write", draft: "```tool_code\ndefault_api.write_file(path=\"initials.py\", content=" + js(initBody) + ")\n```", verb: VerbWrite, path: "initials.py", shape: shapePythonCall},
	{name: "gemma3-pythonic-view", draft: "[view(path=\"greet.py\")]", verb: VerbRead, path: "greet.py", shape: shapePythonicList},

	// Bare JSON: a list of calls, an object after chatter, OpenAI's
	// {"type": "function", "function": {...}} with string arguments.
	{name: "json-list-read", draft: "[{\"name\": \"read_file\", \"arguments\": {\"path\": \"greet.py\"}}]", verb: VerbRead, path: "greet.py", shape: shapeJSONCall},
	{name: "json-object-after-chatter", draft: "Let me check the module.\n{\"tool\": \"view\", \"args\": {\"file_path\": \"greet.py\"}}", verb: VerbRead, path: "greet.py", shape: shapeJSONAction},
	{name: "json-openai-function-object", draft: "{\"type\": \"function\", \"function\": {\"name\": \"run_tests\", \"arguments\": \"{}\"}}", verb: VerbRun, shape: shapeJSONCall},

	// Cline and Roo Code: XML tool elements.
	{name: "cline-read-file", draft: "<thinking>\nThe greeting is built in greet.py.\n</thinking>\n\n<read_file>\n<path>greet.py</path>\n</read_file>", verb: VerbRead, path: "greet.py", shape: shapeXMLTool},
	{name: "cline-write-to-file", draft: "<write_to_file>\n<path>initials.py</path>\n<content>\n" + initBody + "</content>\n</write_to_file>", verb: VerbWrite, path: "initials.py", shape: shapeXMLTool},
	{name: "cline-replace-in-file", draft: "<replace_in_file>\n<path>greet.py</path>\n<diff>\n------- SEARCH\n" + greetOld + "\n=======\n" + greetNew + "\n+++++++ REPLACE\n</diff>\n</replace_in_file>", verb: VerbPatch, path: "greet.py", shape: shapeXMLTool},
	{name: "cline-execute-command", draft: "<execute_command>\n<command>python -m unittest discover -s tests</command>\n<requires_approval>false</requires_approval>\n</execute_command>", verb: VerbRun, shape: shapeXMLTool},
	{name: "cline-attempt-completion", draft: "<attempt_completion>\n<result>\ninitials(name) added to initials.py; the suite passes.\n</result>\n</attempt_completion>", verb: VerbDone, shape: shapeXMLTool},
	{name: "cline-ask-followup", draft: "<ask_followup_question>\n<question>Should initials keep the dots?</question>\n</ask_followup_question>", verb: VerbAsk, shape: shapeXMLTool},
	{name: "roo-apply-diff", draft: "<apply_diff>\n<path>greet.py</path>\n<diff>\n<<<<<<< SEARCH\n:start_line:2\n-------\n" + greetOld + "\n=======\n" + greetNew + "\n>>>>>>> REPLACE\n</diff>\n</apply_diff>", verb: VerbPatch, path: "greet.py", shape: shapeXMLTool},
	{name: "roo-read-file-args", draft: "<read_file>\n<args>\n  <file>\n    <path>greet.py</path>\n  </file>\n</args>\n</read_file>", verb: VerbRead, path: "greet.py", shape: shapeXMLTool},
	{name: "fail-cline-execute-rm", draft: "<execute_command>\n<command>rm -rf tests</command>\n<requires_approval>true</requires_approval>\n</execute_command>", err: "is a shell command", code: codeShellCommand, shape: shapeXMLTool},
	{name: "fail-cline-two-files", draft: "<read_file>\n<path>greet.py</path>\n</read_file>\n\n<read_file>\n<path>tests/test_greet.py</path>\n</read_file>", err: "2 different calls", code: codeAmbiguous, shape: shapeXMLTool},

	// Qwen3-Coder, OpenHands and SWE-agent: <function=NAME> with
	// <parameter=KEY> bodies (str_replace_editor, execute_bash, finish).
	{name: "qwen3-coder-read", draft: "<tool_call>\n<function=read_file>\n<parameter=path>\ngreet.py\n</parameter>\n</function>\n</tool_call>", verb: VerbRead, path: "greet.py", shape: shapeParameterTags},
	{name: "qwen3-coder-write", draft: "I'll add the module.\n\n<tool_call>\n<function=write_file>\n<parameter=path>\ninitials.py\n</parameter>\n<parameter=content>\n" + initBody + "</parameter>\n</function>\n</tool_call>", verb: VerbWrite, path: "initials.py", shape: shapeParameterTags},
	{name: "openhands-editor-view", draft: "<function=str_replace_editor>\n<parameter=command>view</parameter>\n<parameter=path>/workspace/greet.py</parameter>\n</function>", verb: VerbRead, path: "/workspace/greet.py", shape: shapeParameterTags},
	{name: "openhands-editor-create-new", draft: "<function=str_replace_editor>\n<parameter=command>create</parameter>\n<parameter=path>/workspace/initials.py</parameter>\n<parameter=file_text>\n" + initBody + "</parameter>\n</function>", verb: VerbWrite, path: "/workspace/initials.py", shape: shapeParameterTags},
	{name: "swe-agent-str-replace", draft: "<function=str_replace_editor>\n<parameter=command>str_replace</parameter>\n<parameter=path>/testbed/greet.py</parameter>\n<parameter=old_str>" + greetOld + "</parameter>\n<parameter=new_str>" + greetNew + "</parameter>\n</function>", verb: VerbPatch, path: "/testbed/greet.py", shape: shapeParameterTags},
	{name: "openhands-execute-bash", draft: "<function=execute_bash>\n<parameter=command>python -m unittest discover -s tests</parameter>\n</function>", verb: VerbRun, shape: shapeParameterTags},
	{name: "openhands-finish", draft: "<function=finish>\n<parameter=message>initials added; tests pass</parameter>\n</function>", verb: VerbDone, shape: shapeParameterTags},
	{name: "swe-agent-submit", draft: "<function=submit>\n</function>", verb: VerbDone, shape: shapeFunctionTag},

	// Command-R: "Action:" then a json fence holding a list of
	// {"tool_name", "parameters"}.
	{name: "command-r-read", draft: "Plan: I will read greet.py first.\nAction: ```json\n[\n    {\n        \"tool_name\": \"read_file\",\n        \"parameters\": {\"path\": \"greet.py\"}\n    }\n]\n```", verb: VerbRead, path: "greet.py", shape: shapeJSONAction},
	{name: "command-r-run", draft: "Action: ```json\n[\n    {\n        \"tool_name\": \"run_tests\",\n        \"parameters\": {}\n    }\n]\n```", verb: VerbRun, shape: shapeJSONAction},
	{name: "command-r-write", draft: "Action: ```json\n[\n    {\n        \"tool_name\": \"write_file\",\n        \"parameters\": {\"path\": \"initials.py\", \"content\": " + initJS + "}\n    }\n]\n```", verb: VerbWrite, path: "initials.py", shape: shapeJSONAction},

	// functionary v2: >>>NAME then the JSON arguments; >>>all is text.
	{name: "functionary-read", draft: ">>>read_file\n{\"path\": \"greet.py\"}", verb: VerbRead, path: "greet.py", shape: shapeCallTag},
	{name: "functionary-all-then-run", draft: ">>>all\nThe change is in; checking it.\n>>>run_tests\n{}", verb: VerbRun, shape: shapeCallTag},
	{name: "functionary-write", draft: ">>>write_file\n{\"path\": \"initials.py\", \"content\": " + initJS + "}", verb: VerbWrite, path: "initials.py", shape: shapeCallTag},

	// gpt-oss's harmony format: analysis is reasoning; a commentary
	// message to=functions.NAME is the call (the recipient in the channel
	// header or the role header); the final channel is the answer.
	{name: "harmony-call-read", draft: "<|channel|>analysis<|message|>Need to see how greet builds the string.<|end|><|start|>assistant<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{\"path\":\"greet.py\"}<|call|>", verb: VerbRead, path: "greet.py", shape: shapeCallTag},
	{name: "harmony-call-role-header-run", draft: "<|channel|>analysis<|message|>The patch is in; run the suite.<|end|><|start|>assistant to=functions.run_tests<|channel|>commentary json<|message|>{}<|call|>", verb: VerbRun, shape: shapeCallTag},
	{name: "harmony-final-done", draft: "<|channel|>analysis<|message|>All done; maybe READ greet.py again? No.<|end|><|start|>assistant<|channel|>final<|message|>DONE initials added; tests pass<|return|>", verb: VerbDone, shape: shapeThinkBlock},

	// Reasoning: the opening in the template, a cut block, a verb inside
	// the reasoning and another after it.
	{name: "think-opening-in-template", draft: "The suite may already fail; RUN tests first?\nNo: see the code.\n</think>\n\nREAD greet.py", verb: VerbRead, path: "greet.py", shape: shapeThinkBlock},
	{name: "fail-think-cut", draft: "<think>\nFirst READ greet.py, then WRITE initials.py with", err: "ended inside its reasoning", code: CodeReasoningCut, shape: shapeThinkBlock},
	{name: "think-verb-then-another", draft: "<think>\nWRITE greet.py\n```python\ndef greet(name):\n    return 1\n```\n</think>\nRUN tests", verb: VerbRun, shape: shapeThinkBlock},
	{name: "fail-harmony-cut", draft: "<|channel|>analysis<|message|>Let me READ greet.py and then", err: "ended inside its reasoning", code: CodeReasoningCut, shape: shapeThinkBlock},

	// A JSON file is data, not a call, though its "name" is a tool's.
	{name: "aider-whole-json-data", draft: "package.json\n```json\n{\n  \"name\": \"test\",\n  \"version\": \"1.0.0\"\n}\n```", verb: VerbWrite, path: "package.json", shape: shapeAiderWhole},

	// Calls in prose or in a file's code are not calls.
	{name: "prose-dotted-call-then-patch", draft: "os.path.join(root, name) is not the problem.\n\nPATCH greet.py\nFIND:\n```\n" + greetOld + "\n```\nREPLACE:\n```\n" + greetNew + "\n```", verb: VerbPatch, path: "greet.py"},
	{name: "aider-whole-keyword-to", draft: "notify.py\n```python\ndef notify(user):\n    send(to=user)\n```", verb: VerbWrite, path: "notify.py", shape: shapeAiderWhole},

	// Two files in one reply, whatever the format, are refused.
	{name: "fail-aider-whole-two-files", draft: "initials.py\n```python\n" + initBody + "```\n\ntests/test_initials.py\n```python\nimport unittest\n```", err: "two files", code: codeAmbiguous, shape: shapeAiderWhole},
	{name: "fail-aider-udiff-two-files", draft: "```diff\n--- a/greet.py\n+++ b/greet.py\n@@ ... @@\n def greet(name):\n-" + greetOld + "\n+" + greetNew + "\n--- /dev/null\n+++ b/initials.py\n@@ -0,0 +1,2 @@\n+def initials(name):\n+    return name\n```", err: "2 files", code: codeAmbiguous, shape: ShapeUnifiedDiff},
	{name: "fail-aider-diff-two-files", draft: "greet.py\n```\n<<<<<<< SEARCH\n" + greetOld + "\n=======\n" + greetNew + "\n>>>>>>> REPLACE\n```\n\ninitials.py\n```\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```", err: "two files", code: codeAmbiguous, shape: shapeAiderDiff},
}

// callSources are the formats callCases must cover, at least three drafts
// each, by a name prefix.
var callSources = []string{"qwen25-|granite-|hermes-", "phi4-", "mistral-tool-calls-", "mistral-args-|fail-mistral-args-", "deepseek-", "gemma", "json-list-|json-object-|json-openai-", "cline-|roo-|fail-cline-", "qwen3-coder-|openhands-|swe-agent-", "command-r-", "functionary-", "harmony-", "think-|fail-think-|fail-harmony-", "fail-aider-"}

func countPrefixed(alts string) int {
	n := 0
	for _, tc := range callCases {
		for _, p := range strings.Split(alts, "|") {
			if strings.HasPrefix(tc.name, p) {
				n++
				break
			}
		}
	}
	return n
}
