package main

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pyharness/pyharness/datasets"
	"github.com/pyharness/pyharness/internal/testkit/wiretest"
)

// slotsScript is each conversation's script in the slots test and
// measurement: run the suite, then claim DONE without quoting a line,
// refused every time, until the stuck rule or the budget ends the run.
var slotsScript = []wiretest.Step{wiretest.Text("RUN tests"), wiretest.Text("DONE nothing to change, the code is already correct")}

// collect --jobs J against one Ollama server with k slots keeps J runs'
// requests in flight and min(J, k) slots answering, never more: the
// server holds replies until J requests have been in flight at once (a
// scheduler that runs fewer at once never opens it, and the test fails
// on its deadline), then counts. No time is measured.
func TestCollectFillsTheSlots(t *testing.T) {
	cases, err := datasets.Cases()
	if err != nil {
		t.Fatal(err)
	}
	const slots = 4
	for _, jobs := range []int{1, slots, slots + 2} {
		t.Run(fmt.Sprintf("jobs %d, %d slots", jobs, slots), func(t *testing.T) {
			srv := wiretest.NewOllama(t)
			srv.Trained = wiretest.Trained4096
			srv.Slots, srv.HoldUntil, srv.ReplyDelay = slots, jobs, 100*time.Millisecond
			srv.Conversation(slotsScript...)
			args := []string{"collect", "--model", "ollama:tiny", "--base-url", srv.URL, "--passes", "1", "--jobs", strconv.Itoa(jobs),
				"--out", filepath.Join(t.TempDir(), "out")}
			for _, c := range cases[:slots+2] {
				args = append(args, "--case", c.ID)
			}
			done := make(chan struct{})
			go func() {
				select {
				case <-done:
				case <-time.After(5 * time.Minute):
					in, _ := srv.Peak()
					t.Errorf("deadline: the server never had %d requests in flight at once (at most %d)", jobs, in)
					srv.Close()
				}
			}()
			code, stdout, stderr := runCLI(t, args...)
			close(done)
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
			}
			inFlight, busy := srv.Peak()
			if inFlight != jobs || busy != min(jobs, slots) {
				t.Errorf("at most %d requests in flight and %d slots answering; want %d and %d", inFlight, busy, jobs, min(jobs, slots))
			}
			// Every run played its own script: RUN tests, then three
			// refused DONEs and the stuck stop.
			if n := len(srv.ChatRequests()); n != 4*(slots+2) || !strings.Contains(stdout, fmt.Sprintf("%d run: 0 worked, %d failed", slots+2, slots+2)) {
				t.Errorf("%d chat requests, want %d\n%s", n, 4*(slots+2), stdout)
			}
		})
	}
}

// BenchmarkCollectAgainstSlots is the measurement of docs/performance.md
// ("`collect --jobs` against a server's slots"): collect --passes 1 over the
// fifteen cases against a stand-in Ollama with 4 slots and a fixed delay
// per reply, each conversation playing slotsScript, at --jobs 1 and 4,
// with the stuck rule (the default) and without it (--stuck-after 0).
// Run it once:
//
//	go test ./cmd/pyharness -run '^$' -bench CollectAgainstSlots -benchtime 1x
func BenchmarkCollectAgainstSlots(b *testing.B) {
	const slots, delay = 4, 300 * time.Millisecond
	for _, stuck := range []string{"3", "0"} {
		for _, jobs := range []int{1, slots} {
			b.Run(fmt.Sprintf("stuck-after=%s/jobs=%d", stuck, jobs), func(b *testing.B) {
				for range b.N {
					srv := wiretest.NewOllama(b)
					srv.Trained = wiretest.Trained4096
					srv.Slots, srv.ReplyDelay = slots, delay
					srv.Conversation(slotsScript...)
					var out, errb strings.Builder
					a := &app{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, now: time.Now, getenv: func(string) string { return "" }}
					start := time.Now()
					code := run(b.Context(), a, []string{"collect", "--model", "ollama:tiny", "--base-url", srv.URL, "--passes", "1",
						"--jobs", strconv.Itoa(jobs), "--stuck-after", stuck, "--out", filepath.Join(b.TempDir(), "out")})
					wall := time.Since(start).Seconds()
					if code != 0 {
						b.Fatalf("exit %d\n%s\n%s", code, out.String(), errb.String())
					}
					calls := len(srv.ChatRequests())
					_, busy := srv.Peak()
					b.ReportMetric(wall, "wall-s")
					b.ReportMetric(float64(calls), "calls")
					b.ReportMetric(float64(calls)*delay.Seconds()/wall, "busy-slots")
					b.ReportMetric(float64(busy), "peak-busy")
				}
			})
		}
	}
}
