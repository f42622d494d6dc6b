package ordered

import (
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
