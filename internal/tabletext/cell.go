package tabletext

import "fmt"

// None is the cell of a value that is absent, or a share of nothing.
const None = "—"

// Dash returns s, or None for an empty s.
func Dash(s string) string {
	if s == "" {
		return None
	}
	return s
}

// Truncate cuts s to at most n characters (runes), the last of them "…"
// when it cut. Counting runes, not bytes, keeps every character whole and
// the columns of a tabwriter, which counts runes, aligned.
func Truncate(s string, n int) string {
	i, count := 0, 0
	for j := range s {
		if count == n-1 {
			i = j
		}
		if count == n {
			return s[:i] + "…"
		}
		count++
	}
	return s
}

// Percent formats n of of as a whole percentage, None when of is 0. It
// divides last, so that 23 of 40 is 58% (57.5 rounded to even), not the
// 57% that 100 times the float share 23/40 rounds to.
func Percent(n, of int) string {
	if of == 0 {
		return None
	}
	return fmt.Sprintf("%.0f%%", 100*float64(n)/float64(of))
}

// Share formats a share already computed (a figure of a summary: 0.25 for
// a quarter) as a whole percentage, None when it is a share of nothing
// (of is 0).
func Share(share float64, of int) string {
	if of == 0 {
		return None
	}
	return fmt.Sprintf("%.0f%%", 100*share)
}
