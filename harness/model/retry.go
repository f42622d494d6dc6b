package model

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/pyharness/pyharness/schemas"
)

// Default retry settings, used for zero fields of Retry.
const (
	defaultRetries = 3
	defaultBase    = time.Second
	defaultMaxWait = 60 * time.Second
)

// Retry retries transport faults with exponential backoff, a bounded number
// of times, and records every attempt. The zero value is ready to use.
type Retry struct {
	// Max is how many times a failed call is retried: defaultRetries when 0,
	// none when negative.
	Max int
	// Base is the first backoff; it doubles on every retry.
	Base time.Duration
	// MaxWait caps the backoff. A Retry-After longer than MaxWait ends the
	// retries instead: waiting less than the server asked only earns
	// another refusal.
	MaxWait time.Duration
	// Sleep waits d or until ctx is done. Tests inject one that returns at
	// once and remembers d.
	Sleep func(ctx context.Context, d time.Duration) error

	// greedy is set by ForRequest for a request sampled at temperature 0:
	// the same bytes then get the same answer, so a server error repeated
	// word for word will be repeated again.
	greedy bool
}

// ForRequest returns r for the attempts of req. Every backend sends the
// same bytes on every attempt of a call; at temperature 0 a server error
// repeated identically is then deterministic, and is not retried again.
func (r Retry) ForRequest(req Request) Retry {
	r.greedy = req.Options.Temperature == 0
	return r
}

// deterministic says why a server error will come back for this request
// whatever the number of retries, or "" when it may not. A server error
// (an error status or an error inside a stream) is deterministic when
//   - the server says so: llama-server's own parser rejecting the model's
//     output ("does not match the expected … format") rejects the same
//     output again, and at temperature 0 the output is the same; after
//     one retry (the output may differ when sampled), it is not retried;
//   - the server shows it: at temperature 0 the same request got the same
//     error (code, status and message) twice.
//
// Transport faults (connection, timeout, cut stream) and the 429 and 503
// a busy server sends are never deterministic: they say nothing about the
// request.
func (r Retry) deterministic(e, prev *Error) string {
	if e.Code != CodeServerError && e.Code != CodeStreamError {
		return ""
	}
	if prev != nil && statesDeterministic(prev.Message) && statesDeterministic(e.Message) {
		return "the server's parser rejected the model's output twice, and it rejects the same output every time"
	}
	if r.greedy && prev != nil && prev.Code == e.Code && prev.Status == e.Status && prev.Message == e.Message {
		return "the same request at temperature 0 got the same error twice; it would get it again"
	}
	return ""
}

// statesDeterministic recognises a server error that is about the model's
// output, not the server's health: llama-server's "The model produced
// output that does not match the expected <format> format".
func statesDeterministic(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "does not match the expected") && strings.Contains(m, "format")
}

func (r Retry) withDefaults() Retry {
	switch {
	case r.Max == 0:
		r.Max = defaultRetries
	case r.Max < 0:
		r.Max = 0
	}
	if r.Base <= 0 {
		r.Base = defaultBase
	}
	if r.MaxWait <= 0 {
		r.MaxWait = defaultMaxWait
	}
	if r.Sleep == nil {
		r.Sleep = sleepContext
	}
	return r
}

// sleepContext waits d, or less if ctx is done first (then it returns the
// context's cause).
func sleepContext(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// NoSleep is a Sleep that does not wait, for backends whose faults are
// simulated: the wait is still computed and recorded.
func NoSleep(ctx context.Context, _ time.Duration) error { return ctx.Err() }

// Do calls call until it succeeds, fails with an error that is not worth
// retrying, or has been retried Max times. Only an *Error with Retryable set
// is retried. The reply or the final *Error lists every attempt. A done ctx
// stops at once with Code "cancelled".
func (r Retry) Do(ctx context.Context, call func(ctx context.Context) (Reply, error)) (Reply, error) {
	r = r.withDefaults()
	var attempts []schemas.Attempt
	var prev *Error // the previous attempt's error, as the server gave it
	for n := 1; ; n++ {
		if ctx.Err() != nil {
			return Reply{}, cancelled(ctx, attempts, nil)
		}
		reply, err := call(ctx)
		if err == nil {
			reply.Attempts = append(attempts, schemas.Attempt{N: n})
			return reply, nil
		}
		e := asError(err)
		if ctx.Err() != nil {
			// Whatever the transport made of it, the call failed because
			// the caller gave up.
			return Reply{}, cancelled(ctx, attempts, &schemas.Attempt{N: n, Error: e.Error(), Status: e.Status})
		}
		att := schemas.Attempt{N: n, Error: e.Error(), Status: e.Status}
		if why := r.deterministic(e, prev); e.Retryable && why != "" {
			e.Attempts = append(attempts, att)
			e.Retryable = false
			e.Message = fmt.Sprintf("%s (not retried again: %s)", e.Message, why)
			return Reply{}, e
		}
		if !e.Retryable || n > r.Max {
			e.Attempts = append(attempts, att)
			return Reply{}, e
		}
		prev = &Error{Code: e.Code, Status: e.Status, Message: e.Message}
		wait := r.backoff(n)
		if e.RetryAfter > 0 {
			if e.RetryAfter > r.MaxWait {
				e.Attempts = append(attempts, att)
				e.Message = fmt.Sprintf("%s (Retry-After %s is longer than the %s this run waits)", e.Message, e.RetryAfter, r.MaxWait)
				return Reply{}, e
			}
			wait = e.RetryAfter
		}
		att.WaitMS = wait.Milliseconds()
		attempts = append(attempts, att)
		if err := r.Sleep(ctx, wait); err != nil {
			if ctx.Err() == nil {
				// A Sleep that fails on its own cannot wait: give up with
				// the fault that asked for the wait.
				e.Attempts = attempts
				return Reply{}, e
			}
			return Reply{}, cancelled(ctx, attempts, nil)
		}
	}
}

// backoff is the wait after the n-th failed attempt: Base, 2×Base, 4×Base…
// up to MaxWait.
func (r Retry) backoff(n int) time.Duration {
	d := r.Base
	for i := 1; i < n && d < r.MaxWait; i++ {
		d *= 2
	}
	return min(d, r.MaxWait)
}

// asError returns err as an *Error. Anything else is a bug in a backend, so
// it is not retried, but it still carries the attempts.
func asError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: CodeBadResponse, Message: err.Error(), Err: err}
}

func cancelled(ctx context.Context, attempts []schemas.Attempt, last *schemas.Attempt) *Error {
	cause := context.Cause(ctx)
	if last != nil {
		last.Error = fmt.Sprintf("%s: %v", CodeCancelled, cause)
		attempts = append(attempts, *last)
	}
	return &Error{Code: CodeCancelled, Message: cause.Error(), Attempts: attempts, Err: cause}
}
