package model_test

import (
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pyharness/pyharness/harness/model"
	"github.com/pyharness/pyharness/harness/model/ollama"
	"github.com/pyharness/pyharness/harness/model/openai"
	"github.com/pyharness/pyharness/harness/model/replay"
	"github.com/pyharness/pyharness/harness/model/scripted"
	"github.com/pyharness/pyharness/internal/testkit/wiretest"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

// The fixtures of the conformance suite: each backend's server (or script,
// or recorded run) made to do the same list of exchanges.

// exchange is what the model side does at one call.
type exchange struct {
	kind       string // one of the kinds below
	text       string // the reply, for kindReply
	retryAfter int    // seconds, for kindRateLimited
}

const (
	kindReply       = "reply"
	kindCut         = "cut"         // the connection drops after two chunks
	kindCutInLine   = "cut-in-line" // … in the middle of the third
	kindCutFirst    = "cut-first"   // … before the status line (EOF)
	kindNoDone      = "no-done"     // the stream ends properly, but not the reply
	kindNotFound    = "not-found"
	kindRateLimited = "rate-limited"
	kindServerError = "server-error"
	kindOverflow    = "overflow"
	kindHang        = "hang" // nothing comes back
	// kindInFlight is no exchange but what a test server can do: hold a
	// call in flight until the test has seen it arrive.
	kindInFlight = "in-flight"
)

type config struct {
	retry model.Retry
	idle  time.Duration
}

type backend interface {
	Chat(ctx context.Context, req model.Request) (model.Reply, error)
	Info(ctx context.Context) (model.Info, error)
}

// instance is one backend set up for a test.
type instance struct {
	backend backend
	// calls counts the calls that reached the model side.
	calls func() int
	// checkSent asserts the options of every call were passed on.
	checkSent func(t *testing.T, want schemas.Options)
	// waitCalls blocks until n calls are in flight or done; nil when the
	// backend has no server to wait for.
	waitCalls func(ctx context.Context, n int) error
}

type fixture struct {
	name string
	// backend is the backend's name in Info, when not the fixture's.
	backend string
	// kinds lists the exchanges the backend can produce.
	kinds []string
	// notFound is the message the model side gives for an unknown model.
	notFound string
	// metrics is what a reply of text to req must record (TTFT aside).
	metrics func(req model.Request, text string) schemas.Metrics
	// measuredTotal says TotalMS is measured by the client, not reported.
	measuredTotal bool
	setup         func(t *testing.T, exs []exchange, cfg config) instance
}

func (f fixture) can(kind string) bool {
	for _, k := range f.kinds {
		if k == kind {
			return true
		}
	}
	return false
}

func fixtures() []fixture {
	return []fixture{ollamaFixture(), openaiFixture(), llamaServerFixture(), scriptedFixture(), replayFixture()}
}

var allFaults = []string{kindReply, kindCut, kindCutInLine, kindCutFirst, kindNoDone, kindNotFound, kindRateLimited, kindServerError, kindOverflow, kindHang}

// serverFaults are allFaults and a call in flight, for the test servers.
var serverFaults = append(allFaults[:len(allFaults):len(allFaults)], kindInFlight)

func ollamaFixture() fixture {
	// The recorded done:true chunk of chat-stream: durations in ns.
	return fixture{
		name:     "ollama",
		kinds:    serverFaults,
		notFound: wiretest.MustLoad("chat-model-not-found").ErrorMessage(),
		metrics: func(req model.Request, text string) schemas.Metrics {
			return schemas.Metrics{
				PromptTokens: new(wiretest.CountPrompt(contents(req))),
				OutputTokens: new(wiretest.CountTokens(text)),
				TotalMS:      320, LoadMS: new(int64(286)), PromptEvalMS: new(int64(3)), EvalMS: new(int64(27)),
			}
		},
		setup: func(t *testing.T, exs []exchange, cfg config) instance {
			srv := wiretest.NewOllama(t)
			for _, ex := range exs {
				srv.Push(serverStep(ex, "chat-model-not-found", wiretest.Recorded("chat-overflow-truncate-false")))
			}
			b, err := ollama.New(ollama.Config{Host: srv.URL, Model: "tiny", IdleTimeout: cfg.idle, Retry: cfg.retry})
			if err != nil {
				t.Fatal(err)
			}
			return instance{
				backend:   b,
				calls:     func() int { return len(srv.ChatRequests()) },
				waitCalls: srv.Wait,
				checkSent: func(t *testing.T, want schemas.Options) {
					for i, r := range srv.ChatRequests() {
						wantOpts := map[string]any{"seed": float64(want.Seed), "temperature": want.Temperature, "num_ctx": float64(want.NumCtx), "num_predict": float64(want.NumPredict)}
						if got, _ := r.Lookup("options"); !reflect.DeepEqual(got, wantOpts) {
							t.Errorf("request %d: options = %v, want %v", i+1, got, wantOpts)
						}
					}
				},
			}
		},
	}
}

func openaiFixture() fixture {
	return fixture{
		name:     "openai",
		kinds:    serverFaults,
		notFound: wiretest.MustLoad("openai-model-not-found").ErrorMessage(),
		metrics: func(req model.Request, text string) schemas.Metrics {
			return schemas.Metrics{PromptTokens: new(wiretest.CountPrompt(contents(req))), OutputTokens: new(wiretest.CountTokens(text))}
		},
		measuredTotal: true,
		setup: func(t *testing.T, exs []exchange, cfg config) instance {
			srv := wiretest.NewOpenAI(t)
			overflow := wiretest.Fail(400, "This model's maximum context length is 128 tokens. However, you requested 300 tokens (296 in the messages, 4 in the completion).")
			for _, ex := range exs {
				srv.Push(serverStep(ex, "openai-model-not-found", overflow))
			}
			b, err := openai.New(openai.Config{BaseURL: srv.URL, APIKey: "sk-test", Model: "tiny", IdleTimeout: cfg.idle, Retry: cfg.retry})
			if err != nil {
				t.Fatal(err)
			}
			return instance{
				backend:   b,
				calls:     func() int { return len(srv.ChatRequests()) },
				waitCalls: srv.Wait,
				checkSent: func(t *testing.T, want schemas.Options) { checkSentOpenAI(t, srv.ChatRequests(), want) },
			}
		},
	}
}

// llamaServerFixture runs the openai backend against llama-server, the
// second server family. Where it differs from Ollama's /v1 the suite says
// so: it answers for any model name (no model-not-found to produce), sends
// no 429, and reports its timings and prompt cache, which the backend
// records.
func llamaServerFixture() fixture {
	var rec struct {
		Timings struct {
			PromptN     int     `json:"prompt_n"`
			PromptMS    float64 `json:"prompt_ms"`
			PredictedN  int     `json:"predicted_n"`
			PredictedMS float64 `json:"predicted_ms"`
		} `json:"timings"`
	}
	if err := json.Unmarshal(wiretest.MustLoad("llama-server/openai-nostream").Body, &rec); err != nil {
		panic(err)
	}
	ms := func(n int, total float64, per int) *int64 {
		return new(int64(math.Round(float64(n) * total / float64(per))))
	}
	return fixture{
		name:    "llama-server",
		backend: schemas.BackendOpenAI,
		kinds:   []string{kindReply, kindCut, kindCutInLine, kindCutFirst, kindNoDone, kindServerError, kindOverflow, kindHang, kindInFlight},
		metrics: func(req model.Request, text string) schemas.Metrics {
			prompt, output := wiretest.CountPrompt(contents(req)), wiretest.CountTokens(text)
			// A first request: nothing cached, the whole prompt evaluated.
			return schemas.Metrics{PromptTokens: new(prompt), OutputTokens: new(output), PromptEvalTokens: new(prompt), CachedTokens: new(0),
				PromptEvalMS: ms(prompt, rec.Timings.PromptMS, rec.Timings.PromptN), EvalMS: ms(output, rec.Timings.PredictedMS, rec.Timings.PredictedN)}
		},
		measuredTotal: true,
		setup: func(t *testing.T, exs []exchange, cfg config) instance {
			srv := wiretest.NewLlamaServer(t)
			for _, ex := range exs {
				srv.Push(serverStep(ex, "", wiretest.Recorded("llama-server/openai-overflow")))
			}
			b, err := openai.New(openai.Config{BaseURL: srv.URL, Model: "tiny", IdleTimeout: cfg.idle, Retry: cfg.retry})
			if err != nil {
				t.Fatal(err)
			}
			return instance{
				backend:   b,
				calls:     func() int { return len(srv.ChatRequests()) },
				waitCalls: srv.Wait,
				checkSent: func(t *testing.T, want schemas.Options) { checkSentOpenAI(t, srv.ChatRequests(), want) },
			}
		},
	}
}

// checkSentOpenAI asserts the options of every request to an
// OpenAI-compatible server.
func checkSentOpenAI(t *testing.T, requests []wiretest.Request, want schemas.Options) {
	for i, r := range requests {
		for key, w := range map[string]any{"seed": float64(want.Seed), "temperature": want.Temperature, "max_tokens": float64(want.NumPredict)} {
			if got, ok := r.Lookup(key); !ok || got != w {
				t.Errorf("request %d: %s = %v (sent: %v), want %v", i+1, key, got, ok, w)
			}
		}
		if got, _ := r.Lookup("stream_options", "include_usage"); got != true {
			t.Errorf("request %d: stream_options.include_usage = %v, want true", i+1, got)
		}
	}
}

// serverErrorMessage is the 500 every backend's server error says.
const serverErrorMessage = "llama runner process has terminated: exit status 2"

// serverStep is what a test server does for ex.
func serverStep(ex exchange, notFound string, overflow wiretest.Step) wiretest.Step {
	switch ex.kind {
	case kindReply:
		return wiretest.Text(ex.text)
	case kindCut:
		return wiretest.Text(ex.text).CutAfter(2)
	case kindCutInLine:
		return wiretest.Text(ex.text).CutInLine(2)
	case kindCutFirst:
		return wiretest.Text(ex.text).CutBeforeAnswer()
	case kindNoDone:
		return wiretest.Text(ex.text).WithoutDone()
	case kindNotFound:
		return wiretest.Recorded(notFound)
	case kindRateLimited:
		return wiretest.RateLimited(strconv.Itoa(ex.retryAfter))
	case kindServerError:
		return wiretest.Fail(500, serverErrorMessage)
	case kindOverflow:
		return overflow
	case kindHang:
		return wiretest.Hang()
	}
	panic("unknown exchange " + ex.kind)
}

func scriptedFixture() fixture {
	return fixture{
		name:     "scripted",
		kinds:    allFaults,
		notFound: "model 'llama3.1:8b' not found",
		metrics: func(req model.Request, text string) schemas.Metrics {
			prompt := 0
			for _, c := range contents(req) {
				prompt += (len(c)+3)/4 + 4
			}
			return schemas.Metrics{PromptTokens: new(prompt), OutputTokens: new((len(text) + 3) / 4)}
		},
		setup: func(t *testing.T, exs []exchange, cfg config) instance {
			var script strings.Builder
			for _, ex := range exs {
				var line map[string]any
				switch ex.kind {
				case kindReply:
					line = map[string]any{"content": ex.text}
				case kindCut, kindCutInLine, kindCutFirst, kindNoDone:
					line = map[string]any{"error": model.CodeStreamCut}
				case kindNotFound:
					line = map[string]any{"error": model.CodeModelNotFound, "status": 404, "message": "model 'llama3.1:8b' not found"}
				case kindRateLimited:
					line = map[string]any{"error": model.CodeRateLimited, "status": 429, "retry_after_ms": ex.retryAfter * 1000}
				case kindServerError:
					line = map[string]any{"error": model.CodeServerError, "status": 500, "message": serverErrorMessage}
				case kindOverflow:
					line = map[string]any{"error": model.CodeContextOverflow, "status": 400, "message": "the input length exceeds the context length"}
				case kindHang:
					line = map[string]any{"error": model.CodeTimeout}
				}
				b, _ := json.Marshal(line)
				script.Write(append(b, '\n'))
			}
			b, err := scripted.NewFromReader(strings.NewReader(script.String()), "conformance.jsonl")
			if err != nil {
				t.Fatal(err)
			}
			b.Retry = cfg.retry
			played := func() int { return len(exs) - b.Remaining() }
			return instance{
				backend: b,
				calls:   played,
				checkSent: func(t *testing.T, want schemas.Options) {
					for i, r := range b.Requests() {
						if r.Options != want {
							t.Errorf("request %d: options = %+v, want %+v", i+1, r.Options, want)
						}
					}
				},
			}
		},
	}
}

func replayFixture() fixture {
	recorded := schemas.Metrics{PromptTokens: new(812), OutputTokens: new(41), TotalMS: 2210, LoadMS: new(int64(5)), PromptEvalMS: new(int64(900)), EvalMS: new(int64(1300)), TTFTMS: new(int64(910))}
	return fixture{
		name:    "replay",
		kinds:   []string{kindReply},
		metrics: func(model.Request, string) schemas.Metrics { return recorded },
		setup: func(t *testing.T, exs []exchange, cfg config) instance {
			dir := t.TempDir()
			w, err := trace.Create(dir, "run-1")
			if err != nil {
				t.Fatal(err)
			}
			write := func(r schemas.Record) {
				if err := w.Write(r); err != nil {
					t.Fatal(err)
				}
			}
			write(schemas.Record{RunStart: &schemas.RunStart{RunID: "run-1", Attempt: 1, Source: schemas.SourceAdhoc,
				Model: schemas.Model{Backend: schemas.BackendOllama, Name: "llama3.1:8b", Digest: "sha256:abc"}}})
			for i, ex := range exs {
				write(schemas.Record{Turn: &schemas.Turn{RunID: "run-1", Step: i + 1, ModelStep: true,
					Reply: schemas.Reply{Content: ex.text, FinishReason: "stop"}, Metrics: recorded}})
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			b, err := replay.New(filepath.Join(dir, trace.AttemptFileName("run-1", 1)))
			if err != nil {
				t.Fatal(err)
			}
			return instance{
				backend: b,
				calls:   b.Played,
				checkSent: func(t *testing.T, want schemas.Options) {
					for i, r := range b.Requests() {
						if r.Options != want {
							t.Errorf("request %d: options = %+v, want %+v", i+1, r.Options, want)
						}
					}
				},
			}
		},
	}
}
