package schemas

import "fmt"

// Line says in one line which refusal repeated until a run stopped stuck:
// the first line of the summaries of run and show.
func (s *Stuck) Line() string {
	return fmt.Sprintf("STUCK: the same draft (%q) was refused %s %d times in a row from step %d, and the run stopped.",
		s.Draft, s.Code, s.Times, s.FromStep)
}

// StopText is a run's stop reason as a failure's reason and bench's why
// say it: a stuck run names the refusal that repeated ("stuck,
// quote-required 3 times in a row").
func (e *RunEnd) StopText() string {
	if s := e.Stuck; s != nil {
		return fmt.Sprintf("%s, %s %d times in a row", e.StopReason, s.Code, s.Times)
	}
	return string(e.StopReason)
}
