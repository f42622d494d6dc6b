package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/pyharness/pyharness/collect"
)

// The plain progress line says how many runs are done, and the runs that
// ended cancelled or in a model error apart from them, shown as they happen.
func TestProgressCountsCancelledRunsApart(t *testing.T) {
	var out bytes.Buffer
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a := &app{stderr: &out, now: func() time.Time { return at }}
	p := newProgress(a, "collect")
	for _, tl := range []collect.Tally{
		{Done: 1, Total: 4, Worked: 1},
		{Done: 1, Total: 4, Worked: 1, Cancelled: 1}, // Ctrl-C: the run in flight
		{Done: 2, Total: 4, Worked: 1, Cancelled: 1, Errors: 1},
		{Done: 3, Total: 4, Worked: 2, Cancelled: 1, Errors: 1},
	} {
		at = at.Add(time.Second)
		p.update(tl)
	}
	want := []string{
		"collect: 1/4 runs, 1 worked, 1s",
		"collect: 1/4 runs, 1 worked, 1 cancelled, 2s",
		"collect: 2/4 runs, 1 worked, 1 cancelled, 1 model error, 3s",
		"collect: 3/4 runs, 2 worked, 1 cancelled, 1 model error, 4s",
	}
	if got := strings.Split(strings.TrimSpace(out.String()), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("progress printed\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
