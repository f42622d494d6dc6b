package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/pyharness/pyharness/harness"
)

// registerStuckAfter defines --stuck-after, the same on run, bench, collect
// and loop; prefix starts its help (loop's "bench: ").
func registerStuckAfter(cmd *cobra.Command, p *int, prefix string) {
	cmd.Flags().IntVar(p, "stuck-after", harness.DefaultStuckAfter, prefix+"stop a run (stop reason stuck) when the same draft is refused with the same code this many times in a row; 0 turns the rule off")
}

// checkStuckAfter refuses a --stuck-after that is no limit.
func checkStuckAfter(n int) error {
	if n < 0 {
		return fmt.Errorf("--stuck-after must be 0 (off) or more, not %d", n)
	}
	return nil
}

// stuckLimit is --stuck-after as harness.Config takes it: the flag's 0
// (off) is the config's negative value, since a zero config is the default.
func stuckLimit(flag int) int {
	if flag == 0 {
		return -1
	}
	return flag
}
