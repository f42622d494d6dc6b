package harness

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pyharness/pyharness/harness/model"
	"github.com/pyharness/pyharness/harness/model/ollama"
	"github.com/pyharness/pyharness/internal/testkit/wiretest"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

// snapshotTree reads every file of a directory, for byte-for-byte checks.
func snapshotTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[rel] = b
		return nil
	})
	return out
}

func TestScriptedRunWorksAndLeavesTheRepositoryUnchanged(t *testing.T) {
	repo := t.TempDir()
	writeTree(t, repo, fixture)
	before := snapshotTree(t, repo)
	cfg := Config{RunID: "solve", OutDir: t.TempDir(), Repo: repo, TaskSpec: schemas.TaskSpec{Task: "Add initials(name) to initials.py", Targets: []string{"initials.py"}, Names: []string{"initials"}},
		Model: schemas.Model{Backend: "scripted", Name: "t"}}
	res, err := Run(context.Background(), cfg, script(t, readGreet, writeInitOK, runTests, doneSummary))
	if err != nil {
		t.Fatal(err)
	}
	e := res.End
	if e.Verdict != schemas.VerdictWorked || e.StopReason != schemas.StopDone || !e.ClaimedDone {
		t.Fatalf("verdict %s stop %s claimed %v, want worked/done", e.Verdict, e.StopReason, e.ClaimedDone)
	}
	if len(e.Writes) != 1 || e.Writes[0] != (schemas.Write{Path: "initials.py", Added: 2}) {
		t.Errorf("writes = %+v", e.Writes)
	}
	patch, err := os.ReadFile(res.PatchPath)
	if err != nil || !strings.Contains(string(patch), "+def initials(name):") || string(patch) != e.Patch {
		t.Errorf("patch file %s: %q (err %v)", res.PatchPath, patch, err)
	}
	after := snapshotTree(t, repo)
	if len(after) != len(before) {
		t.Fatalf("the source repository gained or lost files: %d → %d", len(before), len(after))
	}
	for name, b := range before {
		if !bytes.Equal(after[name], b) {
			t.Errorf("the run changed %s in the source repository", name)
		}
	}
	if e.SuiteBefore.Ran != 1 || e.SuiteAfter.Passed != 1 {
		t.Errorf("suite counts before %+v after %+v", e.SuiteBefore, e.SuiteAfter)
	}
}

func TestBrokenImportStopsWithinTwoSteps(t *testing.T) {
	breakImport := "WRITE greet.py\n```python\nimport not_a_module_anywhere\n\ndef greet(name):\n    return \"Hello, \" + name.strip()\n```"
	out := runScripted(t, fixture, Config{TaskSpec: schemas.TaskSpec{Targets: []string{"greet.py"}, Subject: "greet", Task: "Make greet strip the name"}},
		breakImport, runTests, "DONE fixed")
	e := out.res.End
	if e.StopReason != schemas.StopBrokeSuite {
		t.Fatalf("stop reason %s, want broke-suite", e.StopReason)
	}
	if e.Steps > 2 {
		t.Errorf("stopped after %d steps, want within two", e.Steps)
	}
	if out.res.BrokeSuite != "greet.py" {
		t.Errorf("broken by %q, want greet.py", out.res.BrokeSuite)
	}
	if out.turns[0].Outcome.Code != schemas.CodeSuiteBroken || !strings.Contains(out.turns[0].Outcome.Message, "not_a_module_anywhere") {
		t.Errorf("step 1 outcome %+v: want suite-broken naming the missing module", out.turns[0].Outcome)
	}
	if e.SuiteAfter.ImportError == "" || e.Verdict != schemas.VerdictFailed {
		t.Errorf("suite after %+v verdict %s", e.SuiteAfter, e.Verdict)
	}
}

func TestRepeatedPatchStopsAndIsNeverWritten(t *testing.T) {
	out := runScripted(t, fixture, Config{TaskSpec: schemas.TaskSpec{Targets: []string{"greet.py"}, Subject: "greet", Task: "Make greet strip the name"}},
		readGreet, patchGreetOK, patchGreetOK, patchGreetOK, runTests, doneSummary)
	e := out.res.End
	if e.StopReason != schemas.StopRepeatPatch {
		t.Fatalf("stop reason %s, want repeat-patch", e.StopReason)
	}
	for i, turn := range out.turns[2:] {
		if len(turn.Outcome.FilesChanged) != 0 {
			t.Errorf("repeat %d wrote %v", i+1, turn.Outcome.FilesChanged)
		}
	}
	if strings.Count(e.Patch, "name.strip()") != 1 {
		t.Errorf("patch applies the change %d times:\n%s", strings.Count(e.Patch, "name.strip()"), e.Patch)
	}
}

func TestRepeatedWriteStopsOnTheSecondRepeat(t *testing.T) {
	out := runScripted(t, fixture, Config{TaskSpec: schemas.TaskSpec{Targets: []string{"initials.py"}, Names: []string{"initials"}}},
		writeInitOK, writeInitOK, writeInitOK, runTests, doneSummary)
	e := out.res.End
	if e.StopReason != schemas.StopRepeatPatch || e.Steps != 3 {
		t.Fatalf("stop %s after %d steps, want repeat-patch after 3", e.StopReason, e.Steps)
	}
	if c := out.turns[1].Outcome; c.Status != schemas.StatusRefused || c.Code != schemas.CodeRepeatPatch || len(c.FilesChanged) != 0 {
		t.Errorf("first repeat: %+v", c)
	}
	if c := out.turns[2].Outcome; c.Status != schemas.StatusStopped || len(c.FilesChanged) != 0 {
		t.Errorf("second repeat: %+v", c)
	}
}

func ollamaBackend(t *testing.T, srv *wiretest.Ollama, name string) *ollama.Client {
	t.Helper()
	c, err := ollama.New(ollama.Config{Host: srv.URL, Model: name, IdleTimeout: 5 * time.Second,
		Retry: model.Retry{Sleep: func(ctx context.Context, d time.Duration) error { return nil }}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestOllamaRunRecordsServerMetricsAndRetriesACutStream(t *testing.T) {
	srv := wiretest.NewOllama(t)
	srv.Push(
		wiretest.Text(readGreet),
		wiretest.Text(writeInitOK).CutAfter(3), // the server dies mid-reply
		wiretest.Text(writeInitOK),
		wiretest.Text(runTests),
		wiretest.Text(doneSummary),
	)
	repo := t.TempDir()
	writeTree(t, repo, fixture)
	cfg := Config{RunID: "ollama-run", OutDir: t.TempDir(), Repo: repo, TaskSpec: schemas.TaskSpec{Task: "Add initials(name) to initials.py", Targets: []string{"initials.py"}, Names: []string{"initials"}},
		Model: schemas.Model{Backend: "ollama", Name: "tiny", Options: schemas.Options{NumCtx: 4096, NumPredict: 512}}}
	res, err := Run(context.Background(), cfg, ollamaBackend(t, srv, "tiny"))
	if err != nil {
		t.Fatal(err)
	}
	if res.End.Verdict != schemas.VerdictWorked {
		t.Fatalf("verdict %s (%s)", res.End.Verdict, res.End.Error)
	}
	run, err := trace.ReadRun(trace.File{RunID: "ollama-run", Path: res.TracePath})
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.ChatRequests()
	for i, turn := range run.Turns {
		m := turn.Metrics
		if m.PromptTokens == nil || *m.PromptTokens <= 0 || m.OutputTokens == nil || *m.OutputTokens <= 0 || m.TotalMS <= 0 || m.EvalMS == nil || *m.EvalMS <= 0 {
			t.Errorf("step %d metrics not from the final chunk: %+v", i+1, m)
		}
		if turn.Reply.FinishReason != "stop" {
			t.Errorf("step %d finish reason %q", i+1, turn.Reply.FinishReason)
		}
	}
	cut := run.Turns[1]
	if len(cut.Attempts) != 2 || cut.Attempts[0].Error == "" || !strings.Contains(cut.Attempts[0].Error, model.CodeStreamCut) || cut.Attempts[1].Error != "" {
		t.Errorf("the cut stream's attempts were not recorded: %+v", cut.Attempts)
	}
	if len(run.Turns) != 4 || len(reqs) != 5 {
		t.Errorf("%d steps and %d chat requests, want 4 steps and 5 requests (one retried)", len(run.Turns), len(reqs))
	}
	// Every request sent num_ctx explicitly, and truncation off.
	for i, r := range reqs {
		if v, _ := r.Lookup("options", "num_ctx"); v != float64(4096) {
			t.Errorf("request %d num_ctx = %v", i, v)
		}
		if v, _ := r.Lookup("truncate"); v != false {
			t.Errorf("request %d truncate = %v", i, v)
		}
	}
}

func TestOllamaModelNotFoundEndsAsModelError(t *testing.T) {
	srv := wiretest.NewOllama(t)
	repo := t.TempDir()
	writeTree(t, repo, fixture)
	cfg := Config{RunID: "nf", OutDir: t.TempDir(), Repo: repo, TaskSpec: schemas.TaskSpec{Task: "Add initials"},
		Model: schemas.Model{Backend: "ollama", Name: "llama3.1:8b"}}
	res, err := Run(context.Background(), cfg, ollamaBackend(t, srv, "llama3.1:8b"))
	if err != nil {
		t.Fatal(err)
	}
	e := res.End
	if e.Verdict != schemas.VerdictError || e.StopReason != schemas.StopModelError || e.FailureClass != "" {
		t.Fatalf("verdict %s stop %s class %q, want error/model-error", e.Verdict, e.StopReason, e.FailureClass)
	}
	if !strings.Contains(e.Error, "model 'llama3.1:8b' not found") {
		t.Errorf("the server's message is not recorded: %q", e.Error)
	}
	if n := len(srv.ChatRequests()); n != 1 {
		t.Errorf("a missing model was asked %d times; it must not be retried", n)
	}
}

// A twenty-step run on a real module and its real tests (CPython's
// textwrap) against the Ollama test server at a small context: every prompt
// fits num_ctx - num_predict as the server counts it, and what was left out
// is recorded.
func TestTwentyStepsStayWithinTheContext(t *testing.T) {
	srv := wiretest.NewOllama(t)
	drafts := []string{
		"SKILL outline textwrap.py", "READ textwrap.py", "READ textwrap.py:60-140", "READ textwrap.py:140-260",
		"READ test_textwrap.py", "SKILL locate shorten", "READ textwrap.py:380-491", "READ test_textwrap.py:200-330",
		"RUN tests", "READ textwrap.py:1-59", "READ test_textwrap.py:330-520", "SKILL locate dedent",
		"READ textwrap.py:260-380", "READ test_textwrap.py:520-700", "SKILL outline test_textwrap.py", "READ test_textwrap.py:700-900",
		"READ test_textwrap.py:900-1080", "SKILL locate TextWrapper", "READ textwrap.py:100-200", "READ test_textwrap.py:1-100",
	}
	for _, d := range drafts {
		srv.Push(wiretest.Text(d))
	}
	files := map[string]string{}
	for _, name := range []string{"textwrap.py", "test_textwrap.py"} {
		b, err := os.ReadFile(filepath.Join("testdata", "textwrap", name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = string(b)
	}
	repo := t.TempDir()
	writeTree(t, repo, files)
	const numCtx, numPredict = 2048, 256
	cfg := Config{RunID: "textwrap", OutDir: t.TempDir(), Repo: repo, TaskSpec: schemas.TaskSpec{Suite: "python3 -m unittest test_textwrap", Task: "shorten() should keep a word that is exactly as long as the width", Targets: []string{"textwrap.py"}},
		Model: schemas.Model{Backend: "ollama", Name: "tiny", Options: schemas.Options{NumCtx: numCtx, NumPredict: numPredict}}}
	res, err := Run(context.Background(), cfg, ollamaBackend(t, srv, "tiny"))
	if err != nil {
		t.Fatal(err)
	}
	if res.End.StopReason != schemas.StopBudget || res.End.Steps != 20 {
		t.Fatalf("stop %s after %d steps (%s), want the 20-step budget", res.End.StopReason, res.End.Steps, res.End.Error)
	}
	run, err := trace.ReadRun(trace.File{RunID: "textwrap", Path: res.TracePath})
	if err != nil {
		t.Fatal(err)
	}
	elided := 0
	var conv schemas.Conversation
	for _, turn := range run.Turns {
		if _, err := conv.Apply(turn); err != nil {
			t.Fatalf("step %d: %v", turn.Step, err)
		}
		if n, _ := schemas.Count(turn.Metrics.PromptTokens); n > numCtx-numPredict {
			t.Errorf("step %d: the server counted %d prompt tokens, over the budget of %d", turn.Step, n, numCtx-numPredict)
		}
		for _, w := range turn.Warnings {
			t.Logf("step %d warning: %s", turn.Step, w)
		}
		elided += len(turn.Sent.Elided)
	}
	if elided == 0 {
		t.Error("twenty steps of reading a 1,500-line module in 1,792 tokens elided nothing")
	}
	for _, r := range srv.ChatRequests() {
		var contents []string
		msgs, _ := r.Lookup("messages")
		for _, m := range msgs.([]any) {
			contents = append(contents, m.(map[string]any)["content"].(string))
		}
		if n := wiretest.CountPrompt(contents); n > numCtx-numPredict {
			t.Errorf("a request of %d tokens (server count) was sent", n)
		}
	}
	t.Logf("%d elisions over %d steps; last prompt %d tokens of %d", elided, len(run.Turns), run.Turns[len(run.Turns)-1].Metrics.PromptTokens, numCtx-numPredict)
}

// --native-tools against a model that cannot take tools: the harness falls
// back to the text protocol once, records it, and the run goes on.
func TestNativeToolsFallBackToText(t *testing.T) {
	srv := wiretest.NewOllama(t) // the recorded model has no tools in its template
	for _, d := range []string{readGreet, writeInitOK, runTests, doneSummary} {
		srv.Push(wiretest.Text(d))
	}
	repo := t.TempDir()
	writeTree(t, repo, fixture)
	cfg := Config{RunID: "tools", OutDir: t.TempDir(), Repo: repo, TaskSpec: schemas.TaskSpec{Task: "Add initials", Targets: []string{"initials.py"}, Names: []string{"initials"}},
		NativeTools: true, Model: schemas.Model{Backend: "ollama", Name: "tiny"}}
	res, err := Run(context.Background(), cfg, ollamaBackend(t, srv, "tiny"))
	if err != nil {
		t.Fatal(err)
	}
	if res.End.Verdict != schemas.VerdictWorked {
		t.Fatalf("verdict %s (%s)", res.End.Verdict, res.End.Error)
	}
	run, _ := trace.ReadRun(trace.File{RunID: "tools", Path: res.TracePath})
	fellBack := 0
	for _, turn := range run.Turns {
		for _, w := range turn.Warnings {
			if strings.Contains(w, "tools-unsupported") {
				fellBack++
			}
		}
	}
	if fellBack != 1 {
		t.Errorf("the fallback was recorded %d times, want once", fellBack)
	}
	reqs := srv.ChatRequests()
	if _, ok := reqs[0].Lookup("tools"); !ok {
		t.Error("the first request offered no tools")
	}
	if _, ok := reqs[len(reqs)-1].Lookup("tools"); ok {
		t.Error("tools were offered again after the server refused them")
	}
}

// run --interactive: an ASK before any change goes to the person, and the
// answer to the model.
func TestInteractiveAsk(t *testing.T) {
	var asked string
	cfg := Config{TaskSpec: schemas.TaskSpec{Targets: []string{"initials.py"}, Names: []string{"initials"}},
		Ask: func(ctx context.Context, q string) (string, error) { asked = q; return "with dots", nil }}
	out := runScripted(t, fixture, cfg, "ASK Should initials have dots?", writeInitOK, runTests, doneSummary)
	if asked != "Should initials have dots?" {
		t.Errorf("the person was asked %q", asked)
	}
	if o := out.turns[0].Outcome; o.Status != schemas.StatusApplied || o.Code != "" {
		t.Errorf("ASK outcome %+v", o)
	}
	msgs := out.turns[1].Sent.Messages
	if !strings.Contains(msgs[len(msgs)-1].Content, "The person answered: with dots") {
		t.Errorf("the answer did not reach the model: %+v", msgs)
	}
}
