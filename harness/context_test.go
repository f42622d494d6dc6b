package harness

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pyharness/pyharness/harness/model"
	"github.com/pyharness/pyharness/harness/model/openai"
	"github.com/pyharness/pyharness/internal/testkit/wiretest"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

// textwrapDrafts read a 1,500-line module and its tests for twenty steps:
// the prompt outgrows any small window.
var textwrapDrafts = []string{
	"SKILL outline textwrap.py", "READ textwrap.py", "READ textwrap.py:60-140", "READ textwrap.py:140-260",
	"READ test_textwrap.py", "SKILL locate shorten", "READ textwrap.py:380-491", "READ test_textwrap.py:200-330",
	"RUN tests", "READ textwrap.py:1-59", "READ test_textwrap.py:330-520", "SKILL locate dedent",
	"READ textwrap.py:260-380", "READ test_textwrap.py:520-700", "SKILL outline test_textwrap.py", "READ test_textwrap.py:700-900",
	"READ test_textwrap.py:900-1080", "SKILL locate TextWrapper", "READ textwrap.py:100-200", "READ test_textwrap.py:1-100",
}

// textwrapConfig is a run over CPython's textwrap and its tests.
func textwrapConfig(t *testing.T, runID string, m schemas.Model) Config {
	t.Helper()
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
	return Config{RunID: runID, OutDir: t.TempDir(), Repo: repo, TaskSpec: schemas.TaskSpec{Suite: "python3 -m unittest test_textwrap", Task: "shorten() should keep a word that is exactly as long as the width", Targets: []string{"textwrap.py"}},
		Model: m}
}

// readTrace reads a finished run's trace back.
func readTrace(t *testing.T, res *Result) *trace.Run {
	t.Helper()
	run, err := trace.ReadRun(trace.File{RunID: res.Start.RunID, Path: res.TracePath})
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// sentContents are the message contents of a chat request as the server
// received it.
func sentContents(t *testing.T, r wiretest.Request) []string {
	t.Helper()
	msgs, _ := r.Lookup("messages")
	var contents []string
	for _, m := range msgs.([]any) {
		contents = append(contents, m.(map[string]any)["content"].(string))
	}
	return contents
}

// noResend fails when two requests in a row sent the same messages: a
// refused prompt sent again unchanged is refused again.
func noResend(t *testing.T, reqs []wiretest.Request) {
	t.Helper()
	for i := 1; i < len(reqs); i++ {
		if slices.Equal(sentContents(t, reqs[i-1]), sentContents(t, reqs[i])) {
			t.Errorf("request %d resent request %d's prompt unchanged (%d messages)", i+1, i, len(sentContents(t, reqs[i])))
		}
	}
}

// hasWarning reports whether a turn carries a warning with this code.
func hasWarning(turn *schemas.Turn, code schemas.Code) bool {
	return slices.ContainsFunc(turn.Warnings, func(w string) bool { return warningCode(w) == code })
}

// textwrapOllama is the recorded Ollama serving a model trained for 4096
// tokens (chat-numctx-above-trained), with the twenty textwrap drafts queued.
func textwrapOllama(t *testing.T) *wiretest.Ollama {
	t.Helper()
	srv := wiretest.NewOllama(t)
	srv.Trained = wiretest.Trained4096
	for _, d := range textwrapDrafts {
		srv.Push(wiretest.Text(d))
	}
	return srv
}

// --num-ctx 8192 against a model trained for 4096
// (recorded: show-tiny, chat-numctx-above-trained, ps-after-numctx-8192).
// The run budgets against the trained context, records requested, trained
// and effective sizes on run_start, warns, and over twenty steps sends no
// prompt larger than the trained context and nothing unchanged twice.
func TestNumCtxAboveTrainedBudgetsAgainstTheTrainedContext(t *testing.T) {
	srv := textwrapOllama(t)
	client := ollamaBackend(t, srv, "tiny")
	info, err := client.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	const numCtx, numPredict = 8192, 1024
	c := model.ResolveContext(numCtx, 0, info)
	cfg := textwrapConfig(t, "above-trained", schemas.Model{Backend: "ollama", Name: "tiny", Context: &c,
		Options: schemas.Options{NumCtx: numCtx, NumPredict: numPredict}})
	res, err := Run(context.Background(), cfg, client)
	if err != nil {
		t.Fatal(err)
	}
	if res.End.StopReason != schemas.StopBudget || res.End.Steps != 20 {
		t.Fatalf("stop %s after %d steps (%s), want the 20-step budget", res.End.StopReason, res.End.Steps, res.End.Error)
	}
	run := readTrace(t, res)
	want := schemas.ContextSizes{Requested: 8192, Sent: true, Trained: 4096, InForce: 4096, Effective: 4096, Source: schemas.ContextFromTrained}
	if got := run.Start.Model.Context; got == nil || *got != want {
		t.Errorf("run_start context = %+v, want %+v", got, want)
	}
	if !slices.ContainsFunc(run.End.Warnings, func(w string) bool {
		return strings.Contains(w, "--num-ctx 8192 is above the model's trained context 4096")
	}) {
		t.Errorf("run_end warnings %q do not say --num-ctx is above the trained context", run.End.Warnings)
	}
	reqs := srv.ChatRequests()
	largest := 0
	for i, r := range reqs {
		n := wiretest.CountPrompt(sentContents(t, r))
		largest = max(largest, n)
		if n > wiretest.Trained4096 {
			t.Errorf("request %d: a prompt of %d tokens (server count) was sent to a 4096-token context", i+1, n)
		}
	}
	noResend(t, reqs)
	elided := 0
	for _, turn := range run.Turns {
		elided += len(turn.Sent.Elided)
		if hasWarning(turn, schemas.CodeContextOverflow) {
			t.Errorf("step %d was refused: %q", turn.Step, turn.Warnings)
		}
	}
	if elided == 0 || largest < 2000 {
		t.Errorf("twenty steps of reading textwrap elided %d messages, largest prompt %d tokens: the run never came near the window", elided, largest)
	}
}

// The harness budgets against a window the server
// does not apply (num_ctx 8192 with the trained context unknown to it) and
// is refused (chat-numctx-above-trained). Each refit is smaller than the
// prompt refused, the attempts count up across the refits with each
// prompt's estimate and message count, and nothing is sent twice.
func TestOverflowRefitSendsASmallerPromptEachTime(t *testing.T) {
	srv := textwrapOllama(t)
	cfg := textwrapConfig(t, "refit", schemas.Model{Backend: "ollama", Name: "tiny",
		Options: schemas.Options{NumCtx: 8192, NumPredict: 1024}})
	res, err := Run(context.Background(), cfg, ollamaBackend(t, srv, "tiny"))
	if err != nil {
		t.Fatal(err)
	}
	if res.End.StopReason != schemas.StopBudget || res.End.Steps != 20 {
		t.Fatalf("stop %s after %d steps (%s), want the 20-step budget", res.End.StopReason, res.End.Steps, res.End.Error)
	}
	run := readTrace(t, res)
	refitted := 0
	for _, turn := range run.Turns {
		for i, a := range turn.Attempts {
			if a.N != i+1 {
				t.Errorf("step %d: attempt %d is numbered %d", turn.Step, i+1, a.N)
			}
			if a.PromptTokensEstimate <= 0 || a.Messages <= 0 {
				t.Errorf("step %d attempt %d records no prompt size: %+v", turn.Step, a.N, a)
			}
			if i > 0 && a.PromptTokensEstimate >= turn.Attempts[i-1].PromptTokensEstimate {
				t.Errorf("step %d: attempt %d estimated %d tokens, no smaller than attempt %d's %d", turn.Step, a.N, a.PromptTokensEstimate, i, turn.Attempts[i-1].PromptTokensEstimate)
			}
		}
		if hasWarning(turn, schemas.CodeContextOverflow) {
			refitted++
			if len(turn.Attempts) < 2 || turn.Attempts[0].Status != 400 {
				t.Errorf("step %d: a refit with attempts %+v", turn.Step, turn.Attempts)
			}
			if turn.Sent.PromptTokensEstimate != turn.Attempts[len(turn.Attempts)-1].PromptTokensEstimate {
				t.Errorf("step %d: sent estimate %d is not the last attempt's %d", turn.Step, turn.Sent.PromptTokensEstimate, turn.Attempts[len(turn.Attempts)-1].PromptTokensEstimate)
			}
		}
	}
	if refitted == 0 {
		t.Fatal("no step was refused: the test shows nothing about refits")
	}
	reqs := srv.ChatRequests()
	noResend(t, reqs)
	// What the server received: a refused prompt is followed by a smaller
	// one, and the run settles below the window it never stated.
	for i, r := range reqs {
		if n := wiretest.CountPrompt(sentContents(t, r)); n > wiretest.Trained4096 && i+1 < len(reqs) {
			if next := wiretest.CountPrompt(sentContents(t, reqs[i+1])); next >= n {
				t.Errorf("request %d (%d tokens) was refused and followed by one of %d", i+1, n, next)
			}
		}
	}
	last := wiretest.CountPrompt(sentContents(t, reqs[len(reqs)-1]))
	if last > wiretest.Trained4096 {
		t.Errorf("the last prompt is %d tokens, still over the 4096 window", last)
	}
	t.Logf("%d of %d steps refitted; %d requests for %d steps", refitted, len(run.Turns), len(reqs), len(run.Turns))
}

// When nothing more can be elided the step stops with an honest
// context-overflow outcome: a window smaller than the system prompt and
// the task refuses every refit, and the refused prompt is never resent.
func TestOverflowWithNothingLeftToElideStops(t *testing.T) {
	srv := wiretest.NewOllama(t)
	srv.Trained = 300
	srv.Push(wiretest.Text(textwrapDrafts[0]))
	cfg := textwrapConfig(t, "stuck", schemas.Model{Backend: "ollama", Name: "tiny",
		Options: schemas.Options{NumCtx: 8192, NumPredict: 256}})
	res, err := Run(context.Background(), cfg, ollamaBackend(t, srv, "tiny"))
	if err != nil {
		t.Fatal(err)
	}
	run := readTrace(t, res)
	if res.End.StopReason != schemas.StopModelError || len(run.Turns) != 1 {
		t.Fatalf("stop %s after %d turns, want model-error at step 1", res.End.StopReason, len(run.Turns))
	}
	turn := run.Turns[0]
	if turn.Outcome.Code != schemas.CodeContextOverflow || turn.Outcome.Status != schemas.StatusFailed {
		t.Errorf("outcome %+v, want failed context-overflow", turn.Outcome)
	}
	if !strings.Contains(turn.Outcome.Message, "longer than its context window") {
		t.Errorf("the outcome does not say why: %q", turn.Outcome.Message)
	}
	reqs := srv.ChatRequests()
	noResend(t, reqs)
	if len(reqs) != len(turn.Attempts) {
		t.Errorf("the server got %d requests, the turn records %d attempts", len(reqs), len(turn.Attempts))
	}
	t.Logf("%d attempts; outcome %s", len(turn.Attempts), turn.Outcome.Message)
}

// With shift false the recorded server
// stops generating when prompt and output fill the window
// (chat-length-shift-false), with done_reason "length" as a num_predict
// stop has. The turn says context-full; a num_predict stop does not.
func TestReplyCutByAFullContextIsFlagged(t *testing.T) {
	long := strings.Repeat("# a comment the model goes on writing\n", 200) // 7,600 bytes: more tokens than the room left
	tests := []struct {
		name      string
		trained   int
		numCtx    int
		predict   int
		wantFull  bool
		wantCodes map[schemas.Code]int
	}{
		{"the window fills before num_predict", 2048, 2048, 1500, true, map[schemas.Code]int{schemas.CodeContextFull: 1}},
		{"num_predict ends the reply first", 4096, 4096, 600, false, map[schemas.Code]int{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := wiretest.NewOllama(t)
			srv.Trained = tt.trained
			srv.Push(wiretest.Text(long))
			cfg := textwrapConfig(t, "full", schemas.Model{Backend: "ollama", Name: "tiny",
				Options: schemas.Options{NumCtx: tt.numCtx, NumPredict: tt.predict}})
			cfg.MaxSteps = 1
			res, err := Run(context.Background(), cfg, ollamaBackend(t, srv, "tiny"))
			if err != nil {
				t.Fatal(err)
			}
			turn := readTrace(t, res).Turns[0]
			if turn.Reply.FinishReason != "length" {
				t.Fatalf("finish reason %q, want length", turn.Reply.FinishReason)
			}
			if got := hasWarning(turn, schemas.CodeContextFull); got != tt.wantFull {
				t.Errorf("context-full = %v, want %v; warnings %q, metrics prompt %v output %v", got, tt.wantFull, turn.Warnings, *turn.Metrics.PromptTokens, *turn.Metrics.OutputTokens)
			}
			got := map[schemas.Code]int{}
			if n := res.TurnWarnings[schemas.CodeContextFull]; n > 0 {
				got[schemas.CodeContextFull] = n
			}
			if !reflect.DeepEqual(got, tt.wantCodes) {
				t.Errorf("turn warning counts %v, want %v", got, tt.wantCodes)
			}
		})
	}
}

// Ollama's /v1 keeps its own window and drops old
// messages without a word (openai-silent-truncation: prompt_tokens far
// below what was sent). The turn says context-truncated, the budget
// tightens so later prompts fit what the server keeps, and run_start says
// num_ctx was not sent.
func TestOpenAISilentTruncationIsFlaggedAndTightensTheBudget(t *testing.T) {
	srv := wiretest.NewOpenAI(t)
	const window = 2048
	srv.Window = window
	for _, d := range textwrapDrafts {
		srv.Push(wiretest.Text(d))
	}
	client, err := openai.New(openai.Config{BaseURL: srv.URL, Model: "tiny", IdleTimeout: 5 * time.Second,
		Retry: model.Retry{Sleep: func(ctx context.Context, d time.Duration) error { return nil }}})
	if err != nil {
		t.Fatal(err)
	}
	// The server states no window: the harness budgets against the
	// requested one, as a user without --context-size would.
	c := model.ResolveContext(8192, 0, model.Info{Backend: schemas.BackendOpenAI})
	cfg := textwrapConfig(t, "silent", schemas.Model{Backend: "openai", Name: "tiny", Context: &c,
		Options: schemas.Options{NumCtx: 8192, NumPredict: 512}})
	res, err := Run(context.Background(), cfg, client)
	if err != nil {
		t.Fatal(err)
	}
	run := readTrace(t, res)
	if got := run.Start.Model.Context; got == nil || got.Sent {
		t.Errorf("run_start context %+v: want num_ctx recorded as not sent", got)
	}
	first := -1
	for i, turn := range run.Turns {
		if hasWarning(turn, schemas.CodeContextTruncated) {
			if first < 0 {
				first = i
			}
			if turn.Outcome.Code == "" {
				t.Errorf("step %d: truncated, but the outcome code is empty", turn.Step)
			}
		}
	}
	if first < 0 {
		t.Fatal("no turn says context-truncated")
	}
	reqs := srv.ChatRequests()
	late := 0
	for _, r := range reqs[first+1:] {
		if n := wiretest.CountPrompt(sentContents(t, r)); n > window {
			late++
		}
	}
	if late > 0 {
		t.Errorf("%d prompts after the truncation at step %d were still larger than the server's window of %d", late, first+1, window)
	}
	if res.TurnWarnings[schemas.CodeContextTruncated] == 0 || !slices.ContainsFunc(run.End.Warnings, func(w string) bool { return strings.Contains(w, "silently truncated") }) {
		t.Errorf("run_end warnings %q, counts %v: the truncation is not said at the end", run.End.Warnings, res.TurnWarnings)
	}
}

// Over twenty steps against the recorded Ollama that
// elide old replies and results, every elision recorded saves tokens,
// the one-line replies' included.
func TestElisionSavingsArePositiveAgainstTheRecordedServer(t *testing.T) {
	srv := textwrapOllama(t)
	cfg := textwrapConfig(t, "elisions", schemas.Model{Backend: "ollama", Name: "tiny",
		Options: schemas.Options{NumCtx: 4096, NumPredict: 1024}})
	res, err := Run(context.Background(), cfg, ollamaBackend(t, srv, "tiny"))
	if err != nil {
		t.Fatal(err)
	}
	byWhat := map[string]int{}
	for _, turn := range readTrace(t, res).Turns {
		for _, e := range turn.Sent.Elided {
			byWhat[e.What]++
			if e.Tokens <= 0 {
				t.Errorf("step %d: the elision of %s (%s) records a saving of %d tokens", turn.Step, e.What, e.Ref, e.Tokens)
			}
		}
	}
	if byWhat["message"] == 0 || byWhat["tool-result"] == 0 {
		t.Errorf("elisions by what: %v; want old replies and results elided, or the test shows nothing", byWhat)
	}
}

// An elision never records a negative saving. A
// stand-in longer than what it stands for (a one-line reply and its note,
// a cut within a marker's length of the end) is not made.
func TestElisionsNeverCostTokens(t *testing.T) {
	tok := newTokenizer()
	hist := []*histMsg{
		{msg: schemas.Message{Role: "system", Content: strings.Repeat("s", 400)}, kind: "system", protects: true},
		{msg: schemas.Message{Role: "user", Content: "fix it" + repoMapHeading + strings.Repeat("m", 2000)}, kind: "opening", ref: "step 0"},
		{msg: schemas.Message{Role: "assistant", Content: "RUN tests"}, kind: "reply", ref: "step 1"},
		{msg: schemas.Message{Role: "user", Content: strings.Repeat("r", 3000)}, kind: "result", ref: "step 1"},
		{msg: schemas.Message{Role: "assistant", Content: "READ a.py"}, kind: "reply", ref: "step 2"},
		{msg: schemas.Message{Role: "user", Content: strings.Repeat("x", 60)}, kind: "result", ref: "step 2"},
		{msg: schemas.Message{Role: "assistant", Content: "READ b.py"}, kind: "reply", ref: "step 3"},
		{msg: schemas.Message{Role: "user", Content: strings.Repeat("y", 900)}, kind: "result", ref: "step 3"},
		{msg: schemas.Message{Role: "assistant", Content: "READ c.py"}, kind: "reply", ref: "step 4"},
		{msg: schemas.Message{Role: "user", Content: strings.Repeat("z", 900)}, kind: "result", ref: "step 4"},
	}
	for _, budget := range []int{2000, 1200, 900, 700, 500, 300} {
		_, elided, _ := fit(hist, tok, budget)
		for _, e := range elided {
			if e.Tokens <= 0 {
				t.Errorf("budget %d: elision of %s (%s) saved %d tokens", budget, e.What, e.Ref, e.Tokens)
			}
		}
	}
	for _, h := range hist {
		if h.elided && !h.dropped && tok.text(h.short) >= tok.text(h.msg.Content) {
			t.Errorf("%s %s: a stand-in of %d bytes for %d", h.kind, h.ref, len(h.short), len(h.msg.Content))
		}
	}
}

// openaiBackend is the openai backend on a test server's /v1, with no
// waits between retries.
func openaiBackend(t *testing.T, baseURL string) *openai.Client {
	t.Helper()
	c, err := openai.New(openai.Config{BaseURL: baseURL, Model: "tiny", IdleTimeout: 5 * time.Second,
		Retry: model.Retry{Sleep: func(ctx context.Context, d time.Duration) error { return nil }}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// llama-server refuses an over-long prompt with 400
// exceed_context_size_error carrying n_ctx 2048 (openai-overflow). A run
// that budgeted against --num-ctx 8192 (the window unknown to it) refits
// below the stated window: the next attempt is smaller than the server's
// window minus num_predict by the harness's estimate and fits as the server
// counts it, the later steps stay inside it, and nothing is resent.
func TestLlamaServerOverflowRefitsBelowItsStatedWindow(t *testing.T) {
	srv := wiretest.NewLlamaServer(t)
	for _, d := range textwrapDrafts {
		srv.Push(wiretest.Text(d))
	}
	const numPredict = 512
	cfg := textwrapConfig(t, "llama-overflow", schemas.Model{Backend: "openai", Name: "tiny",
		Options: schemas.Options{NumCtx: 8192, NumPredict: numPredict}})
	res, err := Run(context.Background(), cfg, openaiBackend(t, srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	if res.End.StopReason != schemas.StopBudget || res.End.Steps != 20 {
		t.Fatalf("stop %s after %d steps (%s), want the 20-step budget", res.End.StopReason, res.End.Steps, res.End.Error)
	}
	run := readTrace(t, res)
	overflows := 0
	for _, turn := range run.Turns {
		if !hasWarning(turn, schemas.CodeContextOverflow) {
			continue
		}
		overflows++
		refused, refit := turn.Attempts[0], turn.Attempts[len(turn.Attempts)-1]
		if refused.Status != 400 || refit.N != len(turn.Attempts) || refit.PromptTokensEstimate >= refused.PromptTokensEstimate {
			t.Errorf("step %d: attempts %+v: want a refused 400 then a smaller prompt", turn.Step, turn.Attempts)
		}
		if refit.PromptTokensEstimate > wiretest.LlamaServerNCtx-numPredict {
			t.Errorf("step %d: the refit is estimated at %d tokens, over the stated window %d minus num_predict %d", turn.Step, refit.PromptTokensEstimate, wiretest.LlamaServerNCtx, numPredict)
		}
	}
	if overflows != 1 {
		t.Errorf("%d steps were refused; want one: the window the server stated holds for the rest of the run", overflows)
	}
	if !slices.ContainsFunc(run.End.Warnings, func(w string) bool { return strings.Contains(w, "the server's context window is 2048") }) {
		t.Errorf("run_end warnings %q do not say the server's window", run.End.Warnings)
	}
	reqs := srv.ChatRequests()
	noResend(t, reqs)
	refusedSeen := false
	for i, r := range reqs {
		n := wiretest.CountPrompt(sentContents(t, r))
		if n >= wiretest.LlamaServerNCtx {
			if refusedSeen {
				t.Errorf("request %d: a prompt of %d tokens after the server said its window is %d", i+1, n, wiretest.LlamaServerNCtx)
			}
			refusedSeen = true
		}
	}
	if !refusedSeen {
		t.Fatal("no prompt reached the window: the test shows nothing about the overflow")
	}
}

// With what llama-server says of itself (/props,
// /v1/models: n_ctx 2048, n_ctx_train 4096), a run asked for 8192 budgets
// against 2048 from the first step, records num_ctx as not sent, and is
// never refused; a reply cut by the full window before max_tokens
// (openai-ctx-full-during-generation: total_tokens = n_ctx) is context-full.
func TestLlamaServerWindowIsLearnedAndAFullContextFlagged(t *testing.T) {
	srv := wiretest.NewLlamaServer(t)
	long := strings.Repeat("# a comment the model goes on writing\n", 200)
	drafts := append([]string{long}, textwrapDrafts[:9]...)
	for _, d := range drafts {
		srv.Push(wiretest.Text(d))
	}
	client := openaiBackend(t, srv.URL)
	info, err := client.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	const numPredict = 1200
	c := model.ResolveContext(8192, 0, info)
	cfg := textwrapConfig(t, "llama-window", schemas.Model{Backend: "openai", Name: "tiny", Context: &c,
		Options: schemas.Options{NumCtx: 8192, NumPredict: numPredict}})
	cfg.MaxSteps = len(drafts)
	res, err := Run(context.Background(), cfg, client)
	if err != nil {
		t.Fatal(err)
	}
	run := readTrace(t, res)
	want := schemas.ContextSizes{Requested: 8192, Sent: false, Trained: 4096, InForce: 2048, Effective: 2048, Source: schemas.ContextFromServer}
	if got := run.Start.Model.Context; got == nil || *got != want {
		t.Errorf("run_start context = %+v, want %+v", got, want)
	}
	first := run.Turns[0]
	if first.Reply.FinishReason != "length" || !hasWarning(first, schemas.CodeContextFull) {
		t.Errorf("step 1: finish %q, warnings %q; want length and context-full", first.Reply.FinishReason, first.Warnings)
	}
	for _, turn := range run.Turns[1:] {
		if hasWarning(turn, schemas.CodeContextFull) && turn.Reply.FinishReason != "length" {
			t.Errorf("step %d: context-full on a reply that ended %q", turn.Step, turn.Reply.FinishReason)
		}
	}
	for _, turn := range run.Turns {
		if hasWarning(turn, schemas.CodeContextOverflow) || len(turn.Attempts) != 1 {
			t.Errorf("step %d: refused or retried (%d attempts, warnings %q) with the window known", turn.Step, len(turn.Attempts), turn.Warnings)
		}
	}
	if res.TurnWarnings[schemas.CodeContextFull] < 1 {
		t.Errorf("the result counts %d replies cut by a full context", res.TurnWarnings[schemas.CodeContextFull])
	}
}

func TestContextWarnings(t *testing.T) {
	tests := []struct {
		name string
		c    *schemas.ContextSizes
		want string // "" for no warning
	}{
		{"no context known to the run", nil, ""},
		{"ollama within the trained context", &schemas.ContextSizes{Requested: 4096, Sent: true, Trained: 8192, Effective: 4096, Source: schemas.ContextFromRequested}, ""},
		{"ollama above the trained context", &schemas.ContextSizes{Requested: 8192, Sent: true, Trained: 4096, Effective: 4096, Source: schemas.ContextFromTrained},
			"--num-ctx 8192 is above the model's trained context 4096: the server caps it, so prompts are budgeted against 4096"},
		{"an openai server that says nothing", &schemas.ContextSizes{Requested: 8192, Effective: 8192, Source: schemas.ContextUnknown},
			"the openai backend cannot send num_ctx and the server did not say its context window"},
		{"llama-server's own window", &schemas.ContextSizes{Requested: 8192, Trained: 4096, InForce: 2048, Effective: 2048, Source: schemas.ContextFromServer},
			"the server keeps its own window of 2048 (from server), so prompts are budgeted against it, not the --num-ctx 8192 asked for, which is above the model's trained context 4096"},
		{"a server window above the request", &schemas.ContextSizes{Requested: 1024, InForce: 2048, Effective: 2048, Source: schemas.ContextFromServer}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			backend := "ollama"
			if tt.c != nil && !tt.c.Sent {
				backend = "openai"
			}
			got := ContextWarnings(schemas.Model{Backend: backend, Context: tt.c})
			switch {
			case tt.want == "" && len(got) > 0:
				t.Errorf("warnings %q, want none", got)
			case tt.want != "" && (len(got) != 1 || !strings.Contains(got[0], tt.want)):
				t.Errorf("warnings %q, want one saying %q", got, tt.want)
			}
		})
	}
}
