package httpwatch

import (
	"bufio"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/harness/model"
)

// How a server that is gone reads, on real sockets: nothing listening is a
// refusal; a server that took the connection and closed or reset it before
// answering is a dropped stream (a kept-alive connection the server closed
// works again on the next dial). Both are retried; the run's error is the
// last attempt's, a refusal when the server stays down.
func TestUnreachableTellsARefusalFromADrop(t *testing.T) {
	for _, tt := range []struct {
		name string
		// serve handles the one connection; nil means nothing listens.
		serve func(c *net.TCPConn)
		want  string
	}{
		{"nothing listens", nil, model.CodeConnectionRefused},
		{"closed after reading the request", func(c *net.TCPConn) {
			http.ReadRequest(bufio.NewReader(c))
			c.Close()
		}, model.CodeStreamCut},
		{"reset after reading the request", func(c *net.TCPConn) {
			http.ReadRequest(bufio.NewReader(c))
			c.SetLinger(0) // close with RST, as a killed process's kernel does
			c.Close()
		}, model.CodeStreamCut},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			url := "http://" + ln.Addr().String() + "/api/chat"
			if tt.serve == nil {
				ln.Close()
			} else {
				defer ln.Close()
				go func() {
					c, err := ln.Accept()
					if err == nil {
						tt.serve(c.(*net.TCPConn))
					}
				}()
			}
			resp, err := http.Post(url, "application/json", strings.NewReader(`{"model":"tiny"}`))
			if err == nil {
				resp.Body.Close()
				t.Fatal("the request got an answer")
			}
			e := Unreachable(err)
			if e == nil || e.Code != tt.want || !e.Retryable {
				t.Fatalf("Unreachable(%v) = %+v, want retryable %s", err, e, tt.want)
			}
		})
	}
}
