package httpwatch

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestExchange(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "3")
		w.WriteHeader(http.StatusTeapot)
		w.Write([]byte("x"))
		w.(http.Flusher).Flush()
		if r.URL.Path == "/stall" {
			select {
			case <-r.Context().Done():
			case <-release:
			}
		}
	}))
	defer srv.Close()
	defer close(release)
	client := Client(&http.Client{Timeout: time.Nanosecond}) // the timeout must be dropped

	tests := []struct {
		path     string
		idle     time.Duration
		timedOut bool
	}{
		{path: "/whole", idle: 0},
		{path: "/stall", idle: 50 * time.Millisecond, timedOut: true},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			ctx, ex, stop := Start(context.Background(), tt.idle)
			defer stop()
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+tt.path, nil)
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(body) != "x" || (err != nil) != tt.timedOut {
				t.Errorf("body %q, read error %v", body, err)
			}
			if timedOut(ctx) != tt.timedOut || (ex.ReadErr() != nil) != tt.timedOut {
				t.Errorf("timedOut = %v, ReadErr = %v, want timed out: %v", timedOut(ctx), ex.ReadErr(), tt.timedOut)
			}
			if ex.Status() != http.StatusTeapot || ex.Header().Get("Retry-After") != "3" || !ex.Started() {
				t.Errorf("status %d, header %v, started %v", ex.Status(), ex.Header(), ex.Started())
			}
		})
	}
}
