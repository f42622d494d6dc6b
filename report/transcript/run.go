package transcript

import (
	"errors"
	"fmt"

	"github.com/pyharness/pyharness/classify/turnlabel"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

// Run is one attempt of one run, read for reading.
type Run struct {
	*trace.Run
	// EarlierAttempts counts the attempts of the same run id before this
	// one, set aside as every other command sets them aside.
	EarlierAttempts int
	// Problems are the lines of the file that could not be read; every
	// good record around them was kept.
	Problems []error
}

// corruptError is a trace file with no readable run in it.
type corruptError struct {
	Path string
	Err  error
}

func (e *corruptError) Error() string {
	return fmt.Sprintf("%s is not a readable trace: %v", e.Path, e.Err)
}

func (e *corruptError) Unwrap() error { return e.Err }

// Load reads the trace file of a run. A file with bad lines is read
// around them (the lines are kept in Problems); a file with no run_start
// record is a *corruptError.
func Load(f trace.File, earlier int) (*Run, error) {
	tr, err := trace.ReadRun(f)
	r := &Run{Run: tr, EarlierAttempts: earlier}
	if err != nil {
		r.Problems = unjoin(err)
	}
	if tr.Start == nil {
		if err == nil {
			err = errors.New("no run_start record")
		}
		return nil, &corruptError{Path: f.Path, Err: err}
	}
	return r, nil
}

func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// Step is one turn with the feedback the harness gave its draft: the
// message it sent back at the next turn. The last turn has none recorded;
// its outcome's message stands for it.
type step struct {
	*schemas.Turn
	Feedback string
	// Echo is true when the first message sent at this turn is the previous
	// turn's draft as it was sent back, unchanged: it is shown once.
	Echo bool
}

// Steps pairs each turn with its feedback.
func (r *Run) steps() []step {
	out := make([]step, len(r.Turns))
	for i, t := range r.Turns {
		out[i].Turn = t
		if i+1 < len(r.Turns) {
			out[i].Feedback = turnlabel.Feedback(r.Turns[i+1].Sent.Messages)
		} else {
			out[i].Feedback = t.Outcome.Message
		}
		if i > 0 && !t.Sent.Replaced && len(t.Sent.Messages) > 0 {
			m := t.Sent.Messages[0]
			out[i].Echo = m.Role == "assistant" && m.Content == r.Turns[i-1].Reply.Content
		}
	}
	return out
}

// Entry is what an index of runs says about one run.
type Entry struct {
	RunID   string `json:"run_id"`
	Attempt int    `json:"attempt"`
	Case    string `json:"case"`
	Tier    int    `json:"tier"`
	Pass    int    `json:"pass"`
	// Model is the run's model as stats labels it (schemas.Model.Label).
	Model        string               `json:"model"`
	Verdict      schemas.Verdict      `json:"verdict"`
	FailureClass schemas.FailureClass `json:"failure_class"`
	// Reason says in one line why a failed run failed.
	Reason      string             `json:"reason,omitempty"`
	StopReason  schemas.StopReason `json:"stop_reason"`
	Steps       int                `json:"steps"`
	ClaimedDone bool               `json:"claimed_done"`
	Path        string             `json:"path"`
}

// Entry summarises the run for an index.
func (r *Run) Entry() Entry {
	e := Entry{RunID: r.File.RunID, Attempt: r.File.Attempt, Path: r.File.Path, Steps: len(r.Turns), Verdict: schemas.VerdictIncomplete}
	if s := r.Start; s != nil {
		e.Case, e.Tier, e.Pass, e.Model = s.CaseID, s.Tier, s.Pass, s.Model.Label()
	}
	if end := r.End; end != nil {
		e.Verdict, e.FailureClass, e.Reason, e.StopReason, e.ClaimedDone = end.Verdict, end.FailureClass, end.Reason, end.StopReason, end.ClaimedDone
		e.Steps = end.Steps
	}
	return e
}
