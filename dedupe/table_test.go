package dedupe

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// The table returns exactly the values added under a hash, through its
// doublings, with many values under one hash and hashes that share a home
// slot.
func TestTableMatchesAMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	var tb table
	want := map[uint32][]int32{}
	hashes := []uint32{0, 1, 0xffffffff}
	for range 200 {
		hashes = append(hashes, rng.Uint32())
	}
	for v := range int32(50_000) {
		h := hashes[rng.IntN(len(hashes))]
		if v%7 == 0 {
			h = rng.Uint32() // mostly distinct hashes, as band hashes are
		}
		tb.add(h, v)
		want[h] = append(want[h], v)
	}
	if len(tb.slots)*3 < tb.n*4 {
		t.Fatalf("%d values in %d slots: more than three quarters full", tb.n, len(tb.slots))
	}
	for h, vs := range want {
		got := tb.appendValues(nil, h)
		slices.Sort(got)
		if !slices.Equal(got, vs) {
			t.Fatalf("hash %#x: %d values, want %d", h, len(got), len(vs))
		}
	}
	for range 1000 {
		h := rng.Uint32()
		if _, ok := want[h]; !ok {
			if got := tb.appendValues(nil, h); len(got) != 0 {
				t.Fatalf("hash %#x was never added, got %v", h, got)
			}
		}
	}
	var empty table
	if got := empty.appendValues(nil, 7); len(got) != 0 {
		t.Fatalf("empty table: %v", got)
	}
}
