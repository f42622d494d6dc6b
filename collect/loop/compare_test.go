package loop

import (
	"math"
	"testing"
)

func TestPairFirstTurns(t *testing.T) {
	side := func(m map[string]bool) side { return side{FirstActions: m} }
	tests := []struct {
		name          string
		before, after map[string]bool
		want          firstTurnPairs
	}{
		{"nothing matched", map[string]bool{"a pass 1": false}, map[string]bool{"b pass 1": true},
			firstTurnPairs{P: 1}},
		{"ten learned, none lost: p = 2/2^10",
			map[string]bool{"a pass 1": false, "b pass 1": false, "c pass 1": false, "d pass 1": false, "e pass 1": false,
				"f pass 1": false, "g pass 1": false, "h pass 1": false, "i pass 1": false, "j pass 1": false, "k pass 1": true},
			map[string]bool{"a pass 1": true, "b pass 1": true, "c pass 1": true, "d pass 1": true, "e pass 1": true,
				"f pass 1": true, "g pass 1": true, "h pass 1": true, "i pass 1": true, "j pass 1": true, "k pass 1": true},
			firstTurnPairs{Matched: 11, Before: 1, After: 11, OnlyAfter: 10, P: 2.0 / 1024}},
		{"runs on one side only are left out",
			map[string]bool{"a pass 1": true, "a pass 2": false},
			map[string]bool{"a pass 1": false, "z pass 9": true},
			firstTurnPairs{Matched: 1, Before: 1, OnlyBefore: 1, P: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := pairFirstTurns(side(tt.before), side(tt.after))
			if math.Abs(got.P-tt.want.P) > 1e-12 {
				t.Errorf("p = %g, want %g", got.P, tt.want.P)
			}
			got.P = tt.want.P
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
