package model_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pyharness/pyharness/harness/model"
	"github.com/pyharness/pyharness/schemas"
)

// script returns a call that fails with errs in order, then answers.
func script(errs ...error) (call func(context.Context) (model.Reply, error), calls *int) {
	n := 0
	return func(context.Context) (model.Reply, error) {
		n++
		if n <= len(errs) {
			return model.Reply{}, errs[n-1]
		}
		return model.Reply{Reply: schemas.Reply{Content: "ok"}}, nil
	}, &n
}

func fault(code string) *model.Error { return model.NewError(code, "boom", nil) }

func TestRetryDo(t *testing.T) {
	greedy := model.Retry{}.ForRequest(model.Request{Options: schemas.Options{Temperature: 0}})
	peg := "The model produced output that does not match the expected peg-native format"
	rateLimited := func(after time.Duration) *model.Error {
		e := model.FromStatus(429, "slow down", nil)
		e.RetryAfter = after
		return e
	}
	tests := []struct {
		name      string
		retry     model.Retry
		errs      []error
		wantCode  string // "" for a reply
		wantCalls int
		wantWaits []time.Duration
		wantAtts  []schemas.Attempt
	}{
		{
			name: "first call answers", wantCalls: 1,
			wantAtts: []schemas.Attempt{{N: 1}},
		},
		{
			name: "retryable then answer", errs: []error{fault(model.CodeStreamCut), fault(model.CodeTimeout)},
			retry: model.Retry{Base: time.Second}, wantCalls: 3, wantWaits: []time.Duration{time.Second, 2 * time.Second},
			wantAtts: []schemas.Attempt{{N: 1, Error: "stream-cut: boom", WaitMS: 1000}, {N: 2, Error: "timeout: boom", WaitMS: 2000}, {N: 3}},
		},
		{
			name: "not retryable", errs: []error{fault(model.CodeModelNotFound)},
			wantCode: model.CodeModelNotFound, wantCalls: 1,
			wantAtts: []schemas.Attempt{{N: 1, Error: "model-not-found: boom"}},
		},
		{
			name: "default is three retries", errs: []error{fault(model.CodeServerError), fault(model.CodeServerError), fault(model.CodeServerError), fault(model.CodeServerError)},
			wantCode: model.CodeServerError, wantCalls: 4, wantWaits: []time.Duration{time.Second, 2 * time.Second, 4 * time.Second},
		},
		{
			name: "negative Max means no retry", retry: model.Retry{Max: -1}, errs: []error{fault(model.CodeServerError)},
			wantCode: model.CodeServerError, wantCalls: 1,
		},
		{
			name: "backoff capped at MaxWait", retry: model.Retry{Max: 4, Base: time.Second, MaxWait: 3 * time.Second},
			errs:      []error{fault(model.CodeServerBusy), fault(model.CodeServerBusy), fault(model.CodeServerBusy), fault(model.CodeServerBusy)},
			wantCalls: 5, wantWaits: []time.Duration{time.Second, 2 * time.Second, 3 * time.Second, 3 * time.Second},
		},
		{
			name: "Retry-After honoured", errs: []error{rateLimited(7 * time.Second)},
			wantCalls: 2, wantWaits: []time.Duration{7 * time.Second},
			wantAtts: []schemas.Attempt{{N: 1, Error: "rate-limited: HTTP 429: slow down", Status: 429, WaitMS: 7000}, {N: 2}},
		},
		{
			name: "Retry-After beyond MaxWait gives up", retry: model.Retry{MaxWait: 10 * time.Second}, errs: []error{rateLimited(time.Minute)},
			wantCode: model.CodeRateLimited, wantCalls: 1,
		},
		{
			name: "the same server error twice at temperature 0: not retried again", retry: greedy,
			errs:     []error{fault(model.CodeServerError), fault(model.CodeServerError), fault(model.CodeServerError)},
			wantCode: model.CodeServerError, wantCalls: 2, wantWaits: []time.Duration{time.Second},
		},
		{
			name: "the same error event twice at temperature 0: not retried again", retry: greedy,
			errs:     []error{fault(model.CodeStreamError), fault(model.CodeStreamError)},
			wantCode: model.CodeStreamError, wantCalls: 2, wantWaits: []time.Duration{time.Second},
		},
		{
			name: "different server errors at temperature 0 are retried", retry: greedy,
			errs:      []error{model.NewError(model.CodeServerError, "a", nil), model.NewError(model.CodeServerError, "b", nil)},
			wantCalls: 3, wantWaits: []time.Duration{time.Second, 2 * time.Second},
		},
		{
			name: "transport faults repeated at temperature 0 are retried up to Max", retry: greedy,
			errs:     []error{fault(model.CodeStreamCut), fault(model.CodeStreamCut), fault(model.CodeServerBusy), fault(model.CodeServerBusy)},
			wantCode: model.CodeServerBusy, wantCalls: 4, wantWaits: []time.Duration{time.Second, 2 * time.Second, 4 * time.Second},
		},
		{
			name:     "the server's parser rejecting the output twice, sampled: not retried again",
			errs:     []error{model.NewError(model.CodeServerError, peg, nil), model.NewError(model.CodeServerError, peg, nil), model.NewError(model.CodeServerError, peg, nil)},
			wantCode: model.CodeServerError, wantCalls: 2, wantWaits: []time.Duration{time.Second},
		},
		{
			name: "a plain error is a backend bug, not retried", errs: []error{errors.New("oops")},
			wantCode: model.CodeBadResponse, wantCalls: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s sleeps
			tt.retry.Sleep = s.sleep
			call, calls := script(tt.errs...)
			reply, err := tt.retry.Do(context.Background(), call)
			var atts []schemas.Attempt
			if tt.wantCode == "" {
				if err != nil {
					t.Fatalf("Do: %v", err)
				}
				atts = reply.Attempts
			} else {
				e := wantError(t, err, tt.wantCode)
				atts = e.Attempts
			}
			if *calls != tt.wantCalls {
				t.Errorf("%d calls, want %d", *calls, tt.wantCalls)
			}
			if len(atts) != tt.wantCalls {
				t.Errorf("%d attempts recorded, want one per call (%d): %+v", len(atts), tt.wantCalls, atts)
			}
			if got := s.got(); !reflect.DeepEqual(got, tt.wantWaits) {
				t.Errorf("waits = %v, want %v", got, tt.wantWaits)
			}
			if tt.wantAtts != nil && !reflect.DeepEqual(atts, tt.wantAtts) {
				t.Errorf("attempts = %+v, want %+v", atts, tt.wantAtts)
			}
		})
	}
}

// TestRetryCancelDuringCall: whatever the transport made of a cancel, the
// attempt is recorded as cancelled.
func TestRetryCancelDuringCall(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	_, err := model.Retry{}.Do(ctx, func(context.Context) (model.Reply, error) {
		cancel()
		return model.Reply{}, fault(model.CodeStreamCut)
	})
	e := wantError(t, err, model.CodeCancelled)
	if len(e.Attempts) != 1 || !strings.HasPrefix(e.Attempts[0].Error, "cancelled") {
		t.Errorf("attempts = %+v, want one cancelled attempt", e.Attempts)
	}
}

func TestFromStatus(t *testing.T) {
	tests := []struct {
		status    int
		message   string
		wantCode  string
		retryable bool
	}{
		{404, "model 'llama3.1:8b' not found", model.CodeModelNotFound, false},
		{400, "the input length exceeds the context length", model.CodeContextOverflow, false},
		{400, "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens", model.CodeContextOverflow, false},
		{400, "context_length_exceeded: too long", model.CodeContextOverflow, false},
		{400, "the request exceeds the available context size, try increasing it", model.CodeContextOverflow, false},
		{400, "registry.ollama.ai/library/tiny:latest does not support tools", model.CodeToolsUnsupported, false},
		{400, "invalid message format", model.CodeBadRequest, false},
		{401, "invalid api key", model.CodeBadRequest, false},
		{408, "", model.CodeTimeout, true},
		{429, "too many requests", model.CodeRateLimited, true},
		{500, "llama runner process has terminated", model.CodeServerError, true},
		{502, "", model.CodeServerError, true},
		{503, "server busy, please try again.  maximum pending requests exceeded", model.CodeServerBusy, true},
		{504, "", model.CodeTimeout, true},
	}
	for _, tt := range tests {
		e := model.FromStatus(tt.status, tt.message, nil)
		if e.Code != tt.wantCode || e.Retryable != tt.retryable || e.Status != tt.status || e.Message == "" {
			t.Errorf("FromStatus(%d, %q) = %+v, want %s retryable=%v", tt.status, tt.message, e, tt.wantCode, tt.retryable)
		}
	}
}

func TestErrorText(t *testing.T) {
	e := model.FromStatus(404, "model 'x' not found", nil)
	e.Attempts = []schemas.Attempt{{N: 1}, {N: 2}}
	if got, want := e.Error(), "model-not-found: HTTP 404: model 'x' not found (after 2 attempts)"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	var got *model.Error
	if !errors.As(errors.Join(errors.New("step 3"), e), &got) || got.Code != model.CodeModelNotFound {
		t.Errorf("the *Error in a joined chain: %+v", got)
	}
}
