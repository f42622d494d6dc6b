package harness

import (
	"fmt"
	"math"
	"strings"

	"github.com/pyharness/pyharness/schemas"
)

// tokenizer estimates prompt sizes in tokens without the model's own
// tokenizer, and calibrates itself from the counts the server reports.
type tokenizer struct {
	bytesPerToken float64
}

// perMessage is the template overhead of one message (role markers).
const perMessage = 4

func newTokenizer() *tokenizer {
	// About 3.5 bytes a token for code in llama- and qwen-family
	// vocabularies; the server's counts correct it from the first reply, and
	// an overflow tightens it at once.
	return &tokenizer{bytesPerToken: 3.5}
}

func (t *tokenizer) text(s string) int {
	return int(math.Ceil(float64(len(s)) / t.bytesPerToken))
}

func (t *tokenizer) messages(msgs []schemas.Message) int {
	n := 0
	for _, m := range msgs {
		n += t.text(m.Content) + perMessage
	}
	return n
}

// calibrate takes the server's prompt token count for a prompt and moves
// the estimate toward it, never to a looser ratio than the evidence allows.
func (t *tokenizer) calibrate(msgs []schemas.Message, serverTokens int) {
	body := serverTokens - perMessage*len(msgs)
	if body <= 0 {
		return
	}
	size := 0
	for _, m := range msgs {
		size += len(m.Content)
	}
	observed := float64(size) / float64(body)
	observed = min(max(observed, 1.0), 8.0)
	// Moving toward the observation, but taking a denser reading at once:
	// an underestimate overflows the context, an overestimate only wastes.
	if observed < t.bytesPerToken {
		t.bytesPerToken = observed
	} else {
		t.bytesPerToken = 0.7*t.bytesPerToken + 0.3*observed
	}
}

// histMsg is one message of the run's conversation, with what the budget
// made of it. Once elided a message stays elided, so later prompts extend
// the earlier ones and the trace can record them as deltas.
type histMsg struct {
	msg      schemas.Message
	kind     string // opening, system, reply, result
	ref      string // what the message is about, for elision records
	elided   bool
	dropped  bool   // left out of the prompt altogether
	short    string // the stand-in once elided
	protects bool   // never elided (system prompt)
}

func (h *histMsg) sent() schemas.Message {
	if h.elided {
		m := h.msg
		m.Content = h.short
		return m
	}
	return h.msg
}

// fit makes the conversation fit the budget: oldest tool results are
// elided first, then old replies, then the newest message is cut to its
// head and tail. It returns the prompt and what it left out.
func fit(hist []*histMsg, tok *tokenizer, budget int) ([]schemas.Message, []schemas.Elision, bool) {
	changed := false
	// A margin for the estimate's error: the server's count is only known
	// after the prompt is sent.
	budget -= budget / 20
	total := func() int {
		n := 0
		for _, h := range hist {
			if h.dropped {
				continue
			}
			m := h.sent()
			n += tok.text(m.Content) + perMessage
		}
		return n
	}
	// Keep the last four messages (the latest exchange) whole as long as
	// anything older can go.
	keep := len(hist) - 4
	for _, pass := range []string{"result", "reply", "opening"} {
		for i := 0; i < keep && total() > budget; i++ {
			h := hist[i]
			if h.elided || h.protects || h.kind != pass {
				continue
			}
			// A short message's stand-in can be longer than the message
			// (a one-line reply plus the elision note): leaving it out
			// would cost tokens, not save them.
			short := elisionNote(h)
			if tok.text(short) >= tok.text(h.msg.Content) {
				continue
			}
			h.short = short
			h.elided = true
			changed = true
		}
	}
	// Elided stubs still cost tokens: drop the oldest exchanges (a reply
	// and the result it got) whole, keeping roles alternating.
	for i := 2; i+1 < keep && total() > budget; i++ {
		if hist[i].kind == "reply" && !hist[i].dropped && hist[i+1].kind == "result" {
			hist[i].dropped, hist[i+1].dropped = true, true
			hist[i].elided, hist[i+1].elided = true, true
			changed = true
		}
	}
	// The last resort: cut the newest long messages to head and tail.
	for i := len(hist) - 1; i >= 0 && total() > budget; i-- {
		h := hist[i]
		if h.protects || h.elided {
			continue
		}
		over := total() - budget
		keepTok := tok.text(h.msg.Content) - over - 16
		if keepTok < 64 {
			keepTok = 64
		}
		short := headTail(h.msg.Content, int(float64(keepTok)*tok.bytesPerToken))
		if tok.text(short) >= tok.text(h.msg.Content) {
			// Within a marker's length of the cut: the marker costs more
			// than the bytes it stands for.
			continue
		}
		h.short = short
		h.elided = true
		changed = true
	}
	var msgs []schemas.Message
	var elided []schemas.Elision
	for _, h := range hist {
		if !h.dropped {
			msgs = append(msgs, h.sent())
		}
		if h.elided {
			what := "tool-result"
			switch h.kind {
			case "reply":
				what = "message"
			case "opening":
				what = "repo-map"
			}
			saved := tok.text(h.msg.Content) - tok.text(h.short)
			if h.dropped {
				saved = tok.text(h.msg.Content) + perMessage
			}
			elided = append(elided, schemas.Elision{What: what, Ref: h.ref, Tokens: saved})
		}
	}
	return msgs, elided, changed
}

func elisionNote(h *histMsg) string {
	switch h.kind {
	case "result":
		return fmt.Sprintf("[elided to fit the context: the result of %s; ask again if you need it]", h.ref)
	case "reply":
		first, _, _ := strings.Cut(h.msg.Content, "\n")
		return fmt.Sprintf("%s\n[rest of this earlier reply elided to fit the context]", first)
	case "opening":
		task, _, _ := strings.Cut(h.msg.Content, repoMapHeading)
		return task + "[repository map elided to fit the context: use SKILL locate NAME or READ path]"
	}
	return "[elided to fit the context]"
}

// headTail keeps about n bytes of s: its head and tail, with a marker.
func headTail(s string, n int) string {
	if len(s) <= n || n <= 0 {
		return s
	}
	h := n * 2 / 3
	t := n - h
	return s[:h] + fmt.Sprintf("\n[... %d bytes elided to fit the context ...]\n", len(s)-h-t) + s[len(s)-t:]
}
