package draft

// The output formats of local models and agent frameworks, each written as
// its public documentation shows it (docs/harness.md cites the source per
// shape), with the file names of a small Python project (greet.py,
// tests/test_greet.py, initials.py). harness/foreign_test.go plays the same
// drafts through the real loop.

const (
	greetOld = `    return "Hello, " + name`
	greetNew = `    return "Hello, " + name.strip()`
	initBody = "def initials(name):\n    return \" \".join(p[0] + \".\" for p in name.split())\n"
)

var foreignCases = []parseCase{
	// 1. Llama 3.1 tool calls written as text (Meta's llama3_1 prompt
	// format: JSON based tool calling, user-defined <function> tool calling;
	// Ollama's llama3.1 template renders calls as {"name", "parameters"}).
	{name: "llama31-python-tag-json", draft: "<|python_tag|>{\n    \"type\": \"function\",\n    \"name\": \"read_file\",\n    \"parameters\": {\n        \"path\": \"greet.py\"\n    }\n}<|eom_id|>", verb: VerbRead, path: "greet.py", shape: shapePythonTag},
	{name: "llama31-name-parameters", draft: `{"name": "run_tests", "parameters": {}}`, verb: VerbRun, shape: shapeJSONCall},
	{name: "llama31-function-tag", draft: `<function=read_file>{"path": "greet.py", "start": 1, "end": 2}</function><|eot_id|>`, verb: VerbRead, path: "greet.py", shape: shapeFunctionTag},
	{name: "llama31-function-tag-write", draft: `<function=write_file>{"path": "initials.py", "content": "def initials(name):\n    return \" \".join(p[0] + \".\" for p in name.split())\n"}</function>`, verb: VerbWrite, path: "initials.py", shape: shapeFunctionTag},
	{name: "llama31-python-tag-after-chatter", draft: "I will look at the module first.\n<|python_tag|>{\"type\": \"function\", \"name\": \"read_file\", \"parameters\": {\"path\": \"greet.py\"}}<|eom_id|>", verb: VerbRead, path: "greet.py", shape: shapePythonTag},

	// 2. Llama 3.2 pythonic calls (Meta's llama3_2 text prompt format).
	{name: "llama32-pythonic-read", draft: `[read_file(path="greet.py")]<|eot_id|>`, verb: VerbRead, path: "greet.py", shape: shapePythonicList},
	{name: "llama32-pythonic-run", draft: `[run_tests()]`, verb: VerbRun, shape: shapePythonicList},
	{name: "llama32-pythonic-patch", draft: `[patch_file(path='greet.py', find='` + greetOld + `', replace='` + greetNew + `')]`, verb: VerbPatch, path: "greet.py", shape: shapePythonicList},
	{name: "llama32-pythonic-two-calls", draft: `[read_file(path="greet.py"), read_file(path="tests/test_greet.py")]`, err: "2 different calls", code: codeAmbiguous, shape: shapePythonicList},
	{name: "llama32-python-tag-list", draft: `<|python_tag|>[read_file(path="greet.py")]<|eot_id|>`, verb: VerbRead, path: "greet.py", shape: shapePythonicList},
	{name: "fail-llama32-unknown-function", draft: `[delete_file(path="greet.py")]`, err: "unknown tool", shape: shapePythonicList},

	// 3. JSON action objects (LangChain's structured-chat agent:
	// {"action": ..., "action_input": ...}, "Final Answer" to finish).
	{name: "json-action-structured-chat", draft: f + "json\n{\n  \"action\": \"read_file\",\n  \"action_input\": {\"path\": \"greet.py\"}\n}\n" + f, verb: VerbRead, path: "greet.py", shape: shapeJSONAction},
	{name: "json-action-structured-chat-blob", draft: "Thought: I should read the module first.\nAction:\n" + f + "\n{\n  \"action\": \"read_file\",\n  \"action_input\": {\"path\": \"greet.py\"}\n}\n" + f, verb: VerbRead, path: "greet.py", shape: shapeJSONAction},
	{name: "json-action-final-answer", draft: f + "json\n{\n  \"action\": \"Final Answer\",\n  \"action_input\": \"greet strips the name; tests pass\"\n}\n" + f, verb: VerbDone, shape: shapeJSONAction},
	{name: "json-action-verb-path", draft: `{"action": "READ", "path": "greet.py"}`, verb: VerbRead, path: "greet.py", shape: shapeJSONAction},
	{name: "json-action-name-path", draft: `{"name": "read_file", "path": "greet.py"}`, verb: VerbRead, path: "greet.py", shape: shapeJSONAction},
	{name: "json-action-tool-args", draft: `{"tool": "run_tests", "args": {}}`, verb: VerbRun, shape: shapeJSONAction},
	{name: "json-action-command-line", draft: `{"command": "RUN tests"}`, verb: VerbRun, shape: shapeJSONAction},
	{name: "json-action-string-input", draft: `{"action": "read_file", "action_input": "greet.py"}`, verb: VerbRead, path: "greet.py", shape: shapeJSONAction},

	// 4. ReAct (LangChain's classic agent prompt: Thought / Action /
	// Action Input / Observation, Final Answer).
	{name: "react-action-input", draft: "Thought: I need to see how greet builds the greeting.\nAction: READ\nAction Input: greet.py", verb: VerbRead, path: "greet.py", shape: shapeReAct},
	{name: "react-json-input", draft: "Thought: Read the module first.\nAction: read_file\nAction Input: {\"path\": \"greet.py\"}", verb: VerbRead, path: "greet.py", shape: shapeReAct},
	{name: "react-run", draft: "Thought: The change is in; check it.\nAction: RUN\nAction Input: tests", verb: VerbRun, shape: shapeReAct},
	{name: "react-path-window", draft: "Action: READ\nPath: greet.py:1-2", verb: VerbRead, path: "greet.py", shape: shapeReAct},
	{name: "react-write", draft: "Thought: The module does not exist yet.\nAction: WRITE\nAction Input: initials.py\n" + f + "python\n" + initBody + f, verb: VerbWrite, path: "initials.py", shape: shapeReAct},
	{name: "react-final-answer", draft: "Thought: I now know the final answer\nFinal Answer: greet strips the name; tests pass", verb: VerbDone, shape: shapeReAct},
	{name: "fail-react-unknown-action", draft: "Thought: look around\nAction: Search\nAction Input: greet", err: "unknown action", shape: shapeReAct},

	// 5. Shell-agent blocks (mini-swe-agent: THOUGHT, then exactly one
	// bash block with one command; SWE-agent's file viewing commands).
	{name: "shell-cat", draft: "THOUGHT: Let me look at the module first.\n\n" + f + "bash\ncat greet.py\n" + f, verb: VerbRead, path: "greet.py", shape: shapeShellBlock},
	{name: "shell-nl-sed-window", draft: "THOUGHT: View the function with line numbers.\n\n" + f + "mswea_bash_command\nnl -ba greet.py | sed -n '1,2p'\n" + f, verb: VerbRead, path: "greet.py", shape: shapeShellBlock},
	{name: "shell-sed-window", draft: f + "bash\nsed -n '2,2p' greet.py\n" + f, verb: VerbRead, path: "greet.py", shape: shapeShellBlock},
	{name: "shell-head", draft: f + "bash\nhead -n 1 greet.py\n" + f, verb: VerbRead, path: "greet.py", shape: shapeShellBlock},
	{name: "shell-tail", draft: f + "bash\ntail -n 1 greet.py\n" + f, verb: VerbRead, path: "greet.py", shape: shapeShellBlock},
	{name: "shell-unittest", draft: "THOUGHT: Run the suite to check the change.\n\n" + f + "bash\npython -m unittest discover -s tests -t .\n" + f, verb: VerbRun, shape: shapeShellBlock},
	{name: "shell-pytest", draft: f + "bash\npytest -q tests\n" + f, verb: VerbRun, shape: shapeShellBlock},
	{name: "shell-pytest-output-trimmed", draft: "THOUGHT: Run the tests and show the end of the output.\n\n" + f + "mswea_bash_command\npython -m pytest tests/ -x 2>&1 | tail -20\n" + f, verb: VerbRun, shape: shapeShellBlock},
	{name: "fail-shell-rm", draft: "THOUGHT: Start from a clean directory.\n\n" + f + "bash\nrm -rf .\n" + f, err: "is a shell command", code: codeShellCommand, shape: shapeShellBlock},
	{name: "fail-shell-sed-edit", draft: f + "bash\nsed -i 's/+ name/+ name.strip()/' greet.py\n" + f, err: "PATCH path", code: codeShellCommand, shape: shapeShellBlock},
	{name: "fail-shell-heredoc", draft: "THOUGHT: Create the module.\n\n" + f + "bash\ncat <<'EOF' > initials.py\n" + initBody + "EOF\n" + f, err: "WRITE path", code: codeShellCommand, shape: shapeShellBlock},
	{name: "fail-shell-grep", draft: f + "bash\ngrep -rn greet .\n" + f, err: "SKILL locate", code: codeShellCommand, shape: shapeShellBlock},
	{name: "fail-shell-two-files", draft: f + "bash\ncat greet.py tests/test_greet.py\n" + f, err: "2 files", code: codeAmbiguous, shape: shapeShellBlock},

	// 6. Aider's edit formats (aider.chat edit-formats: whole, diff,
	// diff-fenced, udiff).
	{name: "aider-whole", draft: "initials.py\n" + f + "\n" + initBody + f, verb: VerbWrite, path: "initials.py", shape: shapeAiderWhole},
	{name: "aider-whole-with-chatter", draft: "I'll create the module with the function.\n\ninitials.py\n" + f + "python\n" + initBody + f + "\n", verb: VerbWrite, path: "initials.py", shape: shapeAiderWhole},
	{name: "aider-diff", draft: "greet.py\n" + f + "\n<<<<<<< SEARCH\n" + greetOld + "\n=======\n" + greetNew + "\n>>>>>>> REPLACE\n" + f, verb: VerbPatch, path: "greet.py", shape: shapeAiderDiff},
	{name: "aider-diff-fenced", draft: f + "\ngreet.py\n<<<<<<< SEARCH\n" + greetOld + "\n=======\n" + greetNew + "\n>>>>>>> REPLACE\n" + f, verb: VerbPatch, path: "greet.py", shape: shapeAiderDiff},
	{name: "aider-diff-python-fence", draft: "Strip the name before greeting.\n\ngreet.py\n" + f + "python\n<<<<<<< SEARCH\n" + greetOld + "\n=======\n" + greetNew + "\n>>>>>>> REPLACE\n" + f, verb: VerbPatch, path: "greet.py", shape: shapeAiderDiff},
	{name: "aider-udiff", draft: f + "diff\n--- greet.py\n+++ greet.py\n@@ ... @@\n def greet(name):\n-" + greetOld + "\n+" + greetNew + "\n" + f, verb: VerbPatch, path: "greet.py", shape: ShapeUnifiedDiff},
	{name: "aider-udiff-patch-line", draft: "PATCH greet.py\n" + f + "diff\n@@ ... @@\n def greet(name):\n-" + greetOld + "\n+" + greetNew + "\n" + f, verb: VerbPatch, path: "greet.py", shape: ShapeUnifiedDiff},
	{name: "aider-udiff-two-hunks", draft: f + "diff\n--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,2 @@\n def load(path):\n-    return open(path).read()\n+    return open(path, encoding=\"utf-8\").read()\n@@ -5,2 +5,2 @@\n def save(path, text):\n-    open(path, \"w\").write(text)\n+    open(path, \"w\", encoding=\"utf-8\").write(text)\n" + f, verb: VerbPatch, path: "app.py", shape: ShapeUnifiedDiff},
	{name: "aider-udiff-new-file", draft: f + "diff\n--- /dev/null\n+++ b/initials.py\n@@ -0,0 +1,2 @@\n+def initials(name):\n+    return \" \".join(p[0] + \".\" for p in name.split())\n" + f, verb: VerbWrite, path: "initials.py", shape: ShapeUnifiedDiff},
	{name: "fail-udiff-other-file", draft: "PATCH greet.py\n" + f + "diff\n--- a/other.py\n+++ b/other.py\n@@ ... @@\n-x = 1\n+x = 2\n" + f, err: "names greet.py", code: codeAmbiguous, shape: ShapeUnifiedDiff},
	{name: "fail-udiff-no-context", draft: f + "diff\n--- a/greet.py\n+++ b/greet.py\n@@ ... @@\n+import sys\n" + f, err: "no context", shape: ShapeUnifiedDiff},

	// 7. The file named inside or beside the fence.
	{name: "named-comment", draft: f + "python\n# initials.py\n" + initBody + f, verb: VerbWrite, path: "initials.py", shape: shapeFenceNameComment},
	{name: "named-comment-file-label", draft: "Here you go.\n\n" + f + "python\n# File: initials.py\n" + initBody + f, verb: VerbWrite, path: "initials.py", shape: shapeFenceNameComment},
	{name: "named-info-colon", draft: f + "python:initials.py\n" + initBody + f, verb: VerbWrite, path: "initials.py", shape: shapeFenceInfoName},
	{name: "named-info-title", draft: f + "python title=\"initials.py\"\n" + initBody + f, verb: VerbWrite, path: "initials.py", shape: shapeFenceInfoName},
	{name: "named-sentence", draft: "Here is the updated `greet.py`:\n\n" + f + "python\ndef greet(name):\n" + greetNew + "\n" + f, verb: VerbWrite, path: "greet.py", shape: shapeFenceNameSentence},
	{name: "fail-named-two-names", draft: "Here is the updated `greet.py`:\n\n" + f + "python\n# File: initials.py\n" + initBody + f, err: "named greet.py", code: codeAmbiguous, shape: shapeFenceNameSentence},
	{name: "fail-write-names-another-file", draft: "WRITE greet.py\n" + f + "python\n# initials.py\n" + initBody + f, err: "names greet.py", code: codeAmbiguous},
	{name: "fail-snippet-not-a-file", draft: "The bug is in `greet.py`:\n\n" + f + "python\n" + greetOld + "\n" + f, err: "no action verb found"},

	// 8. Leaked special tokens of chat templates (Llama 3: <|eot_id|>,
	// <|eom_id|>; ChatML: <|im_start|>, <|im_end|>; Phi-3: <|end|>;
	// GPT-2 family: <|endoftext|>; Llama 2 and Mistral: </s>).
	{name: "token-eot-after-read", draft: "READ greet.py<|eot_id|>", verb: VerbRead, path: "greet.py"},
	{name: "token-chatml", draft: "<|im_start|>assistant\nRUN tests<|im_end|>", verb: VerbRun},
	{name: "token-end-then-made-up-turn", draft: "READ greet.py<|end|>\n<|user|>\ndef greet(name): ...", verb: VerbRead, path: "greet.py"},
	{name: "token-endoftext-after-write", draft: "WRITE initials.py\n" + f + "python\n" + initBody + f + "<|endoftext|>", verb: VerbWrite, path: "initials.py"},
	{name: "token-eos-after-done", draft: "DONE greet strips the name; tests pass</s>", verb: VerbDone},

	// 9. Verbs in odd places.
	{name: "odd-verb-after-chatter", draft: "Running the tests now: RUN tests", verb: VerbRun, shape: shapeVerbAfterChatter},
	{name: "odd-verb-after-dash", draft: "Let me look at the module first - READ greet.py", verb: VerbRead, path: "greet.py", shape: shapeVerbAfterChatter},
	{name: "odd-bracketed-action", draft: "[READ greet.py]", verb: VerbRead, path: "greet.py", shape: shapeBracketedAction},
	{name: "odd-bracketed-run", draft: "Next step:\n[RUN tests]", verb: VerbRun, shape: shapeBracketedAction},
	{name: "odd-task-complete", draft: "greet now strips spaces from the name and the suite passes.\n\nTASK COMPLETE", verb: VerbDone, shape: shapeDoneAlias},
	{name: "odd-path-among-words", draft: "READ the file greet.py", verb: VerbRead, path: "greet.py", shape: shapePathAmongWords},
	{name: "odd-path-among-words-no-extension", draft: "READ the Makefile", verb: VerbRead, path: "the", shape: shapePathAmongWords},
	{name: "odd-path-among-words-write", draft: "WRITE the new module initials.py\n" + f + "python\n" + initBody + f, verb: VerbWrite, path: "initials.py", shape: shapePathAmongWords},
	{name: "fail-verb-mid-sentence", draft: "Next I will READ greet.py and then decide.", err: "no action verb found"},
}
