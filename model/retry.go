package model

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/pyharness/pyharness/schemas"
)

// Default retry settings, used for zero fields of Retry.
const (
	DefaultRetries = 3
	DefaultBase    = time.Second
	DefaultMaxWait = 60 * time.Second
)

// Retry retries transport faults with exponential backoff, a bounded number
// of times, and records every attempt. The zero value is ready to use.
type Retry struct {
	// Max is how many times a failed call is retried: DefaultRetries when 0,
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
}

func (r Retry) withDefaults() Retry {
	switch {
	case r.Max == 0:
		r.Max = DefaultRetries
	case r.Max < 0:
		r.Max = 0
	}
	if r.Base <= 0 {
		r.Base = DefaultBase
	}
	if r.MaxWait <= 0 {
		r.MaxWait = DefaultMaxWait
	}
	if r.Sleep == nil {
		r.Sleep = SleepContext
	}
	return r
}

// SleepContext waits d, or less if ctx is done first (then it returns the
// context's cause).
func SleepContext(ctx context.Context, d time.Duration) error {
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
		if !e.Retryable || n > r.Max {
			e.Attempts = append(attempts, att)
			return Reply{}, e
		}
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
