package model

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"
)

// TestRetryCancelStopsAtOnce: a cancel during a long backoff ends the
// wait at once (the real sleep is used) with Code cancelled.
func TestRetryCancelStopsAtOnce(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	sleeping := make(chan struct{})
	r := Retry{Base: time.Hour, MaxWait: 2 * time.Hour, Sleep: func(ctx context.Context, d time.Duration) error {
		close(sleeping)
		return sleepContext(ctx, d)
	}}
	go func() {
		<-sleeping
		cancel()
	}()
	calls := 0
	_, err := r.Do(ctx, func(context.Context) (Reply, error) {
		calls++
		if calls == 1 {
			return Reply{}, NewError(CodeStreamCut, "boom", nil)
		}
		return Reply{}, nil
	})
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeCancelled {
		t.Fatalf("error = %v (%T), want *Error %s", err, err, CodeCancelled)
	}
	if !errors.Is(err, context.Canceled) || e.Retryable {
		t.Errorf("error = %v, want cancelled wrapping context.Canceled, not retryable", err)
	}
	if calls != 1 || len(e.Attempts) != 1 || e.Attempts[0].WaitMS != time.Hour.Milliseconds() {
		t.Errorf("%d calls, attempts %+v", calls, e.Attempts)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 29, 22, 32, 17, 0, time.UTC)
	tests := []struct {
		header http.Header
		want   time.Duration
	}{
		{http.Header{"Retry-After": {"7"}}, 7 * time.Second},
		{http.Header{"Retry-After": {"1.5"}}, 1500 * time.Millisecond},
		{http.Header{"Retry-After": {"Sun, 29 Nov 2026 22:32:47 GMT"}}, 30 * time.Second},
		{http.Header{"Retry-After": {"Sun, 29 Nov 2026 22:32:00 GMT"}}, 0}, // in the past
		{http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"1"}}, 250 * time.Millisecond},
		{http.Header{"Retry-After": {"-3"}}, 0},
		{http.Header{"Retry-After": {"soon"}}, 0},
		{http.Header{}, 0},
	}
	for _, tt := range tests {
		if got := parseRetryAfter(tt.header, now); got != tt.want {
			t.Errorf("parseRetryAfter(%v) = %v, want %v", tt.header, got, tt.want)
		}
	}
}
