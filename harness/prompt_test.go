package harness

import (
	"strings"
	"testing"

	"github.com/pyharness/pyharness/harness/suite"
	"github.com/pyharness/pyharness/schemas"
)

// The opening's Tests line names every failing test the task is about,
// however many fail, and tells the model to leave alone only those the
// task does not name.
func TestBaselineFailuresLineNamesEveryTaskTest(t *testing.T) {
	failing := func(tests ...string) *suite.Result {
		res := &suite.Result{Counts: schemas.SuiteCounts{Ran: 40, Failed: len(tests)}}
		for _, id := range tests {
			res.Failures = append(res.Failures, suite.Failure{Test: id, Message: "AssertionError"})
		}
		return res
	}
	tests := []struct {
		name     string
		task     string
		before   *suite.Result
		want     []string
		dontWant []string
	}{
		{
			name:     "two failing, both named",
			task:     "tests/test_a.py::test_x and tests/test_a.py::test_y fail since the last change.",
			before:   failing("tests/test_a.py::test_x", "tests/test_a.py::test_y"),
			want:     []string{"tests/test_a.py::test_x", "tests/test_a.py::test_y", "make every one of them pass"},
			dontWant: []string{"need not change"},
		},
		{
			name:   "a doctest beside three unit tests, all named",
			task:   "The doctest of pkg.mod.parse fails, and so do test_one, test_two and test_three.",
			before: failing("src/pkg/mod.py::pkg.mod.parse", "tests/test_m.py::test_one", "tests/test_m.py::test_two", "tests/test_m.py::test_three"),
			want: []string{"src/pkg/mod.py::pkg.mod.parse", "tests/test_m.py::test_one", "tests/test_m.py::test_two",
				"tests/test_m.py::test_three", "all 4"},
			dontWant: []string{"need not change"},
		},
		{
			name:   "named ones listed before five others",
			task:   "Fix test_wanted_a and test_wanted_b.",
			before: failing("t.py::test_o1", "t.py::test_o2", "t.py::test_o3", "t.py::test_o4", "t.py::test_o5", "t.py::test_o6", "t.py::test_wanted_a", "t.py::test_wanted_b"),
			want:   []string{"t.py::test_wanted_a, t.py::test_wanted_b", "make them all pass; the other 6 failing tests need not change"},
		},
		{
			name:   "a parametrized test named by its function",
			task:   "test_round fails for some inputs.",
			before: failing("tests/test_r.py::test_round[1.5-2]", "tests/test_r.py::test_round[2.5-2]"),
			want:   []string{"tests/test_r.py::test_round[1.5-2]", "tests/test_r.py::test_round[2.5-2]", "make every one of them pass"},
		},
		{
			name:   "none named",
			task:   "Add a --verbose flag.",
			before: failing("t.py::test_old"),
			want:   []string{"does not ask you to fix them"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &runner{cfg: Config{TaskSpec: schemas.TaskSpec{Task: tt.task}}, suiteBefore: tt.before}
			line := r.baselineFailuresLine()
			for _, w := range tt.want {
				if !strings.Contains(line, w) {
					t.Errorf("line lacks %q:\n%s", w, line)
				}
			}
			for _, w := range tt.dontWant {
				if strings.Contains(line, w) {
					t.Errorf("line holds %q:\n%s", w, line)
				}
			}
		})
	}
}
