package wiretest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Request is one request a test server received.
type Request struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
}

// JSON decodes the body as a JSON object (nil if it is not one).
func (r Request) JSON() map[string]any {
	var m map[string]any
	if json.Unmarshal(r.Body, &m) != nil {
		return nil
	}
	return m
}

// Lookup returns the value at a path of object keys in the JSON body, e.g.
// Lookup("options", "temperature"), and whether it is present: a field
// that was sent as 0 is present, one that was left out is not.
func (r Request) Lookup(keys ...string) (any, bool) {
	var v any = r.JSON()
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

// server is what both test servers share: the queue of steps, the log of
// requests, and the stream writer that cuts, stalls and hangs.
type server struct {
	t    testing.TB
	http *httptest.Server

	mu       sync.Mutex
	steps    []Step
	requests []Request
	arrived  chan struct{} // closed and replaced on every request
	closed   chan struct{}
	once     sync.Once
}

func newServer(t testing.TB, h http.Handler) *server {
	s := &server{t: t, arrived: make(chan struct{}), closed: make(chan struct{})}
	s.http = httptest.NewServer(h)
	t.Cleanup(s.close)
	return s
}

func (s *server) close() {
	s.once.Do(func() {
		close(s.closed) // release the handlers that hang
		s.http.CloseClientConnections()
		s.http.Close()
	})
}

// record logs a request and returns its body.
func (s *server) record(r *http.Request) []byte {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
	close(s.arrived)
	s.arrived = make(chan struct{})
	s.mu.Unlock()
	return body
}

func (s *server) push(steps ...Step) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.steps = append(s.steps, steps...)
}

func (s *server) peek() (Step, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.steps) == 0 {
		return Step{}, false
	}
	return s.steps[0], true
}

func (s *server) pop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.steps) > 0 {
		s.steps = s.steps[1:]
	}
}

func (s *server) pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.steps)
}

func (s *server) log(path string) []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Request
	for _, r := range s.requests {
		if path == "" || r.Path == path {
			out = append(out, r)
		}
	}
	return out
}

// wait blocks until n requests have arrived or ctx is done.
func (s *server) wait(ctx context.Context, n int) error {
	for {
		s.mu.Lock()
		got, ch := len(s.requests), s.arrived
		s.mu.Unlock()
		if got >= n {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// hang blocks until the client goes away or the server closes.
func (s *server) hang(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-s.closed:
	}
}

// answer writes a whole body at once.
func answer(w http.ResponseWriter, status int, header http.Header, body []byte) {
	for k, vs := range header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(status)
	w.Write(body)
}

// stream writes units one by one, flushing each, as the real servers do,
// and shapes the stream as the step says. final is the index of the first
// unit WithoutDone leaves out; errUnit is the error to send for ErrorAfter.
func (s *server) stream(w http.ResponseWriter, r *http.Request, st Step, status int, header http.Header, units [][]byte, final int, errUnit []byte) {
	if st.cutFirst {
		s.drop(w)
		return
	}
	for k, vs := range header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	for k, vs := range st.header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(status)
	flush := func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	flush()
	n := len(units)
	if st.noDone && final < n {
		n = final
	}
	for i := 0; i <= n; i++ {
		switch {
		case st.cut > 0 && i == st.cut:
			if st.cutInLine && i < len(units) {
				w.Write(units[i][:len(units[i])/2])
				flush()
			}
			s.drop(w)
			return
		case st.stall > 0 && i == st.stall:
			s.hang(r)
			return
		case st.errAt > 0 && i == st.errAt:
			w.Write(errUnit)
			flush()
			return
		case i == n:
			return
		}
		w.Write(units[i])
		flush()
	}
}

// drop closes the connection under the response, so the client sees the
// body end without its proper terminator.
func (s *server) drop(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		s.t.Errorf("wiretest: cannot cut the stream: the response writer is not a Hijacker")
		return
	}
	conn, buf, err := hj.Hijack()
	if err != nil {
		s.t.Errorf("wiretest: cut the stream: %v", err)
		return
	}
	buf.Flush()
	conn.Close()
}

// noStep answers a chat request nothing was pushed for: a test bug, so it
// fails the test, and a 400 (not retried) makes the client fail at once.
func (s *server) noStep(w http.ResponseWriter, r *http.Request) {
	s.t.Errorf("wiretest: %s %s: no step pushed for this request", r.Method, r.URL.Path)
	http.Error(w, `{"error":"wiretest: no step pushed for this request"}`, http.StatusBadRequest)
}
