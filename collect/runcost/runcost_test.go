package runcost

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/schemas"
)

func turn(status schemas.Status, ms int64, attempts int) *schemas.Turn {
	t := &schemas.Turn{ModelStep: true, Outcome: schemas.Outcome{Status: status}, Metrics: schemas.Metrics{TotalMS: ms}}
	for i := range attempts {
		t.Attempts = append(t.Attempts, schemas.Attempt{N: i + 1})
	}
	return t
}

// A run's cost is read from its turns: every attempt is a call (a retry
// too), a step without recorded attempts one call, a step the harness
// took without the model none; the calls of a refused draft count as
// refused; a stuck run counts with the steps of its budget it left.
func TestOf(t *testing.T) {
	start := &schemas.RunStart{MaxSteps: 20}
	tests := []struct {
		name  string
		turns []*schemas.Turn
		end   *schemas.RunEnd
		want  Cost
	}{
		{"accepted steps", []*schemas.Turn{turn(schemas.StatusApplied, 1200, 1), turn(schemas.StatusApplied, 800, 1)},
			&schemas.RunEnd{StopReason: schemas.StopDone, Steps: 2},
			Cost{Runs: 1, Calls: 2, ModelMS: 2000}},
		{"a retry is a call", []*schemas.Turn{turn(schemas.StatusApplied, 3000, 3)},
			&schemas.RunEnd{StopReason: schemas.StopDone, Steps: 1},
			Cost{Runs: 1, Calls: 3, ModelMS: 3000}},
		{"a step recorded without attempts is one call", []*schemas.Turn{turn(schemas.StatusRefused, 500, 0)},
			&schemas.RunEnd{StopReason: schemas.StopBudget, Steps: 1},
			Cost{Runs: 1, Calls: 1, ModelMS: 500, RefusedCalls: 1}},
		{"a step without the model is no call", []*schemas.Turn{{ModelStep: false, Metrics: schemas.Metrics{TotalMS: 90}}},
			&schemas.RunEnd{StopReason: schemas.StopNoModelSteps},
			Cost{Runs: 1}},
		{"stuck after three refusals", []*schemas.Turn{turn(schemas.StatusApplied, 100, 1), turn(schemas.StatusRefused, 100, 1), turn(schemas.StatusRefused, 100, 1), turn(schemas.StatusRefused, 100, 1)},
			&schemas.RunEnd{StopReason: schemas.StopStuck, Steps: 4, Stuck: &schemas.Stuck{Code: schemas.CodeQuoteRequired, Times: 3, FromStep: 2}},
			Cost{Runs: 1, Calls: 4, ModelMS: 400, RefusedCalls: 3, Stuck: 1, StuckBudgetLeft: 16}},
		{"cut off: no run_end", []*schemas.Turn{turn(schemas.StatusRefused, 100, 2)}, nil,
			Cost{Runs: 1, Calls: 2, ModelMS: 100, RefusedCalls: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Of(start, tt.turns, tt.end); got != tt.want {
				t.Errorf("cost %+v, want %+v", got, tt.want)
			}
		})
	}
}

// The table has a row per model, models before the scripted backends,
// with the per-run figures, and says what the stuck rule stopped.
func TestWriteTable(t *testing.T) {
	tally := Tally{}
	tally.Add("scripted", true, Cost{Runs: 2, Calls: 9, RefusedCalls: 2})
	tally.Add("ollama:tiny", false, Cost{Runs: 1, Calls: 4, ModelMS: 1200, RefusedCalls: 3, Stuck: 1, StuckBudgetLeft: 16})
	tally.Add("ollama:tiny", false, Cost{Runs: 1, Calls: 20, ModelMS: 6000, RefusedCalls: 19})
	var b bytes.Buffer
	WriteTable(&b, tally.Models())
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	want := [][]string{
		{"model", "runs", "calls", "per", "run", "model", "seconds", "per", "run", "refused", "calls", "stuck", "runs"},
		{"ollama:tiny", "2", "24", "12.0", "7.2", "3.6", "22", "(92%)", "1"},
		{"scripted", "(not", "a", "model)", "2", "9", "4.5", "0.0", "0.0", "2", "(22%)", "0"},
		{"ollama:tiny:", "1", "run(s)", "stopped", "stuck", "(the", "same", "draft", "refused", "with", "the", "same", "code", "again", "and", "again),", "leaving", "16", "step(s)", "of", "their", "budgets", "unspent"},
	}
	if len(lines) != len(want) {
		t.Fatalf("table:\n%s", b.String())
	}
	for i, w := range want {
		if got := strings.Fields(lines[i]); strings.Join(got, " ") != strings.Join(w, " ") {
			t.Errorf("line %d = %q, want %q", i+1, lines[i], strings.Join(w, " "))
		}
	}
}
