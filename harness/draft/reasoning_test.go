package draft

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/schemas"
)

func TestSplitReasoning(t *testing.T) {
	for _, tc := range []struct {
		name, content string
		want          split
	}{
		{name: "none", content: "READ x.py", want: split{Answer: "READ x.py"}},
		{name: "think block", content: "<think>\nI should RUN tests.\n</think>\nREAD x.py",
			want: split{Answer: "READ x.py", Reasoning: "I should RUN tests.", Source: schemas.ReasoningThinkTag}},
		{name: "opening in the template", content: "Maybe RUN tests first.\n</think>\n\nREAD greet.py",
			want: split{Answer: "READ greet.py", Reasoning: "Maybe RUN tests first.", Source: schemas.ReasoningThinkTag}},
		{name: "cut inside the block", content: "<think>\nFirst READ greet.py, then",
			want: split{Reasoning: "First READ greet.py, then", Source: schemas.ReasoningThinkTag, Cut: true}},
		{name: "two blocks", content: "<think>a</think>\n<think>b</think>\nRUN tests",
			want: split{Answer: "RUN tests", Reasoning: "a\n\nb", Source: schemas.ReasoningThinkTag}},
		{name: "close mark in a file body is the answer's", content: "WRITE notes.md\n```\nclose with </think>\n```",
			want: split{Answer: "WRITE notes.md\n```\nclose with </think>\n```"}},
		{name: "close mark in a tilde fence is the answer's", content: "WRITE notes.md\n~~~\nclose with </think>\n~~~",
			want: split{Answer: "WRITE notes.md\n~~~\nclose with </think>\n~~~"}},
		{name: "think bracket", content: "[THINK]READ a.py? no.[/THINK]RUN tests",
			want: split{Answer: "RUN tests", Reasoning: "READ a.py? no.", Source: schemas.ReasoningThinkBracket}},
		{name: "reasoning tag", content: "<reasoning>plan</reasoning>\nDONE",
			want: split{Answer: "DONE", Reasoning: "plan", Source: schemas.ReasoningTag}},
		{name: "harmony analysis then final",
			content: "<|channel|>analysis<|message|>Need to READ a.py.<|end|><|start|>assistant<|channel|>final<|message|>RUN tests<|return|>",
			want:    split{Answer: "RUN tests", Reasoning: "Need to READ a.py.", Source: schemas.ReasoningHarmony}},
		{name: "harmony call to a tool kept whole",
			content: "<|channel|>analysis<|message|>look first<|end|><|start|>assistant<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{\"path\":\"a.py\"}<|call|>",
			want:    split{Answer: "<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{\"path\":\"a.py\"}<|call|>", Reasoning: "look first", Source: schemas.ReasoningHarmony}},
		// Marks no list names, read by what they say.
		{name: "closing token then the word", content: "I could WRITE x.py<|close|>think<|sep|><|open|>response<|sep|>READ a.py",
			want: split{Answer: "READ a.py", Reasoning: "I could WRITE x.py", Source: schemas.ReasoningThinkTag}},
		{name: "closed by the message's end", content: "<|think|>I could WRITE x.py<|end|><|begin|>assistant<|content|>READ a.py",
			want: split{Answer: "READ a.py", Reasoning: "I could WRITE x.py", Source: schemas.ReasoningThinkTag}},
		{name: "a tag in the reasoning does not close it", content: "<|think|>WRITE x.py\n```\nhtml = '</b>'\n```",
			want: split{Reasoning: "WRITE x.py\n```\nhtml = '</b>'\n```", Source: schemas.ReasoningThinkTag, Cut: true}},
		{name: "final-answer mark", content: "I could WRITE x.py\n[BEGIN FINAL RESPONSE]\nREAD a.py",
			want: split{Answer: "READ a.py", Reasoning: "I could WRITE x.py", Source: schemas.ReasoningThinkBracket}},
		{name: "a message to self beside the one to the user", content: " to=self<|message|>I could WRITE x.py<|eom|><|start|>assistant to=user<|message|>READ a.py",
			want: split{Answer: "READ a.py", Reasoning: "I could WRITE x.py", Source: schemas.ReasoningThinkTag}},
		{name: "the answer's opening tokens taken off", content: "Maybe RUN tests.<|END_THINKING|><|START_TEXT|>READ a.py",
			want: split{Answer: "READ a.py", Reasoning: "Maybe RUN tests.", Source: schemas.ReasoningThinkTag}},
		{name: "any mark: channel and word", content: "<|channel>thought\nI could WRITE x.py<channel|>READ a.py",
			want: split{Answer: "READ a.py", Reasoning: "I could WRITE x.py", Source: schemas.ReasoningThinkTag}},
		{name: "any mark: START and END", content: "<|START_THINKING|>maybe WRITE x.py<|END_THINKING|>RUN tests",
			want: split{Answer: "RUN tests", Reasoning: "maybe WRITE x.py", Source: schemas.ReasoningThinkTag}},
		{name: "any mark: triangles", content: "◁think▷WRITE a.py?◁/think▷READ b.py",
			want: split{Answer: "READ b.py", Reasoning: "WRITE a.py?", Source: schemas.ReasoningThinkTag}},
		{name: "any mark: namespaced tag", content: "<seed:think>hmm</seed:think>\nDONE fine",
			want: split{Answer: "DONE fine", Reasoning: "hmm", Source: schemas.ReasoningThinkTag}},
		{name: "any mark: cut", content: "<analysis>draft: WRITE a.py\n```python\nx\n```",
			want: split{Reasoning: "draft: WRITE a.py\n```python\nx\n```", Source: schemas.ReasoningThinkTag, Cut: true}},
		{name: "any mark: cut bracket", content: "[THINKING] I might WRITE a.py",
			want: split{Reasoning: "I might WRITE a.py", Source: schemas.ReasoningThinkBracket, Cut: true}},
		{name: "any mark: close only, the prompt opened it", content: "so WRITE a.py\n</reasoning>\nREAD b.py",
			want: split{Answer: "READ b.py", Reasoning: "so WRITE a.py", Source: schemas.ReasoningTag}},
		{name: "a mark that names no thinking is no reasoning", content: "<|im_start|>READ a.py",
			want: split{Answer: "<|im_start|>READ a.py"}},
		{name: "harmony cut in analysis", content: "<|channel|>analysis<|message|>Let me READ greet.py and",
			want: split{Reasoning: "Let me READ greet.py and", Source: schemas.ReasoningHarmony, Cut: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := splitReasoning(tc.content); got != tc.want {
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
	answer, r = ReadReasoning(schemas.Reply{Content: "<think>\n\n</think>\n\nREAD x.py"})
	if answer != "READ x.py" || r != nil {
		t.Errorf("an empty think block is no reasoning: got %q, %+v", answer, r)
	}
	answer, r = ReadReasoning(schemas.Reply{Thinking: "still going", FinishReason: "length"})
	if answer != "" || r == nil || !r.Cut {
		t.Errorf("a reply stopped for length while thinking must read as cut: got %q, %+v", answer, r)
	}
}

// Parse reads the answer alone: a verb inside the reasoning is never the
// action, whatever the marks, and a reply cut inside its reasoning is
// refused with its own code.
func TestParseNeverReadsReasoning(t *testing.T) {
	for _, tc := range []struct {
		name, content string
		verb, path    string
		code          schemas.Code
	}{
		{"opening in the template", "WRITE greet.py\n```\nx = 1\n```\n</think>\nREAD a.py", VerbRead, "a.py", ""},
		{"verb inside, another after", "<think>\nREAD b.py first\n</think>\nRUN tests", VerbRun, "", ""},
		{"harmony channels", "<|channel|>analysis<|message|>READ b.py<|end|><|start|>assistant<|channel|>final<|message|>READ a.py<|return|>", VerbRead, "a.py", ""},
		{"harmony call after analysis", "<|channel|>analysis<|message|>READ b.py<|end|><|start|>assistant<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{\"path\": \"a.py\"}<|call|>", VerbRead, "a.py", ""},
		{"think bracket", "[THINK]WRITE b.py[/THINK]\nREAD a.py", VerbRead, "a.py", ""},
		{"cut inside", "<think>\nREAD b.py\nRUN tests", "", "", CodeReasoningCut},
		{"harmony cut", "<|channel|>analysis<|message|>READ b.py", "", "", CodeReasoningCut},
		{"a call inside the reasoning", "<think>\n<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"b.py\"}}</tool_call>\n</think>\nREAD a.py", VerbRead, "a.py", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Parse(tc.content, nil)
			if tc.code != "" {
				pe, ok := err.(*Error)
				if !ok || pe.Code != tc.code || !strings.Contains(pe.Error(), "Think briefly") {
					t.Fatalf("Parse = %+v, %v; want a %s refusal that says what to do", a, err, tc.code)
				}
				return
			}
			if err != nil || a.Verb != tc.verb || a.Path != tc.path {
				t.Fatalf("Parse = %s %s, %v; want %s %s", a.Verb, a.Path, err, tc.verb, tc.path)
			}
		})
	}
}

// TestMarkTokensAreTheRegexpsMatches holds markTokens to what
// markTokenRE.FindAllStringIndex finds, on every draft of testdata and on
// texts made of mark-like pieces: tokens of every bracket style, tokens
// too long by a character, unclosed ones, multi-byte text and cut
// multi-byte characters.
func TestMarkTokensAreTheRegexpsMatches(t *testing.T) {
	var texts []string
	drafts, err := filepath.Glob(filepath.Join("testdata", "*.draft"))
	if err != nil || len(drafts) == 0 {
		t.Fatalf("no drafts in testdata (%v)", err)
	}
	for _, d := range drafts {
		b, err := os.ReadFile(d)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, string(b))
	}
	pieces := []string{
		"<think>", "</think>", "<|channel|>", "<|end|>", "<｜begin▁of▁thinking｜>", "<｜", "｜>", "[THINK]", "[/THINK]",
		"◁think▷", "◁/think▷", "<|START_THINKING|>", "<|think>", "<think|>", "[final answer]", "<|final_answer|>",
		"<" + strings.Repeat("x", 40) + ">", "<" + strings.Repeat("x", 41) + ">", "<|" + strings.Repeat("é", 40) + "|>",
		"<|" + strings.Repeat("é", 41) + "|>", "<｜" + strings.Repeat("😀", 40) + "｜>", "[" + strings.Repeat("a", 31) + "]", "<", "[", ">", "]", "|", "◁", "▷",
		"a < b", "xs[0]", "\n", " ", "word", "\xe2\x97", "\xe2", "\xff", "é", "READ greet.py", "<<", "[[", "<<|x|>>",
	}
	rng := rand.New(rand.NewPCG(7, 11))
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		texts = append(texts, b.String())
	}
	for _, s := range texts {
		if got, want := markTokens(s), markTokenRE.FindAllStringIndex(s, -1); !reflect.DeepEqual(got, want) && len(got)+len(want) > 0 {
			t.Fatalf("markTokens(%q) = %v, the regexp finds %v", s, got, want)
		}
		t2 := strings.TrimLeft(s, " \t\r\n")
		loc := markTokenRE.FindStringIndex(t2)
		atStart := loc != nil && loc[0] == 0
		if got := markTokenAtRE.FindStringIndex(t2[:min(len(t2), maxMarkToken)]); (got != nil) != atStart || atStart && got[1] != loc[1] {
			t.Fatalf("the token at the start of %q: %v, the regexp finds %v", t2, got, loc)
		}
	}
}
