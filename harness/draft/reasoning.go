package draft

import (
	"regexp"
	"strings"
	"unicode/utf8"

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
	if s, ok := splitAnyMark(content); ok {
		s.Answer = answerStart(s.Answer)
		return s
	}
	if s, ok := splitRecipients(content); ok {
		return s
	}
	if s, ok := splitAnswerMark(content); ok {
		return s
	}
	return split{Answer: content}
}

// specialTokenRE is a special token: <|…|> or <｜…｜>.
var specialTokenRE = regexp.MustCompile(`^(?:<\|[^<>\n]{1,40}\|>|<｜[^<>\n]{1,40}｜>)`)

// answerStart takes off the tokens that open an answer after its
// reasoning (<|START_TEXT|>, <|begin|>assistant<|content|>), a word
// between two of them included, so that its first line is its own.
func answerStart(a string) string {
	t := strings.TrimLeft(a, " \t\r\n")
	took := false
	for {
		if m := specialTokenRE.FindString(t); m != "" {
			// A token that opens a tag of tokens with attributes
			// (<|open|>call tool="…") is the call's, not the answer's.
			r := t[len(m):]
			if w := leadWord(r); w != "" && attrStartRE.MatchString(r[len(w):]) {
				break
			}
			t, took = r, true
			continue
		}
		if w := leadWord(t); took && w != "" && specialTokenRE.MatchString(t[len(w):]) {
			t = t[len(w):]
			continue
		}
		break
	}
	if !took {
		return a
	}
	return strings.TrimLeft(t, " \t\r\n")
}

var attrStartRE = regexp.MustCompile(`^\s+[A-Za-z_][\w-]*="`)

// messageEndRE is a special token that ends a message (<|end|>, <|eom|>,
// <|eot_id|>, <|im_end|>).
var messageEndRE = regexp.MustCompile(`(?i)<[|｜][^<>\n]{0,20}(?:end|eom|eot)[^<>\n]{0,20}[|｜]>`)

// recipientRE opens a message addressed to someone: to=NAME, tokens
// maybe, then <|message|>.
var recipientRE = regexp.MustCompile(`to=([\w.-]+)\s*(?:<\|[^<>\n]{1,40}\|>)*?<\|message\|>`)

// splitRecipients reads messages addressed by recipient (to=NAME
// <|message|>…): where one is addressed to the user, it is the answer, and
// what the model addressed to anyone else but a tool is its reasoning.
func splitRecipients(content string) (split, bool) {
	ms := recipientRE.FindAllStringSubmatchIndex(content, -1)
	user := -1
	for i, m := range ms {
		if content[m[2]:m[3]] == "user" {
			user = i
		}
	}
	if user < 0 {
		return split{}, false
	}
	var thoughts []string
	body := func(i int) string {
		b := content[ms[i][1]:]
		if i+1 < len(ms) {
			b = b[:ms[i+1][0]-ms[i][1]]
		}
		if e := messageEndRE.FindStringIndex(b); e != nil {
			b = b[:e[0]]
		}
		return strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(b), harmonyStart+"assistant"))
	}
	for i := range ms {
		if r := content[ms[i][2]:ms[i][3]]; i != user && !strings.HasPrefix(r, "functions.") {
			thoughts = appendText(thoughts, body(i))
		}
	}
	if strings.HasPrefix(content[ms[user][2]:ms[user][3]], "functions.") || len(thoughts) == 0 {
		return split{}, false
	}
	return split{Answer: body(user), Reasoning: strings.Join(thoughts, "\n\n"), Source: schemas.ReasoningThinkTag}, true
}

// answerMarkRE is a mark that opens the final answer ([BEGIN FINAL
// RESPONSE], <|final_answer|>).
var answerMarkRE = regexp.MustCompile(`(?i)^(?:\[(?:begin |start )?final (?:response|answer)\]|<[|｜](?:begin_|start_)?final_?(?:response|answer)[|｜]>)`)

// splitAnswerMark reads a reply whose answer opens with a mark that says
// so, the reasoning before it with no mark of its own (the prompt opened
// it): what comes before the mark is never read for an action.
func splitAnswerMark(content string) (split, bool) {
	for _, m := range markTokens(content) {
		if !answerMarkRE.MatchString(content[m[0]:m[1]]) || insideFence(content[:m[0]]) {
			continue
		}
		before := strings.TrimSpace(content[:m[0]])
		if before == "" {
			return split{}, false
		}
		return split{Answer: strings.TrimLeft(content[m[1]:], " \t\r\n"), Reasoning: before, Source: markSource(content[m[0]:m[1]])}, true
	}
	return split{}, false
}

// markTokenRE is a token a reasoning block may be marked with, in any
// bracket style: <…>, <|…|>, [<…>], [ … ], ◁…▷.
var markTokenRE = regexp.MustCompile(`<\|[^<>\n]{1,40}\|>|<｜[^<>\n]{1,40}｜>|<[^<>\s]{1,40}>|<\|[^<>\s]{1,40}>|<[^<>\s]{1,40}\|>|\[/?[A-Za-z_ ]{1,30}\]|◁[^◁▷\n]{1,30}▷`)

// markTokenAtRE is markTokenRE at the start of the text only.
var markTokenAtRE = regexp.MustCompile(`^(?:` + markTokenRE.String() + `)`)

// maxMarkToken is the most bytes a mark token spans: 40 characters of at
// most four bytes between brackets of at most eight bytes in all.
const maxMarkToken = 40*utf8.UTFMax + 8

// markStarts marks the bytes a mark token can start with: '<', '[' and
// the first byte of '◁'.
var markStarts = func() (t [256]bool) {
	t['<'], t['['], t["◁"[0]] = true, true, true
	return t
}()

// markTokens is markTokenRE.FindAllStringIndex(s, -1): the spans of the
// mark tokens of s, each found after the one before. The regexp is tried
// only where a token can start, on the bytes a token can span, where
// running it over the whole reply was most of what reading a draft cost.
func markTokens(s string) [][]int {
	var out [][]int
	for i := 0; i < len(s); i++ {
		if !markStarts[s[i]] {
			continue
		}
		if m := markTokenAtRE.FindStringIndex(s[i:min(len(s), i+maxMarkToken)]); m != nil {
			out = append(out, []int{i, i + m[1]})
			i += m[1] - 1
		}
	}
	return out
}

// NamesReasoning reports whether a mark or a word names reasoning: it
// holds think, thought, reason or analysis, in any case.
func NamesReasoning(mark string) bool {
	for i := 0; i+5 <= len(mark); i++ {
		switch mark[i] | 0x20 {
		case 't', 'r', 'a':
			for _, w := range reasoningWords {
				if len(mark)-i >= len(w) && strings.EqualFold(mark[i:i+len(w)], w) {
					return true
				}
			}
		}
	}
	return false
}

// reasoningWords are the words NamesReasoning looks for ("think" is in
// "thinking", "thought" is not).
var reasoningWords = []string{"think", "thought", "reason", "analysis"}

// closeWordRE says a mark closes its block.
var closeWordRE = regexp.MustCompile(`(?i)^(?:<\|?/|\[/|◁/)|end|close|done|finish`)

// splitAnyMark reads a reasoning block under a mark no list names: a
// token that names thinking (thinking, thought, reasoning, analysis) in
// any bracket style opening the reply, closed by the next token naming
// the same that closes (</…>, END_…, close…), or never closed: a reply
// cut inside it. A closing mark with no opening one before it closes a
// block the prompt opened.
func splitAnyMark(content string) (split, bool) {
	t := strings.TrimLeft(content, " \t\r\n")
	if loc := markTokenAtRE.FindStringIndex(t[:min(len(t), maxMarkToken)]); loc != nil && !closeWordRE.MatchString(t[:loc[1]]) {
		open, body := t[:loc[1]], t[loc[1]:]
		named := NamesReasoning(open)
		if !named {
			// The word after the token names the channel
			// (<|channel>thought).
			if w := leadWord(body); w != "" && NamesReasoning(w) {
				named, body = true, body[len(w):]
			}
		}
		if named {
			source := markSource(open)
			for _, m := range mirrors(open) {
				if k := strings.Index(body, m); k >= 0 {
					return split{Answer: strings.TrimLeft(body[k+len(m):], " \t\r\n"), Reasoning: strings.TrimSpace(body[:k]), Source: source}, true
				}
			}
			for _, m := range markTokens(body) {
				tok := body[m[0]:m[1]]
				if NamesReasoning(tok) && closeWordRE.MatchString(tok) {
					return split{Answer: strings.TrimLeft(body[m[1]:], " \t\r\n"), Reasoning: strings.TrimSpace(body[:m[0]]), Source: source}, true
				}
				if closeWordRE.MatchString(tok) && specialTokenRE.MatchString(tok) {
					if w := leadWord(body[m[1]:]); w != "" && NamesReasoning(w) {
						return split{Answer: body[m[1]+len(w):], Reasoning: strings.TrimSpace(body[:m[0]]), Source: source}, true
					}
				}
			}
			// A token that ends the message ends the reasoning too
			// (<|think|>…<|end|>), outside a fence.
			if e := messageEndRE.FindStringIndex(body); e != nil && !insideFence(body[:e[0]]) {
				return split{Answer: body[e[1]:], Reasoning: strings.TrimSpace(body[:e[0]]), Source: source}, true
			}
			return split{Reasoning: strings.TrimSpace(body), Source: source, Cut: true}, true
		}
	}
	// A close with no open before it: the prompt opened the block.
	for _, m := range markTokens(t) {
		tok := t[m[0]:m[1]]
		if !NamesReasoning(tok) {
			// A closing token, then the word that names thinking
			// (<|close|>think<|sep|>).
			if w := leadWord(t[m[1]:]); w != "" && NamesReasoning(w) && specialTokenRE.MatchString(tok) && closeWordRE.MatchString(tok) && !insideFence(t[:m[0]]) {
				return split{Answer: t[m[1]+len(w):], Reasoning: strings.TrimSpace(t[:m[0]]), Source: markSource(w)}, true
			}
			continue
		}
		if !closeWordRE.MatchString(tok) || insideFence(t[:m[0]]) {
			break
		}
		return split{Answer: strings.TrimLeft(t[m[1]:], " \t\r\n"), Reasoning: strings.TrimSpace(t[:m[0]]), Source: markSource(tok)}, true
	}
	return split{}, false
}

// leadWord is the run of ASCII letters and "_" that s starts with.
func leadWord(s string) string {
	i := 0
	for i < len(s) && (s[i] == '_' || ('a' <= s[i]|0x20 && s[i]|0x20 <= 'z')) {
		i++
	}
	return s[:i]
}

// mirrors are the marks that close a block opened by open: the slash
// form (</x>, [/x], ◁/x▷), the bar moved (<|x> and <x|>), and START,
// begin or open turned into END, end or close.
func mirrors(open string) []string {
	var out []string
	inner := func(s string) string {
		r := strings.NewReplacer("START", "END", "Start", "End", "start", "end", "BEGIN", "END", "Begin", "End", "begin", "end", "OPEN", "CLOSE", "open", "close")
		return r.Replace(s)
	}
	if len(open) < 2 {
		return nil
	}
	switch {
	case len(open) >= 4 && strings.HasPrefix(open, "<|") && strings.HasSuffix(open, "|>"):
		x := open[2 : len(open)-2]
		out = append(out, "<|/"+x+"|>", "<|"+inner(x)+"|>", "</"+x+"|>")
	case strings.HasPrefix(open, "<|") && strings.HasSuffix(open, ">"):
		x := open[2 : len(open)-1]
		out = append(out, "<"+x+"|>", "</"+x+">")
	case strings.HasPrefix(open, "<｜"):
		x := strings.TrimSuffix(strings.TrimPrefix(open, "<｜"), "｜>")
		out = append(out, "<｜/"+x+"｜>", "<｜"+inner(x)+"｜>")
	case strings.HasPrefix(open, "<"):
		x := open[1 : len(open)-1]
		out = append(out, "</"+x+">", "<"+inner(x)+">")
	case strings.HasPrefix(open, "["):
		x := open[1 : len(open)-1]
		out = append(out, "[/"+x+"]", "["+inner(x)+"]")
	case strings.HasPrefix(open, "◁"):
		x := strings.TrimSuffix(strings.TrimPrefix(open, "◁"), "▷")
		out = append(out, "◁/"+x+"▷")
	}
	var keep []string
	for _, m := range out {
		if m != open {
			keep = append(keep, m)
		}
	}
	return keep
}

// markSource is the trace's name for the family of a mark.
func markSource(tok string) string {
	switch {
	case strings.HasPrefix(tok, "["):
		return schemas.ReasoningThinkBracket
	case strings.Contains(strings.ToLower(tok), "reason"):
		return schemas.ReasoningTag
	}
	return schemas.ReasoningThinkTag
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
	return readReasoning(reply, splitReasoning(reply.Content))
}

// ReadReasoningWith is ReadReasoning that reads the content's reasoning
// under the marks learned from the model's own template first (syn, for
// this reply: Syntax.ForReply). A nil syntax is ReadReasoning.
func ReadReasoningWith(syn *Syntax, reply schemas.Reply) (answer string, r *schemas.Reasoning) {
	if syn != nil {
		if s, ok := syn.Reasoning.split(strings.ReplaceAll(reply.Content, "\r\n", "\n")); ok {
			return readReasoning(reply, s)
		}
	}
	return ReadReasoning(reply)
}

func readReasoning(reply schemas.Reply, s split) (answer string, r *schemas.Reasoning) {
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
