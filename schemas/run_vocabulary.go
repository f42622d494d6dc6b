package schemas

import "strings"

// The words about a run that more than one stage says: which backends
// there are and which of them are hand-written, how a run's model is
// labelled, and which verdicts a score counts. Each is said here once, so
// that classify, stats, bench, export, transcript and the commands agree.

// Backend names (Model.Backend).
const (
	BackendOllama   = "ollama"
	BackendOpenAI   = "openai"
	BackendScripted = "scripted"
	BackendReplay   = "replay"
)

// HandWritten reports whether the run's drafts were written by hand, not
// by a model: a scripted run plays a case's scripts and a replay plays a
// recorded run, and neither asked a server anything.
func (m Model) HandWritten() bool {
	return m.Backend == BackendScripted || m.Backend == BackendReplay
}

// Spec is the model as the --model flag spells it, backend:name
// ("ollama:llama3.1:8b"); a missing part is left out with its colon.
func (m Model) Spec() string {
	switch {
	case m.Backend == "":
		return m.Name
	case m.Name == "":
		return m.Backend
	}
	return m.Backend + ":" + m.Name
}

// Label is the model's label in datasets and reports: its Spec, except
// that every scripted run is labelled "scripted", because its recorded
// names are per-case scripts, not models.
func (m Model) Label() string {
	if m.Backend == BackendScripted {
		return BackendScripted
	}
	return m.Spec()
}

// LabelHandWritten reports whether a model label (Model.Label) is of a
// hand-written backend: the label's backend is its first word.
func LabelHandWritten(label string) bool {
	backend, _, _ := strings.Cut(label, ":")
	return Model{Backend: backend}.HandWritten()
}

// VerdictIncomplete is the verdict readers give a run whose trace has no
// run_end (a run still going, or killed): the harness never writes it.
const VerdictIncomplete Verdict = "incomplete"

// Judged reports whether a run with this verdict counts in a score: it
// worked or it failed. Error, cancelled and incomplete runs are in none.
func (v Verdict) Judged() bool {
	return v == VerdictWorked || v == VerdictFailed
}

// NoModelSteps counts runs the harness settled without the model (stop
// reason no-model-steps), and how many of them it settled correctly: bench
// and stats report them apart from the model's score.
type NoModelSteps struct {
	Runs    int `json:"runs"`
	Correct int `json:"correct"`
}
