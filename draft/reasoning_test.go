package draft

import (
	"testing"

	"github.com/pyharness/pyharness/schemas"
)

func TestSplitReasoning(t *testing.T) {
	for _, tc := range []struct {
		name, content string
		want          Split
	}{
		{name: "none", content: "READ x.py", want: Split{Answer: "READ x.py"}},
		{name: "think block", content: "<think>\nI should RUN tests.\n</think>\nREAD x.py",
			want: Split{Answer: "READ x.py", Reasoning: "I should RUN tests.", Source: schemas.ReasoningThinkTag}},
		{name: "opening in the template", content: "Maybe RUN tests first.\n</think>\n\nREAD greet.py",
			want: Split{Answer: "READ greet.py", Reasoning: "Maybe RUN tests first.", Source: schemas.ReasoningThinkTag}},
		{name: "cut inside the block", content: "<think>\nFirst READ greet.py, then",
			want: Split{Reasoning: "First READ greet.py, then", Source: schemas.ReasoningThinkTag, Cut: true}},
		{name: "two blocks", content: "<think>a</think>\n<think>b</think>\nRUN tests",
			want: Split{Answer: "RUN tests", Reasoning: "a\n\nb", Source: schemas.ReasoningThinkTag}},
		{name: "close mark in a file body is the answer's", content: "WRITE notes.md\n```\nclose with </think>\n```",
			want: Split{Answer: "WRITE notes.md\n```\nclose with </think>\n```"}},
		{name: "think bracket", content: "[THINK]READ a.py? no.[/THINK]RUN tests",
			want: Split{Answer: "RUN tests", Reasoning: "READ a.py? no.", Source: schemas.ReasoningThinkBracket}},
		{name: "reasoning tag", content: "<reasoning>plan</reasoning>\nDONE",
			want: Split{Answer: "DONE", Reasoning: "plan", Source: schemas.ReasoningTag}},
		{name: "harmony analysis then final",
			content: "<|channel|>analysis<|message|>Need to READ a.py.<|end|><|start|>assistant<|channel|>final<|message|>RUN tests<|return|>",
			want:    Split{Answer: "RUN tests", Reasoning: "Need to READ a.py.", Source: schemas.ReasoningHarmony}},
		{name: "harmony call to a tool kept whole",
			content: "<|channel|>analysis<|message|>look first<|end|><|start|>assistant<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{\"path\":\"a.py\"}<|call|>",
			want:    Split{Answer: "<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{\"path\":\"a.py\"}<|call|>", Reasoning: "look first", Source: schemas.ReasoningHarmony}},
		{name: "harmony cut in analysis", content: "<|channel|>analysis<|message|>Let me READ greet.py and",
			want: Split{Reasoning: "Let me READ greet.py and", Source: schemas.ReasoningHarmony, Cut: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := SplitReasoning(tc.content); got != tc.want {
				t.Errorf("SplitReasoning(%q)\n got %+v\nwant %+v", tc.content, got, tc.want)
			}
		})
	}
}

func TestReadReasoning(t *testing.T) {
	answer, r := ReadReasoning(schemas.Reply{Content: "READ x.py"})
	if answer != "READ x.py" || r != nil {
		t.Errorf("a reply without reasoning: got %q, %+v", answer, r)
	}
	answer, r = ReadReasoning(schemas.Reply{Thinking: "plan: RUN tests", Content: "<think>more</think>READ x.py"})
	if answer != "READ x.py" || r == nil || r.Source != schemas.ReasoningServer || r.Text != "plan: RUN tests\n\nmore" || r.Cut {
		t.Errorf("server thinking and an inline block: got %q, %+v", answer, r)
	}
	answer, r = ReadReasoning(schemas.Reply{Thinking: "still going", FinishReason: "length"})
	if answer != "" || r == nil || !r.Cut {
		t.Errorf("a reply stopped for length while thinking must read as cut: got %q, %+v", answer, r)
	}
}
