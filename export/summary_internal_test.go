package export

import (
	"strings"
	"testing"
)

// A held-out split that took far more pairs than its share asked for (one
// whole task of two) is warned of; one near its share is not.
func TestWholeGroupWarning(t *testing.T) {
	rows := func(splits ...string) []GroupRow {
		var out []GroupRow
		for i, sp := range splits {
			out = append(out, GroupRow{Group: "dogfood/task-" + string(rune('a'+i)), Split: sp, Pairs: 6 + i})
		}
		return out
	}
	var tenOfTen []string
	for i := range 10 {
		tenOfTen = append(tenOfTen, map[bool]string{true: splitValidation, false: SplitTrain}[i == 0])
	}
	for _, tt := range []struct {
		name   string
		groups []GroupRow
		valid  float64
		want   string // "" for no warning
	}{
		{"two tasks, one held out", rows(SplitTrain, splitValidation), 0.1,
			"the validation split is 1 whole group(s) of the 2 (dogfood/task-b: 7 pairs), 7 of 13 pairs (54%), where 10% was asked"},
		{"ten tasks, one held out", rows(tenOfTen...), 0.1, ""},
		{"asked for half", rows(SplitTrain, splitValidation), 0.5, ""},
		{"no validation asked", rows(SplitTrain, SplitTrain), 0, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := &Summary{Groups: tt.groups}
			got := s.wholeGroupWarning(splitValidation, tt.valid)
			if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
				t.Errorf("warning %q, want %q", got, tt.want)
			}
		})
	}
}
