package httpwatch

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"time"
)

// errIdle is the cancel cause of a request whose server sent no byte for
// the idle timeout.
var errIdle = errors.New("no byte from the server within the idle timeout")

// Exchange is what the transport saw of one request.
type Exchange struct {
	idle   time.Duration
	timer  *time.Timer
	cancel context.CancelCauseFunc

	mu      sync.Mutex
	status  int
	header  http.Header
	readErr error
	started bool
}

type exchangeKey struct{}

// Start derives a context for one request, watched by an idle timer (none
// when idle is 0) that starts now and restarts on every byte received.
// stop releases the timer and the context.
func Start(parent context.Context, idle time.Duration) (ctx context.Context, ex *Exchange, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ex = &Exchange{idle: idle, cancel: cancel}
	if idle > 0 {
		ex.timer = time.AfterFunc(idle, func() { cancel(errIdle) })
	}
	stop = func() {
		if ex.timer != nil {
			ex.timer.Stop()
		}
		cancel(context.Canceled)
	}
	return context.WithValue(ctx, exchangeKey{}, ex), ex, stop
}

// timedOut reports whether the request was cancelled by the idle timer.
func timedOut(ctx context.Context) bool {
	return errors.Is(context.Cause(ctx), errIdle)
}

func (ex *Exchange) touch() {
	if ex.timer != nil {
		ex.timer.Reset(ex.idle)
	}
}

// Status returns the HTTP status received, 0 if none.
func (ex *Exchange) Status() int {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	return ex.status
}

// Header returns the headers of the answer, nil if none arrived.
func (ex *Exchange) Header() http.Header {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	return ex.header
}

// ReadErr returns the first error other than io.EOF met reading the body:
// a connection dropped mid-stream shows here even when the client library
// treats it as a normal end.
func (ex *Exchange) ReadErr() error {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	return ex.readErr
}

// Started reports whether any body byte arrived.
func (ex *Exchange) Started() bool {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	return ex.started
}

// Transport is a RoundTripper that feeds the Exchange found in each
// request's context; requests without one pass through untouched.
type Transport struct {
	Base http.RoundTripper
}

// Client returns an *http.Client without a timeout of its own whose
// transport watches exchanges, over base (http.DefaultTransport when nil).
func Client(base *http.Client) *http.Client {
	c := &http.Client{}
	if base != nil {
		*c = *base
	}
	c.Timeout = 0
	c.Transport = &Transport{Base: c.Transport}
	return c
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	resp, err := base.RoundTrip(req)
	ex, _ := req.Context().Value(exchangeKey{}).(*Exchange)
	if err != nil || ex == nil {
		return resp, err
	}
	ex.touch()
	ex.mu.Lock()
	ex.status, ex.header = resp.StatusCode, resp.Header.Clone()
	ex.mu.Unlock()
	resp.Body = &body{rc: resp.Body, ex: ex}
	return resp, nil
}

type body struct {
	rc io.ReadCloser
	ex *Exchange
}

func (b *body) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if n > 0 {
		b.ex.touch()
	}
	if n > 0 || (err != nil && err != io.EOF) {
		b.ex.mu.Lock()
		if n > 0 {
			b.ex.started = true
		}
		if err != nil && err != io.EOF && b.ex.readErr == nil {
			b.ex.readErr = err
		}
		b.ex.mu.Unlock()
	}
	return n, err
}

func (b *body) Close() error { return b.rc.Close() }
