package chattemplate

import "testing"

// TestProbe holds what the probes find against what each template's
// source plainly does (read from the .jinja files).
func TestProbe(t *testing.T) {
	for _, tc := range []struct {
		name string
		want Traits
	}{
		{"google-gemma-2-2b-it", Traits{System: systemRefused, Tools: toolsRaise}},
		{"microsoft-Phi-3-mini", Traits{System: systemDropped, Tools: toolsDropped}},
		{"mistralai-Mistral-Nemo-Instruct-2407", Traits{System: systemLastUserOnly, Tools: toolsRendered}},
		{"Qwen-QwQ-32B", Traits{System: systemKept, Tools: toolsRendered, GenerationTail: "<think>\n</think>"}},
		{"deepseek-ai-DeepSeek-R1-Distill-Llama-8B", Traits{System: systemKept, Tools: toolsDropped, GenerationTail: "<think>\n", StripsThink: true}},
		{"Qwen-Qwen3-0.6B", Traits{System: systemKept, Tools: toolsRendered, ReasoningField: "reasoning_content"}},
		{"openai-gpt-oss-120b", Traits{System: systemKept, Tools: toolsRendered, ReasoningField: "thinking"}},
		{"microsoft-Phi-3.5-mini-instruct", Traits{System: systemKept, Tools: toolsDropped}},
		{"meta-llama-Llama-3.1-8B-Instruct", Traits{System: systemKept, Tools: toolsRendered}},
		{"deepseek-ai-DeepSeek-V3.1", Traits{System: systemKept, Tools: toolsRendered, StripsThink: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := loadTestTemplate(t, tc.name).probe()
			got.SystemError, got.ToolsError = "", ""
			if got != tc.want {
				t.Errorf("probe: %s\nwant:  %s", got, tc.want)
			}
		})
	}
}

// None of the real templates marks answers for TRL's assistant_only_loss;
// one that does renders the marked answer as it is and says so.
func TestProbeGenerationTags(t *testing.T) {
	tp, err := Parse("marked", "{% for m in messages %}<|{{ m.role }}|>{% if m.role == 'assistant' %}{%- generation -%}{{ m.content }}{%- endgeneration -%}{% else %}{{ m.content }}{% endif %}{% endfor %}", nil)
	if err != nil {
		t.Fatal(err)
	}
	if tr := tp.probe(); !tr.GenerationTags || tr.System != systemKept {
		t.Errorf("probe: %s", tr)
	}
	c := NewChecker(tp)
	if _, err := c.Check([]byte(`{"messages": [{"role": "user", "content": "U"}, {"role": "assistant", "content": "A"}]}`)); err != nil {
		t.Error(err)
	}
}
