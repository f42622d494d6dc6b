package model_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pyharness/pyharness/harness/model"
	"github.com/pyharness/pyharness/harness/model/ollama"
	"github.com/pyharness/pyharness/harness/model/openai"
	"github.com/pyharness/pyharness/harness/model/replay"
	"github.com/pyharness/pyharness/harness/model/scripted"
	"github.com/pyharness/pyharness/internal/testkit/wiretest"
	"github.com/pyharness/pyharness/schemas"
)

// The conformance suite: one set of behaviours, asserted the same way
// against every backend. Each backend's fixture turns the same list of
// exchanges into what its server (or script, or recorded run) does.

func contents(req model.Request) []string {
	var out []string
	for _, m := range req.Messages {
		out = append(out, m.Content)
	}
	return out
}

// sleeps stands in for Retry.Sleep: it records each wait and returns at
// once, so the suite never waits for real.
type sleeps struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.waits = append(s.waits, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) got() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.waits...)
}

const base = 10 * time.Millisecond

func request() model.Request {
	return model.Request{
		Messages: []schemas.Message{
			{Role: "system", Content: "You are a coding agent. Answer with one action."},
			{Role: "user", Content: "Fix the off-by-one in wordcount.py."},
		},
		// Zeros on purpose: they must reach the server.
		Options: schemas.Options{Seed: 0, Temperature: 0, NumCtx: 256, NumPredict: 64},
	}
}

const draft = "READ wordcount.py to see the loader"

func wantError(t *testing.T, err error, code string) *model.Error {
	t.Helper()
	var e *model.Error
	if !errors.As(err, &e) {
		t.Fatalf("error = %v (%T), want *model.Error %s", err, err, code)
	}
	if e.Code != code {
		t.Fatalf("error code = %s (%v), want %s", e.Code, e, code)
	}
	return e
}

func TestConformance(t *testing.T) {
	for _, f := range fixtures() {
		t.Run(f.name, func(t *testing.T) { runConformance(t, f) })
	}
}

func runConformance(t *testing.T, f fixture) {
	// start sets up f for exs; every case declares the kinds it needs
	// (below), so a kind the backend cannot produce here is a mistake in
	// the case.
	start := func(t *testing.T, cfg config, exs ...exchange) instance {
		t.Helper()
		for _, ex := range exs {
			if !f.can(ex.kind) {
				t.Fatalf("%s cannot produce %s: the case must declare it", f.name, ex.kind)
			}
		}
		if cfg.idle == 0 {
			cfg.idle = 10 * time.Second
		}
		return f.setup(t, exs, cfg)
	}
	// faultCase runs a case that needs faults of these kinds, when the
	// backend can produce them. One that cannot (replay has no faults to
	// replay; llama-server has no unknown model and no 429) makes no
	// subtest, rather than one that skips: TestServerFamilies says where
	// the two server families differ.
	faultCase := func(name string, kinds []string, fn func(t *testing.T)) {
		for _, k := range kinds {
			if !f.can(k) {
				return
			}
		}
		t.Run(name, fn)
	}
	reply := exchange{kind: kindReply, text: draft}

	t.Run("reply gathered whole", func(t *testing.T) {
		in := start(t, config{}, reply)
		got, err := in.backend.Chat(context.Background(), request())
		if err != nil {
			t.Fatal(err)
		}
		if got.Content != draft || got.FinishReason != "stop" {
			t.Errorf("reply = %q (finish %q), want %q (stop)", got.Content, got.FinishReason, draft)
		}
		if want := []schemas.Attempt{{N: 1}}; !reflect.DeepEqual(got.Attempts, want) {
			t.Errorf("attempts = %+v, want %+v", got.Attempts, want)
		}
	})

	t.Run("options passed", func(t *testing.T) {
		in := start(t, config{}, reply, reply)
		req := request()
		for range 2 {
			if _, err := in.backend.Chat(context.Background(), req); err != nil {
				t.Fatal(err)
			}
		}
		if n := in.calls(); n != 2 {
			t.Fatalf("%d calls, want 2", n)
		}
		in.checkSent(t, req.Options)
	})

	t.Run("metrics recorded", func(t *testing.T) {
		in := start(t, config{}, reply)
		req := request()
		got, err := in.backend.Chat(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		want := f.metrics(req, draft)
		if ttft, ok := schemas.Count(got.Metrics.TTFTMS); ok && ttft < 0 {
			t.Errorf("ttft = %d ms", ttft)
		}
		if f.name != "replay" {
			want.TTFTMS = got.Metrics.TTFTMS // measured here, not reported
		}
		if f.measuredTotal {
			want.TotalMS = got.Metrics.TotalMS
		}
		if !reflect.DeepEqual(got.Metrics, want) {
			t.Errorf("metrics = %+v, want %+v", got.Metrics, want)
		}
	})

	// An EOF where the answer should be is a dropped stream too, not a
	// refused connection.
	for _, kind := range []string{kindCut, kindCutInLine, kindCutFirst, kindNoDone} {
		faultCase("stream "+kind+" retried", []string{kind}, func(t *testing.T) {
			var s sleeps
			in := start(t, config{retry: model.Retry{Base: base, Sleep: s.sleep}}, exchange{kind: kind, text: draft}, reply)
			got, err := in.backend.Chat(context.Background(), request())
			if err != nil {
				t.Fatal(err)
			}
			if got.Content != draft {
				t.Errorf("content = %q, want %q", got.Content, draft)
			}
			if len(got.Attempts) != 2 || !strings.HasPrefix(got.Attempts[0].Error, model.CodeStreamCut) || got.Attempts[0].WaitMS != base.Milliseconds() || got.Attempts[1] != (schemas.Attempt{N: 2}) {
				t.Errorf("attempts = %+v, want a stream-cut then the answer", got.Attempts)
			}
			if w := s.got(); !reflect.DeepEqual(w, []time.Duration{base}) {
				t.Errorf("waits = %v, want [%v]", w, base)
			}
		})
	}

	faultCase("model not found not retried", []string{kindNotFound}, func(t *testing.T) {
		var s sleeps
		in := start(t, config{retry: model.Retry{Base: base, Sleep: s.sleep}}, exchange{kind: kindNotFound}, reply)
		_, err := in.backend.Chat(context.Background(), request())
		e := wantError(t, err, model.CodeModelNotFound)
		if e.Message != f.notFound || e.Status != 404 || e.Retryable {
			t.Errorf("error = %q status %d retryable %v, want %q 404 not retryable", e.Message, e.Status, e.Retryable, f.notFound)
		}
		if len(e.Attempts) != 1 || in.calls() != 1 || len(s.got()) != 0 {
			t.Errorf("attempts %+v, %d calls, waits %v: want one attempt", e.Attempts, in.calls(), s.got())
		}
	})

	faultCase("429 waits what Retry-After says", []string{kindRateLimited}, func(t *testing.T) {
		var s sleeps
		in := start(t, config{retry: model.Retry{Base: base, Sleep: s.sleep}}, exchange{kind: kindRateLimited, retryAfter: 7}, reply)
		got, err := in.backend.Chat(context.Background(), request())
		if err != nil {
			t.Fatal(err)
		}
		if w := s.got(); !reflect.DeepEqual(w, []time.Duration{7 * time.Second}) {
			t.Errorf("waits = %v, want [7s]", w)
		}
		if len(got.Attempts) != 2 || got.Attempts[0].Status != 429 || got.Attempts[0].WaitMS != 7000 || !strings.HasPrefix(got.Attempts[0].Error, model.CodeRateLimited) {
			t.Errorf("attempts = %+v, want a 429 that waited 7000 ms, then the answer", got.Attempts)
		}
	})

	faultCase("500 retried up to Max when sampled", []string{kindServerError}, func(t *testing.T) {
		var s sleeps
		fail := exchange{kind: kindServerError}
		in := start(t, config{retry: model.Retry{Max: 2, Base: base, Sleep: s.sleep}}, fail, fail, fail, reply)
		req := request()
		req.Options.Temperature = 0.7
		_, err := in.backend.Chat(context.Background(), req)
		e := wantError(t, err, model.CodeServerError)
		if !e.Retryable || e.Status != 500 {
			t.Errorf("error = %+v, want a retryable 500", e)
		}
		if len(e.Attempts) != 3 || in.calls() != 3 {
			t.Errorf("%d attempts, %d calls, want 3 (Max 2 retries)", len(e.Attempts), in.calls())
		}
		for i, a := range e.Attempts {
			if a.N != i+1 || a.Status != 500 || a.Error == "" {
				t.Errorf("attempt %d = %+v", i+1, a)
			}
		}
		if w := s.got(); !reflect.DeepEqual(w, []time.Duration{base, 2 * base}) {
			t.Errorf("waits = %v, want [%v %v] (doubling)", w, base, 2*base)
		}
	})

	faultCase("the same 500 twice at temperature 0 is not retried again", []string{kindServerError}, func(t *testing.T) {
		var s sleeps
		fail := exchange{kind: kindServerError}
		in := start(t, config{retry: model.Retry{Max: 3, Base: base, Sleep: s.sleep}}, fail, fail, fail, reply)
		_, err := in.backend.Chat(context.Background(), request())
		e := wantError(t, err, model.CodeServerError)
		if e.Retryable || !strings.Contains(e.Message, "not retried again") {
			t.Errorf("error = %v, want one that says why it was not retried again", e)
		}
		if len(e.Attempts) != 2 || in.calls() != 2 || len(s.got()) != 1 {
			t.Errorf("%d attempts, %d calls, waits %v: want 2 attempts, one wait", len(e.Attempts), in.calls(), s.got())
		}
	})

	faultCase("context overflow not retried", []string{kindOverflow}, func(t *testing.T) {
		var s sleeps
		in := start(t, config{retry: model.Retry{Base: base, Sleep: s.sleep}}, exchange{kind: kindOverflow}, reply)
		_, err := in.backend.Chat(context.Background(), request())
		e := wantError(t, err, model.CodeContextOverflow)
		if e.Retryable || e.Status != 400 || len(e.Attempts) != 1 || in.calls() != 1 {
			t.Errorf("error = %+v after %d calls, want one 400 not retried", e, in.calls())
		}
	})

	faultCase("hang times out and is retried", []string{kindHang}, func(t *testing.T) {
		var s sleeps
		in := start(t, config{idle: 100 * time.Millisecond, retry: model.Retry{Base: base, Sleep: s.sleep}}, exchange{kind: kindHang}, reply)
		got, err := in.backend.Chat(context.Background(), request())
		if err != nil {
			t.Fatal(err)
		}
		if got.Content != draft || len(got.Attempts) != 2 || !strings.HasPrefix(got.Attempts[0].Error, model.CodeTimeout) {
			t.Errorf("reply %q, attempts %+v: want a timeout, then the answer", got.Content, got.Attempts)
		}
	})

	faultCase("hang times out", []string{kindHang}, func(t *testing.T) {
		in := start(t, config{idle: 100 * time.Millisecond, retry: model.Retry{Max: -1}}, exchange{kind: kindHang})
		_, err := in.backend.Chat(context.Background(), request())
		if e := wantError(t, err, model.CodeTimeout); !e.Retryable || len(e.Attempts) != 1 {
			t.Errorf("error = %+v, want one retryable timeout", e)
		}
	})

	t.Run("cancelled before the call", func(t *testing.T) {
		in := start(t, config{}, reply)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := in.backend.Chat(ctx, request())
		if e := wantError(t, err, model.CodeCancelled); e.Retryable || !errors.Is(err, context.Canceled) {
			t.Errorf("error = %+v, want cancelled wrapping context.Canceled", e)
		}
		if n := in.calls(); n != 0 {
			t.Errorf("%d calls made after cancel", n)
		}
	})

	faultCase("cancelled mid-call", []string{kindHang, kindInFlight}, func(t *testing.T) {
		in := start(t, config{}, exchange{kind: kindHang})
		if in.waitCalls == nil {
			t.Fatalf("%s declares calls in flight but gives no way to wait for one", f.name)
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			wctx, wcancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer wcancel()
			in.waitCalls(wctx, 1)
			cancel()
		}()
		_, err := in.backend.Chat(ctx, request())
		e := wantError(t, err, model.CodeCancelled)
		if len(e.Attempts) != 1 || !strings.HasPrefix(e.Attempts[0].Error, model.CodeCancelled) {
			t.Errorf("attempts = %+v, want the cancelled one", e.Attempts)
		}
	})

	t.Run("info", func(t *testing.T) {
		in := start(t, config{}, reply)
		info, err := in.backend.Info(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		want := f.name
		if f.backend != "" {
			want = f.backend
		}
		if info.Backend != want || info.Name == "" {
			t.Errorf("info = %+v, want backend %s and a name", info, f.name)
		}
	})
}

// Every backend satisfies the harness's Chatter.
var (
	_ backend = (*ollama.Client)(nil)
	_ backend = (*openai.Client)(nil)
	_ backend = (*scripted.Backend)(nil)
	_ backend = (*replay.Backend)(nil)
)

// TestServerFamilies names each difference between the two families of
// OpenAI-compatible servers the openai backend runs against (Ollama's
// /v1 and llama-server), and asserts what the backend makes of it.
func TestServerFamilies(t *testing.T) {
	type family struct {
		name  string
		start func(t *testing.T) (url string, push func(...wiretest.Step))
	}
	ollamaV1 := family{"ollama /v1", func(t *testing.T) (string, func(...wiretest.Step)) { s := wiretest.NewOpenAI(t); return s.URL, s.Push }}
	llama := family{"llama-server", func(t *testing.T) (string, func(...wiretest.Step)) {
		s := wiretest.NewLlamaServer(t)
		return s.URL, s.Push
	}}
	client := func(t *testing.T, url, name string) *openai.Client {
		c, err := openai.New(openai.Config{BaseURL: url, Model: name, IdleTimeout: 5 * time.Second, Retry: model.Retry{Max: -1}})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}

	t.Run("model field: llama-server answers for any name, Ollama only for its models", func(t *testing.T) {
		for _, f := range []family{ollamaV1, llama} {
			url, push := f.start(t)
			push(wiretest.Text(draft))
			_, err := client(t, url, "whatever").Chat(context.Background(), request())
			if got, want := codeOf(err), map[string]string{ollamaV1.name: model.CodeModelNotFound, llama.name: ""}[f.name]; got != want {
				t.Errorf("%s: a chat for model 'whatever' = %v, want code %q", f.name, err, want)
			}
			info, err := client(t, url, "whatever").Info(context.Background())
			if got, want := codeOf(err), map[string]string{ollamaV1.name: model.CodeModelNotFound, llama.name: ""}[f.name]; got != want {
				t.Errorf("%s: Info for model 'whatever' = %+v %v, want code %q", f.name, info, err, want)
			}
		}
	})

	t.Run("usage chunk: Ollama sends usage alone, llama-server usage with timings", func(t *testing.T) {
		for _, f := range []family{ollamaV1, llama} {
			url, push := f.start(t)
			push(wiretest.Text(draft))
			got, err := client(t, url, "tiny").Chat(context.Background(), request())
			if err != nil {
				t.Fatal(err)
			}
			m := got.Metrics
			if m.PromptTokens == nil || m.OutputTokens == nil {
				t.Errorf("%s: usage not recorded: %+v", f.name, m)
			}
			timed := m.PromptEvalMS != nil && m.EvalMS != nil && m.PromptEvalTokens != nil && m.CachedTokens != nil
			if want := f.name == llama.name; timed != want {
				t.Errorf("%s: timings recorded = %v, want %v (metrics %+v)", f.name, timed, want, m)
			}
			if m.LoadMS != nil {
				t.Errorf("%s: load_ms %d recorded; neither server reports one", f.name, *m.LoadMS)
			}
		}
	})

	t.Run("error bodies: llama-server's overflow states n_ctx and the prompt's count, Ollama's does not", func(t *testing.T) {
		steps := map[string]wiretest.Step{
			ollamaV1.name: wiretest.Fail(400, wiretest.MustLoad("chat-overflow-truncate-false").ErrorMessage()),
			llama.name:    wiretest.Recorded("llama-server/openai-overflow"),
		}
		for _, f := range []family{ollamaV1, llama} {
			url, push := f.start(t)
			push(steps[f.name])
			_, err := client(t, url, "tiny").Chat(context.Background(), request())
			e := wantError(t, err, model.CodeContextOverflow)
			want := map[string][2]int{ollamaV1.name: {0, 0}, llama.name: {2048, 3037}}[f.name]
			if [2]int{e.ContextInForce, e.PromptTokens} != want {
				t.Errorf("%s: overflow n_ctx %d, prompt %d; want %v", f.name, e.ContextInForce, e.PromptTokens, want)
			}
		}
	})

	t.Run("routes: llama-server has no /v1/models/{id}, its window is in /props; Ollama's trained context is in /api/show", func(t *testing.T) {
		want := map[string]model.Info{
			ollamaV1.name: {ContextLength: 4096, Server: model.ServerOllama},
			llama.name:    {ContextLength: 4096, ContextInForce: 2048, Server: model.ServerLlama},
		}
		for _, f := range []family{ollamaV1, llama} {
			url, _ := f.start(t)
			info, err := client(t, url, "tiny").Info(context.Background())
			if err != nil {
				t.Fatalf("%s: %v", f.name, err)
			}
			w := want[f.name]
			if info.ContextLength != w.ContextLength || info.ContextInForce != w.ContextInForce || info.Server != w.Server {
				t.Errorf("%s: Info = %+v, want trained %d, in force %d, server %s", f.name, info, w.ContextLength, w.ContextInForce, w.Server)
			}
		}
	})
}

// codeOf is the Code of the *model.Error in err's chain, or "" when there
// is none.
func codeOf(err error) string {
	var e *model.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}
