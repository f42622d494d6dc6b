package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/internal/gguf"
	"github.com/pyharness/pyharness/internal/testkit/wiretest"
	"github.com/pyharness/pyharness/schemas/trace"
)

// glmTemplate is GLM-4.6's published chat template: it writes a call as
// the name after <tool_call>, then each argument as <arg_key> and
// <arg_value> tags, which no general reader reads.
func glmTemplate(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs("../../harness/draft/learn/testdata/templates/GLM-4.6.jinja")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// glmWrite is a GLM call writing greet.py, its body holding the tags that
// close the call.
const glmWrite = "<tool_call>write_file\n<arg_key>path</arg_key>\n<arg_value>greet.py</arg_value>\n<arg_key>content</arg_key>\n<arg_value>def greet(name):\n    return \"Hello, \" + name  # </arg_value></tool_call>\n</arg_value>\n</tool_call>"

func TestDraftChatTemplate(t *testing.T) {
	reply := filepath.Join(t.TempDir(), "reply.txt")
	if err := os.WriteFile(reply, []byte(glmWrite), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, "draft", "--chat-template", glmTemplate(t), reply)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	for _, want := range []string{"learned from the chat template:", `"<tool_call>" NAME`, `"\n<arg_key>" KEY`, "verb:       WRITE", "path:       greet.py", "shape:      template-syntax", `reasoning: "<think>" … "</think>"`} {
		if !strings.Contains(out, want) {
			t.Errorf("draft --chat-template prints no %q:\n%s", want, out)
		}
	}
	// Without the template the call is read by its structure, not by
	// the template's syntax.
	code, out, _ = runCLI(t, "draft", reply)
	if strings.Contains(out, "template-syntax") || strings.Contains(out, "learned from") {
		t.Errorf("without --chat-template, draft says it used a template: exit %d\n%s", code, out)
	}
	code, _, stderr = runCLI(t, "draft", "--chat-template", filepath.Join(t.TempDir(), "missing.jinja"), reply)
	if code != exitUsage || !strings.Contains(stderr, "missing.jinja") {
		t.Errorf("a missing template: exit %d, want %d naming the file\n%s", code, exitUsage, stderr)
	}
}

// kimiTemplate is Kimi K3's chat template: calls as <|open|>call
// tool="NAME"… with one <|open|>argument key="KEY"… per argument, and
// reasoning that the generation prompt opens, closed by <|close|>think.
func kimiTemplate(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs("../../harness/draft/learn/testdata/templates/Kimi-K3.jinja")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// ggufWithTemplate writes a GGUF that holds only the chat template of
// the file at src, as a model's file carries it.
func ggufWithTemplate(t *testing.T, src string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "sha256-model")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	kv := []gguf.KV{{Key: "general.architecture", Type: gguf.TypeString, Value: "llama"}, {Key: "tokenizer.chat_template", Type: gguf.TypeString, Value: string(b)}}
	if err := gguf.Write(f, kv, nil); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRunChatTemplate: with --chat-template, run reads the model's calls
// and reasoning the way its template writes them (shape template-syntax),
// and run_start records which template the syntax was learned from.
func TestRunChatTemplate(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "script.jsonl")
	const (
		think = "<|close|>think<|sep|>"
		call  = `<|open|>tools<|sep|><|open|>call tool="%s" index="1"<|sep|>%s<|close|>call<|sep|><|close|>tools`
		arg   = `<|open|>argument key="%s" type="string"<|sep|>%s<|close|>argument<|sep|>`
	)
	body := "def greet(name):\n    return \"Hello, \" + name  # <|close|>call\n"
	var lines []string
	for _, content := range []string{
		"I will write it." + think + fmt.Sprintf(call, "write_file", fmt.Sprintf(arg, "path", "greet.py")+fmt.Sprintf(arg, "content", body)),
		"Maybe READ test_greet.py first." + think + fmt.Sprintf(call, "run_tests", ""),
		"Done." + think + "<|open|>response<|sep|>DONE greet kept; tests pass",
	} {
		b, _ := json.Marshal(map[string]string{"content": content})
		lines = append(lines, string(b))
	}
	if err := os.WriteFile(script, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(dir, "repo")
	writeFiles(t, repo, map[string]string{"greet.py": "def greet(name):\n    return \"Hello, \" + name\n", "test_greet.py": greetTest})
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runCLI(t, "run", "--repo", repo, "--task", "Check greet", "--model", "scripted:"+script, "--chat-template", kimiTemplate(t), "--in-place", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	runs := 0
	for run, err := range trace.Runs(t.Context(), out) {
		if err != nil {
			t.Fatal(err)
		}
		runs++
		cs := run.Start.Model.ChatSyntax
		if cs == nil || !strings.HasPrefix(cs.Template, "sha256:") || cs.From != kimiTemplate(t) || !strings.Contains(cs.Calls, "argument key=") || !strings.Contains(cs.Reasoning, "opened by the generation prompt") {
			t.Fatalf("run_start chat_syntax = %+v, want Kimi K3's learned from the file", cs)
		}
		if len(run.Turns) != 3 {
			t.Fatalf("%d turns, want 3", len(run.Turns))
		}
		if a := run.Turns[0].Action; a.Verb != "WRITE" || a.Path != "greet.py" {
			t.Errorf("turn 1 read as %+v, want the call's WRITE greet.py", a)
		}
		if r := run.Turns[0].Reply.Content; !strings.HasPrefix(r, "I will write it."+think) || !strings.Contains(r, `<|open|>argument key="content"`) {
			t.Errorf("turn 1 does not keep the reply as the model wrote it: %q", r)
		}
		if sh := run.Turns[0].Action.Shape; !strings.Contains(sh, "template-syntax") {
			t.Errorf("turn 1's shape %q does not say the reply was read with the template's syntax", sh)
		}
		if a, r := run.Turns[1].Action, run.Turns[1].Reasoning; a.Verb != "RUN" || r == nil || !strings.Contains(r.Text, "READ test_greet.py") {
			t.Errorf("turn 2 read as %+v with reasoning %+v, want RUN, the READ kept in the reasoning", a, r)
		}
		if a := run.Turns[2].Action; a.Verb != "DONE" {
			t.Errorf("turn 3 read as %+v, want DONE", a)
		}
	}
	if runs != 1 {
		t.Fatalf("%d runs", runs)
	}
	got, err := os.ReadFile(filepath.Join(repo, "greet.py"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != body {
		t.Errorf("greet.py = %q, want %q", got, body)
	}

	// Without the template the same replies are read by their structure
	// alone, and run_start records no syntax.
	out = filepath.Join(dir, "out2")
	writeFiles(t, repo, map[string]string{"greet.py": "def greet(name):\n    return \"Hello, \" + name\n"})
	runCLI(t, "run", "--repo", repo, "--task", "Check greet", "--model", "scripted:"+script, "--in-place", "--out", out)
	for run, err := range trace.Runs(t.Context(), out) {
		if err != nil {
			t.Fatal(err)
		}
		if len(run.Turns) == 0 || strings.Contains(run.Turns[0].Action.Shape, "template-syntax") || run.Start.Model.ChatSyntax != nil {
			t.Errorf("without --chat-template: chat_syntax %+v, turn 1 read as %+v; want no syntax", run.Start.Model.ChatSyntax, run.Turns[0].Action)
		}
	}
}

// TestRunLearnsServerTemplate: with no --chat-template, run learns the
// syntax from the template the server reports (the recorded llama-server's
// /props, the recorded Ollama's /api/show) and records it, or that there
// is none to learn.
func TestRunLearnsServerTemplate(t *testing.T) {
	const done = "DONE nothing to change: `return \"Hello, \" + name` is right"
	repo := t.TempDir()
	writeFiles(t, repo, map[string]string{"greet.py": "def greet(name):\n    return \"Hello, \" + name\n", "test_greet.py": greetTest})
	cases := []struct {
		name      string
		args      func() []string
		from      string
		calls     string
		reasoning string
		none      string
	}{
		{"llama-server", func() []string {
			srv := wiretest.NewLlamaServer(t)
			srv.Push(wiretest.Text("READ greet.py"), wiretest.Text("RUN tests"), wiretest.Text(done))
			return []string{"--model", "openai:tiny", "--base-url", srv.URL, "--num-ctx", "2048"}
		}, "llama-server /props", `\"parameters\": ARGS`, "", ""},
		{"ollama thinking", func() []string {
			srv := wiretest.NewOllama(t)
			srv.Thinking, srv.Trained = true, wiretest.Trained4096
			srv.Push(wiretest.Text("READ greet.py"), wiretest.Text("RUN tests"), wiretest.Text(done))
			return []string{"--model", "ollama:tiny", "--base-url", srv.URL, "--num-ctx", "4096"}
		}, "Ollama /api/show", "", `"<think>" … "</think>", opened by the generation prompt when thinking is on`, ""},
		{"ollama tools", func() []string {
			srv := wiretest.NewOllama(t)
			srv.Show, srv.Trained = "show-tools", wiretest.Trained4096
			srv.Push(wiretest.Text(`[TOOL_CALLS] [{"name": "read_file", "arguments": {"path": "greet.py"}}]`), wiretest.Text("RUN tests"), wiretest.Text(done))
			return []string{"--model", "ollama:tiny", "--base-url", srv.URL, "--num-ctx", "4096"}
		}, "Ollama /api/show", `[TOOL_CALLS] [{\"name\": \"NAME\", \"arguments\": ARGS}`, "", ""},
		{"ollama model file", func() []string {
			// A local Ollama's /api/show names the model's GGUF: its own
			// Jinja template (Kimi K3's here) is what the syntax is
			// learned from, not the Go template.
			srv := wiretest.NewOllama(t)
			srv.Show, srv.Trained, srv.Weights = "show-tools", wiretest.Trained4096, ggufWithTemplate(t, kimiTemplate(t))
			srv.Push(wiretest.Text(`<|open|>tools<|sep|><|open|>call tool="read_file" index="1"<|sep|><|open|>argument key="path"<|sep|>greet.py<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools`), wiretest.Text("RUN tests"), wiretest.Text(done))
			return []string{"--model", "ollama:tiny", "--base-url", srv.URL, "--num-ctx", "4096"}
		}, "Ollama's model file (its GGUF's tokenizer.chat_template)", "argument key=", "", ""},
		{"ollama plain", func() []string {
			srv := wiretest.NewOllama(t)
			srv.Trained = wiretest.Trained4096
			srv.Push(wiretest.Text("READ greet.py"), wiretest.Text("RUN tests"), wiretest.Text(done))
			return []string{"--model", "ollama:tiny", "--base-url", srv.URL, "--num-ctx", "4096"}
		}, "Ollama /api/show", "", "", "the template writes neither tool calls nor reasoning"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			args := append([]string{"run", "--repo", repo, "--task", "Check greet", "--out", out}, tc.args()...)
			code, stdout, stderr := runCLI(t, args...)
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
			}
			for run, err := range trace.Runs(t.Context(), out) {
				if err != nil {
					t.Fatal(err)
				}
				cs := run.Start.Model.ChatSyntax
				if cs == nil {
					t.Fatal("run_start records no chat_syntax")
				}
				if cs.From != tc.from || !strings.HasPrefix(cs.Template, "sha256:") || !strings.Contains(cs.Calls, tc.calls) || cs.Reasoning != tc.reasoning && tc.reasoning != "" || cs.None != tc.none {
					t.Errorf("chat_syntax = %+v, want from %s, calls with %q, reasoning %q, none %q", cs, tc.from, tc.calls, tc.reasoning, tc.none)
				}
			}
		})
	}
}

// TestCollectManifestChatTemplate: a manifest entry's chat_template, a
// path relative to the manifest, is the template its runs' replies are
// read with and run_start records; without it the same replies do not
// read.
func TestCollectManifestChatTemplate(t *testing.T) {
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	writeFiles(t, repo, map[string]string{"greet.py": "def greet(name):\n    return \"Hello, \" + name\n", "test_greet.py": greetTest})
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"}} {
		if out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	src, err := os.ReadFile(kimiTemplate(t))
	if err != nil {
		t.Fatal(err)
	}
	const (
		think = "<|close|>think<|sep|>"
		call  = `<|open|>tools<|sep|><|open|>call tool="run_tests" index="1"<|sep|><|close|>call<|sep|><|close|>tools`
	)
	var lines []string
	for _, content := range []string{"Maybe READ greet.py first." + think + call, "READ greet.py", "Done." + think + "<|open|>response<|sep|>DONE greet kept; `return \"Hello, \" + name` is right"} {
		b, _ := json.Marshal(map[string]string{"content": content})
		lines = append(lines, string(b))
	}
	entry := "entries:\n  - id: greet\n    repo: repo\n    task: Check greet\n    script: drafts.jsonl\n"
	writeFiles(t, dir, map[string]string{
		"drafts.jsonl":       strings.Join(lines, "\n") + "\n",
		"templates/k3.jinja": string(src),
		"with.yaml":          entry + "    chat_template: templates/k3.jinja\n",
		"without.yaml":       entry,
		"missing.yaml":       entry + "    chat_template: templates/none.jinja\n",
	})
	for _, tc := range []struct {
		manifest string
		learned  bool
	}{{"with.yaml", true}, {"without.yaml", false}} {
		out := filepath.Join(dir, "out-"+tc.manifest)
		code, stdout, stderr := runCLI(t, "collect", "--model", "scripted", "--manifest", filepath.Join(dir, tc.manifest), "--passes", "1", "--out", out)
		// Without the syntax the script runs out before its DONE reads.
		if code != 0 && tc.learned {
			t.Fatalf("%s: exit %d\n%s\n%s", tc.manifest, code, stdout, stderr)
		}
		runs := 0
		for run, err := range trace.Runs(t.Context(), out) {
			if err != nil {
				t.Fatal(err)
			}
			runs++
			cs := run.Start.Model.ChatSyntax
			if len(run.Turns) == 0 {
				t.Fatalf("%s: no turns", tc.manifest)
			}
			a, r := run.Turns[0].Action, run.Turns[0].Reasoning
			if tc.learned {
				if cs == nil || cs.From != filepath.Join(dir, "templates", "k3.jinja") || !strings.Contains(cs.Calls, "argument key=") {
					t.Errorf("run_start chat_syntax = %+v, want Kimi K3's, from the entry's template", cs)
				}
				if a.Verb != "RUN" || !strings.Contains(a.Shape, "template-syntax") || r == nil || !strings.Contains(r.Text, "READ greet.py") {
					t.Errorf("turn 1 read as %+v with reasoning %+v, want RUN by the template's syntax, the READ kept in the reasoning", a, r)
				}
			} else if cs != nil || a.Verb == "RUN" && strings.Contains(a.Shape, "template-syntax") {
				t.Errorf("without chat_template: chat_syntax %+v, turn 1 %+v", cs, a)
			}
		}
		if runs != 1 {
			t.Fatalf("%s: %d runs", tc.manifest, runs)
		}
	}
	code, _, stderr := runCLI(t, "collect", "--model", "scripted", "--manifest", filepath.Join(dir, "missing.yaml"), "--passes", "1", "--out", filepath.Join(dir, "out-missing"))
	if code != exitUsage || !strings.Contains(stderr, "chat_template") || !strings.Contains(stderr, "none.jinja") {
		t.Errorf("a chat_template that is not there: exit %d, want %d naming it\n%s", code, exitUsage, stderr)
	}
}
