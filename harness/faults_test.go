package harness

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pyharness/pyharness/harness/model"
	"github.com/pyharness/pyharness/harness/model/ollama"
	"github.com/pyharness/pyharness/internal/testkit/wiretest"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

// goodDrafts solve the initials task in four steps.
var goodDrafts = []string{readGreet, writeInitOK, runTests, doneSummary}

// checkTraceValid fails the test unless the trace file passes the
// validator with no error.
func checkTraceValid(t *testing.T, path string, wantComplete bool) {
	t.Helper()
	v, err := trace.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	rep := v.ValidateFile(path)
	if rep.Errors() > 0 {
		t.Errorf("the trace %s is not valid: %+v", path, rep.Problems)
	}
	if rep.Complete != wantComplete {
		t.Errorf("the trace is complete: %v, want %v (%+v)", rep.Complete, wantComplete, rep.Problems)
	}
}

// closedPort returns a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

// garbling stands in front of an Ollama test server and answers the chat
// requests it is told to (1-based) with a body of its own — what a proxy
// or a broken server sends instead of NDJSON — passing every other request
// on.
func garbling(t *testing.T, next *wiretest.Ollama, bodies map[int]string) string {
	t.Helper()
	target, err := url.Parse(next.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	var chats atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/chat" {
			if body, ok := bodies[int(chats.Add(1))]; ok {
				w.Header().Set("Content-Type", "application/x-ndjson")
				w.WriteHeader(http.StatusOK)
				fmt.Fprint(w, body)
				return
			}
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// dying closes the server before the model is called for the n+1-th time:
// the server dies between two steps of the run.
type dying struct {
	Chatter
	srv *wiretest.Ollama
	// transport is the client's: its idle connections are closed with the
	// server. The connection of the call before may not be back in the idle
	// pool yet (the transport returns it after the caller has read the
	// body): then the next call goes out on it, and the server's death
	// reads as a reset or an EOF rather than a refusal, as it does for a
	// user whose server dies between two steps.
	transport *http.Transport
	after     int
	calls     int
}

func (d *dying) Chat(ctx context.Context, req model.Request) (model.Reply, error) {
	if d.calls++; d.calls == d.after+1 {
		d.srv.Close()
		d.transport.CloseIdleConnections()
	}
	return d.Chatter.Chat(ctx, req)
}

// attemptCodeIs reports whether an attempt's recorded error has one of the
// codes of want ("stream-cut|connection-refused"); want "" is an attempt
// that answered.
func attemptCodeIs(err, want string) bool {
	if want == "" {
		return err == ""
	}
	for _, code := range strings.Split(want, "|") {
		if strings.HasPrefix(err, code) {
			return true
		}
	}
	return false
}

// garbledLine is the recorded stream with its second line broken off in the
// middle and the rest of the stream after it.
func garbledLine(t *testing.T) string {
	units := wiretest.MustLoad("chat-stream").Units()
	var b strings.Builder
	for i, u := range units {
		if i == 1 {
			b.Write(u[:len(u)/2])
			b.WriteByte('\n')
			continue
		}
		b.Write(u)
	}
	return b.String()
}

// The model-server rows of the fault matrix, through the real Ollama client
// library against a test server replaying (or cutting) a real Ollama's
// recorded traffic, driven by the real loop. Each fault is met at step 2 of
// a run that would otherwise work: either the run goes on and works, with
// the failed attempts recorded on the step, or it ends verdict=error,
// stop_reason=model-error with the cause; the trace stays valid either way.
func TestModelServerFaults(t *testing.T) {
	const maxRetries = 2
	twoMB := strings.Repeat("x", 2<<20)
	var bigChunks []string
	for i := 0; i < len(twoMB); i += 64 << 10 {
		bigChunks = append(bigChunks, twoMB[i:i+64<<10])
	}
	tests := []struct {
		name string
		// steps are pushed for the chat requests after the first (READ).
		steps []wiretest.Step
		// host, when set, is the URL the client talks to instead of the
		// server's.
		host func(t *testing.T, srv *wiretest.Ollama) string
		// dieAfter closes the server after this many model calls.
		dieAfter int
		wantStop schemas.StopReason
		// wantError is in run_end.error when the run ends model-error.
		wantError string
		// faultStep is the step whose attempts show the fault.
		faultStep int
		// wantAttempts are the codes in the errors of the fault step's
		// attempts, in order; "" for the attempt that answered, and
		// "a|b" where either code is right.
		wantAttempts []string
		// wantStatus are the HTTP statuses of those attempts, when known.
		wantStatus []int
		// wantWaitMS are the waits recorded after those attempts.
		wantWaitMS []int64
		check      func(t *testing.T, run *trace.Run)
	}{
		{
			name:     "down at start",
			host:     func(t *testing.T, _ *wiretest.Ollama) string { return closedPort(t) },
			wantStop: schemas.StopModelError, wantError: model.CodeConnectionRefused,
			faultStep: 1, wantAttempts: []string{model.CodeConnectionRefused, model.CodeConnectionRefused, model.CodeConnectionRefused},
		},
		{
			// The first attempt may go out on the connection kept alive
			// from step 1, which the dead server resets or closes (a
			// stream-cut: a connection that was reset may well work
			// again); the retries dial, and are refused, and the run ends
			// on the refusal.
			name: "dies mid-run", dieAfter: 1,
			wantStop: schemas.StopModelError, wantError: model.CodeConnectionRefused,
			faultStep: 2, wantAttempts: []string{model.CodeStreamCut + "|" + model.CodeConnectionRefused, model.CodeConnectionRefused, model.CodeConnectionRefused},
		},
		{
			name:     "cuts a stream mid-reply, then answers",
			steps:    []wiretest.Step{wiretest.Text(writeInitOK).CutAfter(3), wiretest.Text(writeInitOK)},
			wantStop: schemas.StopDone, faultStep: 2, wantAttempts: []string{model.CodeStreamCut, ""},
		},
		{
			name: "cuts the stream inside a line on every attempt",
			steps: []wiretest.Step{wiretest.Text(writeInitOK).CutInLine(2), wiretest.Text(writeInitOK).CutInLine(2),
				wiretest.Text(writeInitOK).CutInLine(2)},
			wantStop: schemas.StopModelError, wantError: model.CodeStreamCut,
			faultStep: 2, wantAttempts: []string{model.CodeStreamCut, model.CodeStreamCut, model.CodeStreamCut},
		},
		{
			name:     "answers 500, then answers",
			steps:    []wiretest.Step{wiretest.Fail(500, "llama runner process has terminated: signal: killed"), wiretest.Text(writeInitOK)},
			wantStop: schemas.StopDone, faultStep: 2, wantAttempts: []string{model.CodeServerError, ""}, wantStatus: []int{500, 0},
		},
		{
			name:     "answers 503, then answers",
			steps:    []wiretest.Step{wiretest.Fail(503, "server busy, please try again.  maximum pending requests exceeded"), wiretest.Text(writeInitOK)},
			wantStop: schemas.StopDone, faultStep: 2, wantAttempts: []string{model.CodeServerBusy, ""}, wantStatus: []int{503, 0},
		},
		{
			// At temperature 0 the same request gets the same 500 again:
			// retried once, then the error says why it stopped.
			name:     "answers the same 500 on every attempt",
			steps:    []wiretest.Step{wiretest.Fail(500, "runner crashed"), wiretest.Fail(500, "runner crashed"), wiretest.Fail(500, "runner crashed")},
			wantStop: schemas.StopModelError, wantError: "runner crashed (not retried again",
			faultStep: 2, wantAttempts: []string{model.CodeServerError, model.CodeServerError}, wantStatus: []int{500, 500},
		},
		{
			name:     "answers 429 with Retry-After, then answers",
			steps:    []wiretest.Step{wiretest.RateLimited("7"), wiretest.Text(writeInitOK)},
			wantStop: schemas.StopDone, faultStep: 2, wantAttempts: []string{model.CodeRateLimited, ""},
			wantStatus: []int{429, 0}, wantWaitMS: []int64{7000, 0},
		},
		{
			name:     "answers 429 with a Retry-After longer than the run waits",
			steps:    []wiretest.Step{wiretest.RateLimited("3600")},
			wantStop: schemas.StopModelError, wantError: "Retry-After",
			faultStep: 2, wantAttempts: []string{model.CodeRateLimited}, wantStatus: []int{429},
		},
		{
			name:     "hangs without a byte, then answers",
			steps:    []wiretest.Step{wiretest.Hang(), wiretest.Text(writeInitOK)},
			wantStop: schemas.StopDone, faultStep: 2, wantAttempts: []string{model.CodeTimeout, ""},
		},
		{
			name:     "hangs without a byte on every attempt",
			steps:    []wiretest.Step{wiretest.Hang(), wiretest.Hang(), wiretest.Hang()},
			wantStop: schemas.StopModelError, wantError: model.CodeTimeout,
			faultStep: 2, wantAttempts: []string{model.CodeTimeout, model.CodeTimeout, model.CodeTimeout},
		},
		{
			name:     "stalls mid-reply, then answers",
			steps:    []wiretest.Step{wiretest.Text(writeInitOK).StallAfter(3), wiretest.Text(writeInitOK)},
			wantStop: schemas.StopDone, faultStep: 2, wantAttempts: []string{model.CodeTimeout, ""},
		},
		{
			name: "returns an HTML page instead of JSON, then answers",
			host: func(t *testing.T, srv *wiretest.Ollama) string {
				srv.Push(wiretest.Text(writeInitOK))
				return garbling(t, srv, map[int]string{2: "<html><body><h1>502 Bad Gateway</h1></body></html>\n"})
			},
			wantStop: schemas.StopDone, faultStep: 2, wantAttempts: []string{model.CodeServerError, ""},
		},
		{
			name: "returns a line of broken JSON mid-stream, then answers",
			host: func(t *testing.T, srv *wiretest.Ollama) string {
				srv.Push(wiretest.Text(writeInitOK))
				return garbling(t, srv, map[int]string{2: garbledLine(t)})
			},
			wantStop: schemas.StopDone, faultStep: 2, wantAttempts: []string{model.CodeStreamCut, ""},
		},
		{
			name:     "ends the stream without its done chunk, then answers",
			steps:    []wiretest.Step{wiretest.Text(writeInitOK).WithoutDone(), wiretest.Text(writeInitOK)},
			wantStop: schemas.StopDone, faultStep: 2, wantAttempts: []string{model.CodeStreamCut, ""},
		},
		{
			name:     "sends an error line after the output started, then answers",
			steps:    []wiretest.Step{wiretest.Text(writeInitOK).ErrorAfter(2, "an error was encountered while running the model"), wiretest.Text(writeInitOK)},
			wantStop: schemas.StopDone, faultStep: 2, wantAttempts: []string{model.CodeStreamError, ""},
		},
		{
			name:     "returns an empty reply",
			steps:    []wiretest.Step{wiretest.Text(""), wiretest.Text(writeInitOK)},
			wantStop: schemas.StopDone, faultStep: 2, wantAttempts: []string{""},
			check: func(t *testing.T, run *trace.Run) {
				if o := run.Turns[1].Outcome; o.Status != schemas.StatusRefused || o.Code != schemas.CodeEmptyReply {
					t.Errorf("the empty reply's outcome is %+v, want refused %s", o, schemas.CodeEmptyReply)
				}
			},
		},
		{
			name:     "returns a 2 MB reply",
			steps:    []wiretest.Step{wiretest.Answer(wiretest.Reply{Chunks: bigChunks}), wiretest.Text(writeInitOK)},
			wantStop: schemas.StopDone, faultStep: 2, wantAttempts: []string{""},
			check: func(t *testing.T, run *trace.Run) {
				turn := run.Turns[1]
				if turn.Reply.Content != twoMB {
					t.Errorf("the 2 MB reply was recorded as %d bytes", len(turn.Reply.Content))
				}
				if o := turn.Outcome; o.Status != schemas.StatusRefused || o.Code != schemas.CodeParseFailed {
					t.Errorf("the 2 MB reply's outcome is %+v, want refused %s", o, schemas.CodeParseFailed)
				}
				for _, later := range run.Turns[2:] {
					if later.Sent.PromptTokensEstimate > 4096-512 {
						t.Errorf("step %d sent a prompt of about %d tokens, over the budget", later.Step, later.Sent.PromptTokensEstimate)
					}
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := wiretest.NewOllama(t)
			srv.Push(wiretest.Text(goodDrafts[0]))
			srv.Push(tt.steps...)
			host := srv.URL
			if tt.host != nil {
				host = tt.host(t, srv)
			}
			// Whatever the fault, the rest of the run is there to be had.
			for _, d := range goodDrafts[2:] {
				srv.Push(wiretest.Text(d))
			}
			var mu sync.Mutex
			var waits []time.Duration
			transport := http.DefaultTransport.(*http.Transport).Clone()
			client, err := ollama.New(ollama.Config{Host: host, Model: "tiny", IdleTimeout: 500 * time.Millisecond,
				HTTPClient: &http.Client{Transport: transport},
				Retry: model.Retry{Max: maxRetries, Sleep: func(ctx context.Context, d time.Duration) error {
					mu.Lock()
					defer mu.Unlock()
					waits = append(waits, d)
					return ctx.Err()
				}}})
			if err != nil {
				t.Fatal(err)
			}
			var chat Chatter = client
			if tt.dieAfter > 0 {
				chat = &dying{Chatter: client, srv: srv, transport: transport, after: tt.dieAfter}
			}
			repo := t.TempDir()
			writeTree(t, repo, fixture)
			cfg := Config{RunID: "fault", OutDir: t.TempDir(), Repo: repo, TaskSpec: schemas.TaskSpec{Task: "Add initials(name) to initials.py", Targets: []string{"initials.py"}, Names: []string{"initials"}},
				SuiteTimeout: time.Minute,
				Model:        schemas.Model{Backend: "ollama", Name: "tiny", Options: schemas.Options{NumCtx: 4096, NumPredict: 512}}}
			res, err := Run(context.Background(), cfg, chat)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			e := res.End
			if e.StopReason != tt.wantStop {
				t.Fatalf("stop reason %s (verdict %s, error %q), want %s", e.StopReason, e.Verdict, e.Error, tt.wantStop)
			}
			switch tt.wantStop {
			case schemas.StopModelError:
				if e.Verdict != schemas.VerdictError || e.FailureClass != "" {
					t.Errorf("verdict %s class %q, want error and no failure class", e.Verdict, e.FailureClass)
				}
				if !strings.Contains(e.Error, tt.wantError) {
					t.Errorf("run_end.error = %q, want it to name %q", e.Error, tt.wantError)
				}
			default:
				if e.Verdict != schemas.VerdictWorked {
					t.Errorf("verdict %s (%s), want worked: the run should have gone on", e.Verdict, e.FailureClass)
				}
			}
			checkTraceValid(t, res.TracePath, true)
			run, err := trace.ReadRun(trace.File{RunID: "fault", Path: res.TracePath})
			if err != nil {
				t.Fatal(err)
			}
			if len(run.Turns) < tt.faultStep {
				t.Fatalf("the trace holds %d turns, want at least %d", len(run.Turns), tt.faultStep)
			}
			atts := run.Turns[tt.faultStep-1].Attempts
			if len(atts) != len(tt.wantAttempts) {
				t.Fatalf("step %d recorded %d attempts %+v, want %d", tt.faultStep, len(atts), atts, len(tt.wantAttempts))
			}
			if len(atts) > maxRetries+1 {
				t.Errorf("%d attempts: more than the %d retries allowed", len(atts), maxRetries)
			}
			for i, want := range tt.wantAttempts {
				a := atts[i]
				if a.N != i+1 {
					t.Errorf("attempt %d is numbered %d", i+1, a.N)
				}
				if !attemptCodeIs(a.Error, want) {
					t.Errorf("attempt %d error %q, want code %q", i+1, a.Error, want)
				}
				if i < len(tt.wantStatus) && a.Status != tt.wantStatus[i] {
					t.Errorf("attempt %d status %d, want %d", i+1, a.Status, tt.wantStatus[i])
				}
				if i < len(tt.wantWaitMS) && a.WaitMS != tt.wantWaitMS[i] {
					t.Errorf("attempt %d waited %d ms, want %d", i+1, a.WaitMS, tt.wantWaitMS[i])
				}
			}
			if tt.wantStop == schemas.StopModelError {
				last := run.Turns[len(run.Turns)-1]
				if last.Outcome.Status != schemas.StatusFailed || string(last.Outcome.Code) != tt.wantAttempts[len(tt.wantAttempts)-1] {
					t.Errorf("the failed step's outcome is %+v", last.Outcome)
				}
			}
			if tt.check != nil {
				tt.check(t, run)
			}
		})
	}
}
