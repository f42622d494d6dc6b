package ordered

import (
	"sync/atomic"
	"testing"
	"time"
)

func TestMap(t *testing.T) {
	for _, tc := range []struct {
		name    string
		n       int
		workers int
		stop    int // stop after this many results; -1 reads all
	}{
		{"empty", 0, 2, -1},
		{"one", 1, 2, -1},
		{"serial", 50, 1, -1},
		{"parallel", 1000, 3, -1},
		{"more workers than items", 3, 8, -1},
		{"stop early", 1000, 2, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := make([]int, tc.n)
			for i := range in {
				in[i] = i
			}
			got := 0
			for i, r := range Map(in, tc.workers, func(x int) int {
				if x%7 == 0 {
					time.Sleep(time.Microsecond * time.Duration(x%5)) // finish out of order
				}
				return x * x
			}) {
				if i != got || r != i*i {
					t.Fatalf("result %d: index %d value %d", got, i, r)
				}
				got++
				if got == tc.stop {
					break
				}
			}
			want := tc.n
			if tc.stop >= 0 {
				want = tc.stop
			}
			if got != want {
				t.Errorf("%d results, want %d", got, want)
			}
		})
	}
}

// TestMapAheadBoundsTheWindow holds the consumer back and checks that the
// workers never get more than the window ahead of it.
func TestMapAheadBoundsTheWindow(t *testing.T) {
	for _, window := range []int{1, 2, 8, 64} {
		in := make([]int, 500)
		var started atomic.Int64
		consumed := 0
		for i := range MapAhead(in, 2, window, func(int) int { started.Add(1); return 0 }) {
			time.Sleep(10 * time.Microsecond) // a slow consumer
			// f of i+window may have started; f of i+window+1 may not: its
			// slot is not free until result i is taken.
			if s := started.Load(); s > int64(i+max(window, 2)+1) {
				t.Fatalf("window %d: %d started when result %d was taken", window, s, i)
			}
			consumed++
		}
		if consumed != len(in) {
			t.Fatalf("window %d: %d results, want %d", window, consumed, len(in))
		}
	}
}
