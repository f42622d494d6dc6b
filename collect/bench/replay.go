package bench

import (
	"fmt"

	"github.com/pyharness/pyharness/harness"
	"github.com/pyharness/pyharness/schemas"
)

// recordedRun is a backend that replays a recorded run (model/replay).
type recordedRun interface {
	Recorded() []*schemas.Turn
}

// Diverged compares what today's harness did with each replayed draft to
// what the recorded run did, and says where they first differ: another
// action, another outcome, or another number of steps. Empty when none.
func Diverged(rec recordedRun, steps []harness.StepSummary) string {
	var then []*schemas.Turn
	for _, t := range rec.Recorded() {
		if t.ModelStep {
			then = append(then, t)
		}
	}
	for i := 0; i < min(len(then), len(steps)); i++ {
		a, b := then[i], steps[i]
		was := describe(a.Action.Verb, a.Action.Path, a.Outcome.Status, a.Outcome.Code)
		now := describe(b.Verb, b.Path, b.Status, b.Code)
		if was != now {
			return fmt.Sprintf("step %d: recorded %s, now %s", i+1, was, now)
		}
	}
	if len(then) != len(steps) {
		return fmt.Sprintf("recorded %d model steps, now %d", len(then), len(steps))
	}
	return ""
}

func describe(verb, path string, status schemas.Status, code schemas.Code) string {
	s := verb
	if path != "" {
		s += " " + path
	}
	s += " " + string(status)
	if code != "" {
		s += " (" + string(code) + ")"
	}
	return s
}
