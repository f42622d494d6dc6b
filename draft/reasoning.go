package draft

import (
	"strings"

	"github.com/pyharness/pyharness/schemas"
)

// Split is a reply's content read into its reasoning and its answer. No
// action is ever read from the reasoning: the parser reads Answer alone,
// and the export trains Answer (or its canonical form) with the reasoning
// in the field trainers keep for it.
type split struct {
	// Answer is the content with the reasoning and its markers taken out.
	Answer string
	// Reasoning is the thinking without its markers, empty when there was
	// none.
	Reasoning string
	// Source is where the reasoning was found (schemas.Reasoning*), empty
	// when there was none.
	Source string
	// Cut is true when the content ended inside its reasoning: there is no
	// answer to read.
	Cut bool
}

// reasoningMarks are the inline reasoning blocks models write, by the open
// and close marks. A chat template may put the opening mark in the prompt
// (add_generation_prompt ends in "<think>\n"), so the content can begin
// inside the block with only the close mark in it.
var reasoningMarks = []struct{ open, close, source string }{
	{"<think>", "</think>", schemas.ReasoningThinkTag},
	{"<thinking>", "</thinking>", schemas.ReasoningThinkTag},
	{"[THINK]", "[/THINK]", schemas.ReasoningThinkBracket},
	{"<reasoning>", "</reasoning>", schemas.ReasoningTag},
}

// splitReasoning reads content into reasoning and answer: gpt-oss's harmony
// channels (analysis is reasoning, final and calls to tools are the answer),
// then <think>…</think> and its kin. The opening mark may be missing (the
// template opened the block); a block that is never closed is cut
// reasoning, with no answer.
func splitReasoning(content string) split {
	if strings.Contains(content, harmonyChannel) {
		return splitHarmony(content)
	}
	for _, m := range reasoningMarks {
		if s, ok := splitMarked(content, m.open, m.close, m.source); ok {
			return s
		}
	}
	return split{Answer: content}
}

// splitMarked takes the reasoning blocks that lead content: each runs from
// an optional opening mark to its close mark. Only blocks at the start
// count, so a close mark inside an answer's file body is left alone.
func splitMarked(content, open, close, source string) (split, bool) {
	rest := content
	var thoughts []string
	for {
		t := strings.TrimLeft(rest, " \t\r\n")
		opened := strings.HasPrefix(t, open)
		if opened {
			t = t[len(open):]
		}
		end := strings.Index(t, close)
		if opened && end < 0 {
			thoughts = append(thoughts, strings.TrimSpace(t))
			return split{Reasoning: strings.Join(thoughts, "\n\n"), Source: source, Cut: true}, true
		}
		// A close mark with no opening counts only for the first block
		// (the template opened it), before any opening mark, and outside
		// a fence (a file body may hold the mark).
		if end < 0 || (!opened && (len(thoughts) > 0 || strings.Contains(t[:end], open) || insideFence(t[:end]))) {
			break
		}
		thoughts = append(thoughts, strings.TrimSpace(t[:end]))
		rest = t[end+len(close):]
	}
	if len(thoughts) == 0 {
		return split{}, false
	}
	return split{Answer: strings.TrimLeft(rest, "\r\n"), Reasoning: strings.Join(thoughts, "\n\n"), Source: source}, true
}

// Harmony (gpt-oss) marks. A message is
// <|start|>assistant<|channel|>NAME[ to=RECIPIENT][<|constrain|>TYPE]<|message|>BODY
// ended by <|end|>, <|return|> or <|call|>; the first <|start|>assistant is
// in the prompt, so the content begins at <|channel|>.
const (
	harmonyStart   = "<|start|>"
	harmonyChannel = "<|channel|>"
	harmonyMessage = "<|message|>"
)

var harmonyEnds = []string{"<|end|>", "<|return|>", "<|call|>"}

// splitHarmony reads harmony messages: the analysis channel is reasoning;
// the final channel is the answer, and a message addressed to a tool
// (commentary to=functions.NAME) is kept whole in the answer, header and
// all, for the call reader. Text outside any message is answer.
func splitHarmony(content string) split {
	var s split
	var answer, thoughts []string
	rest := content
	for rest != "" {
		i := strings.Index(rest, harmonyChannel)
		if i < 0 {
			answer = appendText(answer, rest)
			break
		}
		answer = appendText(answer, strings.TrimSuffix(strings.TrimSpace(rest[:i]), harmonyStart+"assistant"))
		msg := rest[i+len(harmonyChannel):]
		head, body, hasBody := strings.Cut(msg, harmonyMessage)
		if !hasBody {
			head, body = msg, ""
		}
		end, endMark := len(body), ""
		for _, e := range harmonyEnds {
			if j := strings.Index(body, e); j >= 0 && j < end {
				end, endMark = j, e
			}
		}
		rest = body[end+len(endMark):]
		channel := strings.Fields(head)
		switch {
		case len(channel) > 0 && channel[0] == "analysis":
			thoughts = appendText(thoughts, body[:end])
			if endMark == "" {
				s.Cut = len(answer) == 0
			}
		case strings.Contains(head, "to="):
			answer = append(answer, harmonyChannel+head+harmonyMessage+body[:end]+endMark)
		default:
			answer = appendText(answer, body[:end])
		}
		rest = strings.TrimPrefix(strings.TrimLeft(rest, " \t\r\n"), harmonyStart+"assistant")
	}
	if len(thoughts) > 0 {
		s.Reasoning, s.Source = strings.Join(thoughts, "\n\n"), schemas.ReasoningHarmony
	}
	s.Answer = strings.Join(answer, "\n")
	return s
}

// insideFence reports whether text ends inside a fenced block that is
// still open, read as the parser reads fences.
func insideFence(text string) bool {
	lines := strings.Split(text, "\n")
	blocks, _ := scanFences(lines)
	return len(blocks) > 0 && blocks[len(blocks)-1].close >= len(lines)
}

func appendText(parts []string, s string) []string {
	if s = strings.TrimSpace(s); s != "" {
		parts = append(parts, s)
	}
	return parts
}

// ReadReasoning is a reply's reasoning as the trace keeps it and the answer
// the parser reads: the server's own thinking field first, then what the
// content holds inline. It returns nil when the reply has no reasoning.
// Tokens is left for the caller, which owns the estimate.
func ReadReasoning(reply schemas.Reply) (answer string, r *schemas.Reasoning) {
	s := splitReasoning(reply.Content)
	thinking := strings.TrimSpace(reply.Thinking)
	if thinking == "" && s.Source == "" {
		return reply.Content, nil
	}
	// An empty block (Qwen3 told not to think writes "<think>\n\n</think>")
	// is no reasoning, though it is taken off the answer.
	if thinking == "" && strings.TrimSpace(s.Reasoning) == "" && !s.Cut {
		return s.Answer, nil
	}
	r = &schemas.Reasoning{Text: s.Reasoning, Source: s.Source, Cut: s.Cut}
	if thinking != "" {
		r.Source = schemas.ReasoningServer
		r.Text = strings.TrimSpace(thinking + "\n\n" + s.Reasoning)
		// The server stopped for length while the model was still
		// thinking: nothing of an answer came.
		r.Cut = r.Cut || (strings.TrimSpace(s.Answer) == "" && reply.FinishReason == "length")
	}
	return s.Answer, r
}

// ReasoningCutMessage is what a model is told when its reply ended inside
// its reasoning: the output limit ran out while it was still thinking, so
// the way out is to think less, not to try again the same way.
const ReasoningCutMessage = "your reply ended inside its reasoning, before any action: the output limit ran out while you were still thinking, and nothing in the reasoning is acted on. Think briefly, close the reasoning, and then write one action, e.g. READ path or RUN tests; if you know the next step, answer with the action directly"
