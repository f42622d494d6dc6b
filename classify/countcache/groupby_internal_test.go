package countcache

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestGroupByMatchesAMapOfRows: the groups of a row group are its distinct
// rows in the order they first occur, each with how many rows it stands
// for, whichever way group numbers them: keys packed into a table of every
// combination (a few narrow columns), packed into a hash table (a wide
// column such as the feedback's), and folded column by column when they do
// not fit in 64 bits.
func TestGroupByMatchesAMapOfRows(t *testing.T) {
	cases := []struct {
		name   string
		widths []int // the distinct values of each column
		rows   int
		runs   bool // rows repeat the previous one at times
	}{
		{"no columns", nil, 10, false},
		{"one value each", []int{1, 1, 1}, 100, false},
		{"narrow columns", []int{3, 10, 2, 8, 1, 3}, 8192, false},
		{"a wide column among narrow ones", []int{3, 12, 2, 9, 2, 3, 11, 2, 1200}, 8192, true},
		{"every row distinct", []int{8192}, 8192, false},
		{"more than 64 bits", []int{1 << 20, 1 << 20, 1 << 20, 1 << 20}, 5000, false},
		{"no rows", []int{3, 4}, 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(len(c.widths))))
			keys := make([]chunkKeys, len(c.widths))
			for i, w := range c.widths {
				keys[i].ints = make([]int32, w)
				keys[i].idx = make([]int32, c.rows)
				for r := range c.rows {
					switch {
					case c.runs && r > 0 && rng.IntN(3) == 0:
						keys[i].idx[r] = keys[i].idx[r-1]
					case w > 1000 && rng.IntN(2) == 0:
						keys[i].idx[r] = 0 // most turns have no feedback
					default:
						keys[i].idx[r] = int32(rng.IntN(w))
					}
				}
			}
			if c.runs { // whole rows repeated, not only columns
				for r := 1; r < c.rows; r += 7 {
					for i := range keys {
						keys[i].idx[r] = keys[i].idx[r-1]
					}
				}
			}
			var wantFirst, wantCounts []int32
			at := map[string]int{}
			for r := range c.rows {
				row := ""
				for i := range keys {
					row += fmt.Sprint(keys[i].idx[r], ",")
				}
				g, ok := at[row]
				if !ok {
					g = len(wantFirst)
					at[row] = g
					wantFirst = append(wantFirst, int32(r))
					wantCounts = append(wantCounts, 0)
				}
				wantCounts[g]++
			}
			var gb groupBy
			for range 2 { // a second time on the reused buffers
				gb.group(keys, c.rows)
				if !slices.Equal(gb.first, wantFirst) || !slices.Equal(gb.counts, wantCounts) {
					t.Fatalf("%d groups (first rows %v…, counts %v…), want %d (%v…, %v…)", len(gb.first),
						gb.first[:min(5, len(gb.first))], gb.counts[:min(5, len(gb.counts))],
						len(wantFirst), wantFirst[:min(5, len(wantFirst))], wantCounts[:min(5, len(wantCounts))])
				}
			}
		})
	}
}
