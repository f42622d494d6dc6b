package harness

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pyharness/pyharness/schemas"
)

// callLoopCases play the golden drafts of draft/calls_test.go (the call
// formats and reasoning forms) through the real loop.
var callLoopCases = []loopCase{
	readCase("qwen25-tool-call-after-chatter", "1-2", "READ greet.py"),
	runCase("granite-tool-call-list", "RUN tests"),
	writeInitials("hermes-tool-call-write", "WRITE initials.py"),

	readCase("phi4-tool-call-read", "1-2", "READ greet.py"),
	runCase("phi4-functools-run", "RUN tests"),
	patchGreet("phi4-tool-call-patch"),

	readCase("mistral-tool-calls-list-read", "1-2", "READ greet.py"),
	writeInitials("mistral-tool-calls-list-write", "WRITE initials.py"),
	doneCase("mistral-tool-calls-list-done"),
	readCase("mistral-args-read", "1-2", "READ greet.py"),
	runCase("mistral-args-call-id-run", "RUN tests"),
	patchGreet("mistral-args-str-replace"),
	refused("fail-mistral-args-two-files", schemas.CodeAmbiguousDraft),

	readCase("deepseek-r1-read", "1-2", "READ greet.py"),
	runCase("deepseek-v31-run", "RUN tests"),
	writeInitials("deepseek-write-after-chatter", "WRITE initials.py"),

	readCase("gemma-tool-code-read", "1-2", "READ greet.py"),
	runCase("gemma-tool-code-run", "RUN tests"),
	writeInitials("gemma-tool-code-write", "WRITE initials.py"),
	readCase("gemma3-pythonic-view", "1-2", "READ greet.py"),

	readCase("json-list-read", "1-2", "READ greet.py"),
	readCase("json-object-after-chatter", "1-2", "READ greet.py"),
	runCase("json-openai-function-object", "RUN tests"),

	readCase("cline-read-file", "1-2", "READ greet.py"),
	writeInitials("cline-write-to-file", "WRITE initials.py"),
	patchGreet("cline-replace-in-file"),
	runCase("cline-execute-command", "RUN tests"),
	doneCase("cline-attempt-completion"),
	{golden: "cline-ask-followup", code: schemas.CodeNoAnswer, readAs: "ASK Should initials keep the dots?"},
	patchGreet("roo-apply-diff"),
	readCase("roo-read-file-args", "1-2", "READ greet.py"),
	refused("fail-cline-execute-rm", schemas.CodeShellCommand),
	refused("fail-cline-two-files", schemas.CodeAmbiguousDraft),

	readCase("qwen3-coder-read", "1-2", "READ greet.py"),
	writeInitials("qwen3-coder-write", "WRITE initials.py"),
	// OpenHands and SWE-agent name files under their roots: a file that is
	// here is read as that file; a new one is outside the repository.
	readCase("openhands-editor-view", "1-2", "READ greet.py"),
	{golden: "openhands-editor-create-new", code: schemas.CodeOutsideScope, readAs: "WRITE /workspace/initials.py"},
	patchGreet("swe-agent-str-replace"),
	runCase("openhands-execute-bash", "RUN tests"),
	doneCase("openhands-finish"),
	doneCase("swe-agent-submit"),

	readCase("command-r-read", "1-2", "READ greet.py"),
	runCase("command-r-run", "RUN tests"),
	writeInitials("command-r-write", "WRITE initials.py"),

	readCase("functionary-read", "1-2", "READ greet.py"),
	runCase("functionary-all-then-run", "RUN tests"),
	writeInitials("functionary-write", "WRITE initials.py"),

	readCase("harmony-call-read", "1-2", "READ greet.py"),
	runCase("harmony-call-role-header-run", "RUN tests"),
	doneCase("harmony-final-done"),

	readCase("think-opening-in-template", "1-2", ""),
	refused("fail-think-cut", schemas.CodeReasoningCut),
	runCase("think-verb-then-another", ""),
	refused("fail-harmony-cut", schemas.CodeReasoningCut),

	{golden: "aider-whole-json-data", file: "package.json", content: "{\n  \"name\": \"test\",\n  \"version\": \"1.0.0\"\n}\n", readAs: "WRITE package.json"},

	{golden: "aider-whole-keyword-to", file: "notify.py", content: "def notify(user):\n    send(to=user)\n", readAs: "WRITE notify.py"},
	refused("fail-aider-whole-two-files", schemas.CodeAmbiguousDraft),
	refused("fail-aider-udiff-two-files", schemas.CodeAmbiguousDraft),
	refused("fail-aider-diff-two-files", schemas.CodeAmbiguousDraft),
}

// The guards hold whatever format a draft came in: a write repeated in
// another format is a repeat, a write outside the scope is refused, a
// shell command is never run.
func TestGuardsWhateverFormat(t *testing.T) {
	golden := func(name string) string {
		b, err := os.ReadFile(filepath.Join("draft", "testdata", name+".draft"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	t.Run("repeat-patch", func(t *testing.T) {
		out := runScripted(t, fixture, Config{InPlace: true}, golden("hermes-tool-call-write"), golden("cline-write-to-file"))
		if c := out.turns[1].Outcome.Code; c != schemas.CodeRepeatPatch {
			t.Errorf("the same write as a Cline element after a Hermes call: code %q, want %s", c, schemas.CodeRepeatPatch)
		}
	})
	t.Run("outside-scope", func(t *testing.T) {
		out := runScripted(t, fixture, Config{InPlace: true, TaskSpec: schemas.TaskSpec{Scope: []string{"tests/**"}}}, golden("qwen3-coder-write"))
		if c := out.turns[0].Outcome.Code; c != schemas.CodeOutsideScope {
			t.Errorf("a Qwen3-Coder write outside --scope: code %q, want %s", c, schemas.CodeOutsideScope)
		}
		if _, err := os.Stat(filepath.Join(out.repo, "initials.py")); err == nil {
			t.Error("initials.py was written outside the scope")
		}
	})
	t.Run("shell-command", func(t *testing.T) {
		out := runScripted(t, fixture, Config{InPlace: true}, "<function=execute_bash>\n<parameter=command>rm -rf tests</parameter>\n</function>")
		if c := out.turns[0].Outcome.Code; c != schemas.CodeShellCommand {
			t.Errorf("an OpenHands rm: code %q, want %s", c, schemas.CodeShellCommand)
		}
		intact(t, out.repo, fixture)
	})
}
