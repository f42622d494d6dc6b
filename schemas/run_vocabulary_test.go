package schemas

import "testing"

// TestRunVocabulary: the words about a run, as every stage now says them.
// A model's label is what partitions and reports show; its spec is what
// the --model flag takes; hand-written is true exactly for the backends
// that ask no server, whether read from the model or from its label.
func TestRunVocabulary(t *testing.T) {
	tests := []struct {
		m           Model
		spec, label string
		handWritten bool
	}{
		{Model{Backend: BackendOllama, Name: "llama3.1:8b"}, "ollama:llama3.1:8b", "ollama:llama3.1:8b", false},
		{Model{Backend: BackendOpenAI, Name: "qwen"}, "openai:qwen", "openai:qwen", false},
		{Model{Backend: BackendScripted, Name: "initials/clean"}, "scripted:initials/clean", "scripted", true},
		{Model{Backend: BackendReplay, Name: "ollama:llama3.1:8b"}, "replay:ollama:llama3.1:8b", "replay:ollama:llama3.1:8b", true},
		{Model{Name: "gpt"}, "gpt", "gpt", false},
		{Model{Backend: BackendOpenAI}, "openai", "openai", false},
	}
	for _, tt := range tests {
		if got := tt.m.Spec(); got != tt.spec {
			t.Errorf("%+v.Spec() = %q, want %q", tt.m, got, tt.spec)
		}
		if got := tt.m.Label(); got != tt.label {
			t.Errorf("%+v.Label() = %q, want %q", tt.m, got, tt.label)
		}
		if got := tt.m.HandWritten(); got != tt.handWritten {
			t.Errorf("%+v.HandWritten() = %v, want %v", tt.m, got, tt.handWritten)
		}
		if got := LabelHandWritten(tt.m.Label()); got != tt.handWritten {
			t.Errorf("LabelHandWritten(%q) = %v, want %v", tt.m.Label(), got, tt.handWritten)
		}
	}
}

func TestVerdictJudged(t *testing.T) {
	for v, want := range map[Verdict]bool{
		VerdictWorked: true, VerdictFailed: true,
		VerdictError: false, VerdictCancelled: false, VerdictIncomplete: false,
	} {
		if got := v.Judged(); got != want {
			t.Errorf("%s.Judged() = %v, want %v", v, got, want)
		}
	}
}
