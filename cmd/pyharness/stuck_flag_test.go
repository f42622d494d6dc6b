package main

import (
	"testing"

	"github.com/pyharness/pyharness/harness"
)

// run's --stuck-after reaches the harness as a limit it applies: 0 turns
// the rule off (a negative config, since the zero config is the default),
// any other value is the limit itself.
func TestStuckAfterFlagReachesTheHarness(t *testing.T) {
	for _, tt := range []struct{ flag, want int }{
		{0, -1},
		{1, 1},
		{harness.DefaultStuckAfter, harness.DefaultStuckAfter},
		{7, 7},
	} {
		if got := stuckLimit(tt.flag); got != tt.want {
			t.Errorf("--stuck-after %d gives the harness %d, want %d", tt.flag, got, tt.want)
		}
	}
}
