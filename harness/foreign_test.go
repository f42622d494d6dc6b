package harness

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/harness/draft"
	"github.com/pyharness/pyharness/schemas"
)

const (
	greetPatched = "def greet(name):\n    return \"Hello, \" + name.strip()\n"
	initialsBody = "def initials(name):\n    return \" \".join(p[0] + \".\" for p in name.split())\n"
	appSource    = "def load(path):\n    return open(path).read()\n\n\ndef save(path, text):\n    open(path, \"w\").write(text)\n"
	appPatched   = "def load(path):\n    return open(path, encoding=\"utf-8\").read()\n\n\ndef save(path, text):\n    open(path, \"w\", encoding=\"utf-8\").write(text)\n"
)

// loopCase plays one golden draft of draft through the real loop
// and says what must have happened.
type loopCase struct {
	golden string            // draft/testdata/<golden>.draft
	files  map[string]string // on top of the greet fixture
	before []string          // drafts sent before it
	code   schemas.Code      // the outcome code; "" when applied
	// file and content: the file as the step leaves it.
	file, content string
	// shown is text the model is sent after the step (a READ's window,
	// the suite's result); readAs the canonical form it is shown.
	shown, readAs string
	done          bool // a DONE that ends the run
}

func readCase(golden, window, readAs string) loopCase {
	return loopCase{golden: golden, shown: "greet.py (lines " + window + " of 2):", readAs: readAs}
}

func runCase(golden, readAs string) loopCase {
	return loopCase{golden: golden, shown: "Tests: 1 ran, all passed.", readAs: readAs}
}

func writeInitials(golden, readAs string) loopCase {
	return loopCase{golden: golden, file: "initials.py", content: initialsBody, readAs: readAs}
}

func patchGreet(golden string) loopCase {
	return loopCase{golden: golden, before: []string{readGreet}, file: "greet.py", content: greetPatched, readAs: "PATCH greet.py, then FIND: and REPLACE: blocks"}
}

func refused(golden string, code schemas.Code) loopCase {
	return loopCase{golden: golden, code: code}
}

func doneCase(golden string) loopCase {
	return loopCase{golden: golden, before: []string{writeInitOK, runTests}, done: true}
}

var loopCases = []loopCase{
	// JSON tool calls (Qwen 2.5's <tool_call>, the OpenAI wire form with
	// string arguments).
	{golden: "json-call-text", files: map[string]string{"x.py": "x = 1\n"}, shown: "x.py (lines 1-1 of 1):", readAs: "READ x.py"},
	{golden: "json-call-tool-call-tags", file: "x.py", content: "print(1)\n", readAs: "WRITE x.py"},
	doneCase("json-call-in-fence"),
	{golden: "json-call-string-arguments", files: map[string]string{"src/app.py": strings.Repeat("x = 1\n", 50)}, shown: "src/app.py (lines 10-40 of 50):", readAs: "READ src/app.py:10-40"},
	readCase("llama31-python-tag-json", "1-2", "READ greet.py"),
	runCase("llama31-name-parameters", "RUN tests"),
	readCase("llama31-function-tag", "1-2", "READ greet.py:1-2"),
	writeInitials("llama31-function-tag-write", "WRITE initials.py"),
	readCase("llama31-python-tag-after-chatter", "1-2", "READ greet.py"),
	// A code agent's step (smolagents): the call in a Python fence, its
	// result kept in a variable.
	readCase("code-agent-kept-result", "1-2", "READ greet.py"),
	runCase("code-agent-run", "RUN tests"),
	readCase("llama32-pythonic-read", "1-2", "READ greet.py"),
	runCase("llama32-pythonic-run", "RUN tests"),
	patchGreet("llama32-pythonic-patch"),
	refused("llama32-pythonic-two-calls", schemas.CodeAmbiguousDraft),
	readCase("llama32-python-tag-list", "1-2", "READ greet.py"),
	refused("fail-llama32-unknown-function", schemas.CodeParseFailed),

	readCase("json-action-structured-chat", "1-2", "READ greet.py"),
	readCase("json-action-structured-chat-blob", "1-2", "READ greet.py"),
	doneCase("json-action-final-answer"),
	readCase("json-action-verb-path", "1-2", "READ greet.py"),
	readCase("json-action-name-path", "1-2", "READ greet.py"),
	runCase("json-action-tool-args", "RUN tests"),
	runCase("json-action-command-line", "RUN tests"),
	readCase("json-action-string-input", "1-2", "READ greet.py"),

	readCase("react-action-input", "1-2", "READ greet.py"),
	readCase("react-json-input", "1-2", "READ greet.py"),
	runCase("react-run", "RUN tests"),
	readCase("react-path-window", "1-2", "READ greet.py:1-2"),
	writeInitials("react-write", "WRITE initials.py"),
	doneCase("react-final-answer"),
	refused("fail-react-unknown-action", schemas.CodeParseFailed),

	readCase("shell-cat", "1-2", "READ greet.py"),
	readCase("shell-nl-sed-window", "1-2", "READ greet.py:1-2"),
	readCase("shell-sed-window", "2-2", "READ greet.py:2-2"),
	readCase("shell-head", "1-1", "READ greet.py:1-1"),
	readCase("shell-tail", "2-2", "READ greet.py:2-2"),
	runCase("shell-unittest", "RUN tests"),
	runCase("shell-pytest", "RUN tests"),
	runCase("shell-pytest-output-trimmed", "RUN tests"),
	refused("fail-shell-rm", schemas.CodeShellCommand),
	refused("fail-shell-sed-edit", schemas.CodeShellCommand),
	refused("fail-shell-heredoc", schemas.CodeShellCommand),
	refused("fail-shell-grep", schemas.CodeShellCommand),
	refused("fail-shell-two-files", schemas.CodeAmbiguousDraft),

	writeInitials("aider-whole", "WRITE initials.py"),
	writeInitials("aider-whole-with-chatter", "WRITE initials.py"),
	patchGreet("aider-diff"),
	patchGreet("aider-diff-fenced"),
	patchGreet("aider-diff-python-fence"),
	patchGreet("aider-udiff"),
	patchGreet("aider-udiff-patch-line"),
	{golden: "aider-udiff-two-hunks", files: map[string]string{"app.py": appSource}, before: []string{"READ app.py"}, file: "app.py", content: appPatched, readAs: "PATCH app.py"},
	writeInitials("aider-udiff-new-file", "WRITE initials.py"),
	refused("fail-udiff-other-file", schemas.CodeAmbiguousDraft),
	refused("fail-udiff-no-context", schemas.CodeParseFailed),

	writeInitials("named-comment", "WRITE initials.py"),
	writeInitials("named-comment-file-label", "WRITE initials.py"),
	writeInitials("named-info-colon", "WRITE initials.py"),
	writeInitials("named-info-title", "WRITE initials.py"),
	{golden: "named-sentence", file: "greet.py", content: greetPatched, readAs: "WRITE greet.py"},
	refused("fail-named-two-names", schemas.CodeAmbiguousDraft),
	refused("fail-write-names-another-file", schemas.CodeAmbiguousDraft),
	refused("fail-snippet-not-a-file", schemas.CodeParseFailed),

	readCase("token-eot-after-read", "1-2", ""),
	runCase("token-chatml", ""),
	readCase("token-end-then-made-up-turn", "1-2", ""),
	writeInitials("token-endoftext-after-write", ""),
	doneCase("token-eos-after-done"),

	runCase("odd-verb-after-chatter", "RUN tests"),
	readCase("odd-verb-after-dash", "1-2", "READ greet.py"),
	readCase("odd-bracketed-action", "1-2", "READ greet.py"),
	runCase("odd-bracketed-run", "RUN tests"),
	doneCase("odd-task-complete"),
	readCase("odd-path-among-words", "1-2", "READ greet.py"),
	{golden: "odd-path-among-words-no-extension", files: map[string]string{"Makefile": "test:\n\tpython -m unittest\n"}, shown: "Makefile (lines 1-2 of 2):", readAs: "READ Makefile"},
	writeInitials("odd-path-among-words-write", "WRITE initials.py"),
	refused("fail-verb-mid-sentence", schemas.CodeParseFailed),
}

// Every golden draft of a documented foreign format, played through the
// real loop with a scripted model: the file as the step leaves it, the
// window a READ shows, the suite result a RUN reports, the canonical form
// the model is shown, and for a refused draft its code and an untouched
// workspace (a shell command is never run).
func TestForeignFormatsThroughTheLoop(t *testing.T) {
	covered := map[string]bool{}
	for _, lc := range append(append([]loopCase{}, loopCases...), callLoopCases...) {
		covered[lc.golden] = true
		t.Run(lc.golden, func(t *testing.T) {
			// Each case has its own workspace; most of the time is the
			// suite's, which other cases need not wait for.
			t.Parallel()
			raw, err := os.ReadFile(filepath.Join("draft", "testdata", lc.golden+".draft"))
			if err != nil {
				t.Fatal(err)
			}
			files := map[string]string{}
			for k, v := range fixture {
				files[k] = v
			}
			for k, v := range lc.files {
				files[k] = v
			}
			drafts := append(append([]string{}, lc.before...), string(raw))
			out := runScripted(t, files, Config{InPlace: true}, drafts...)
			step := len(lc.before)
			if step >= len(out.turns) {
				t.Fatalf("the run stopped after %d turns", len(out.turns))
			}
			turn := out.turns[step]
			if turn.Outcome.Code != lc.code {
				t.Fatalf("outcome %+v; want code %q", turn.Outcome, lc.code)
			}
			var sent string
			if step+1 < len(out.turns) {
				msgs := out.turns[step+1].Sent.Messages
				sent = msgs[len(msgs)-1].Content
			}
			switch {
			case lc.done:
				if out.res.End.StopReason != schemas.StopDone || turn.Outcome.Status != schemas.StatusStopped {
					t.Fatalf("DONE not accepted: stop %q, outcome %+v", out.res.End.StopReason, turn.Outcome)
				}
			case lc.code != "":
				if turn.Outcome.Status != schemas.StatusRefused || len(turn.Outcome.FilesChanged) != 0 {
					t.Fatalf("outcome %+v; want refused with nothing changed", turn.Outcome)
				}
				intact(t, out.repo, files)
				if !strings.Contains(sent, string(lc.code)) && lc.code != schemas.CodeParseFailed {
					t.Errorf("the refusal sent does not name %s:\n%s", lc.code, sent)
				}
			default:
				if turn.Outcome.Status != schemas.StatusApplied {
					t.Fatalf("outcome %+v; want applied", turn.Outcome)
				}
			}
			if lc.file != "" {
				b, err := os.ReadFile(filepath.Join(out.repo, lc.file))
				if err != nil || string(b) != lc.content {
					t.Errorf("%s after the step = %q, %v; want %q", lc.file, b, err, lc.content)
				}
			}
			if lc.shown != "" && !strings.Contains(sent, lc.shown) {
				t.Errorf("the model was sent %q; want it to show %q", sent, lc.shown)
			}
			if lc.readAs != "" {
				if n := strings.Count(sent, "Read as: "+lc.readAs); n != 1 {
					t.Errorf("the model was sent %q; want \"Read as: %s\" once", sent, lc.readAs)
				}
			} else if strings.Contains(sent, "Read as:") {
				t.Errorf("a canonical draft was answered with its canonical form: %q", sent)
			}
		})
	}
	// Every golden of a foreign format or a refusal is played here.
	goldens, err := filepath.Glob(filepath.Join("draft", "testdata", "*.draft"))
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range goldens {
		name := strings.TrimSuffix(filepath.Base(g), ".draft")
		raw, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(strings.TrimSuffix(g, ".draft") + ".calls.json"); err == nil {
			continue
		}
		a, perr := draft.Parse(string(raw), nil)
		var pe *draft.Error
		foreign := perr == nil && draft.Foreign(a.Shape)
		if errors.As(perr, &pe) {
			foreign = pe.Code != "" || draft.Foreign(pe.Shape)
		}
		if (foreign || strings.HasPrefix(name, "token-")) && !covered[name] {
			t.Errorf("golden draft %s (a documented foreign format) is not played through the loop", name)
		}
	}
}

// intact checks that every file of the repository is as it was.
func intact(t *testing.T, repo string, files map[string]string) {
	t.Helper()
	for name, want := range files {
		b, err := os.ReadFile(filepath.Join(repo, name))
		if err != nil || string(b) != want {
			t.Errorf("%s after a refused draft = %q, %v; want it untouched", name, b, err)
		}
	}
	var extra []string
	filepath.WalkDir(repo, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(repo, p)
		rel = filepath.ToSlash(rel)
		if _, ok := files[rel]; !ok && !strings.Contains(rel, "__pycache__") {
			extra = append(extra, rel)
		}
		return nil
	})
	if len(extra) > 0 {
		slices.Sort(extra)
		t.Errorf("files appeared after a refused draft: %v", extra)
	}
}
