package sfttokens

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/pyharness/pyharness/harness/chattemplate"
)

// Mode says which messages of a row are trained.
type Mode string

const (
	// Completion trains what TRL trains of a prompt-completion row, the
	// completion, and of a messages row the messages of weight 1 (the
	// last message when no message has a weight).
	Completion Mode = "completion"
	// Assistant trains every assistant message of the row, as an
	// assistant-only trainer does (TRL's assistant_only_loss, QVAC
	// Fabric's --assistant-loss-only): the prompt's earlier drafts too,
	// but for the export's assistant-only layout, whose one assistant
	// message is the draft.
	Assistant Mode = "assistant"
)

// ParseMode reads a mode's name.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case Completion, Assistant:
		return m, nil
	}
	return "", fmt.Errorf("mode %q: want completion or assistant", s)
}

// Piece is a stretch of a rendered row: trained or not.
type Piece struct {
	Text    string
	Trained bool
}

// Span is one trained message: its index in the row's conversation
// (the prompt's messages, then the completion's) and its text as the
// template rendered it.
type Span struct {
	Message int
	Text    string
}

// Rendered is a row rendered through a template: the whole text cut into
// pieces, and the trained spans.
type Rendered struct {
	Pieces []Piece
	Spans  []Span
}

// Text is the whole rendered row.
func (r Rendered) Text() string {
	var b strings.Builder
	for _, p := range r.Pieces {
		b.WriteString(p.Text)
	}
	return b.String()
}

// Render renders a row (a JSONL line of the prompt-completion or messages
// layout) and finds the spans mode trains: for each trained message, the
// text the template adds between the conversation before it with the
// generation prompt and the conversation up to it.
func Render(tpl *chattemplate.Template, line []byte, mode Mode) (Rendered, error) {
	row, err := chattemplate.DecodeRow(line)
	if err != nil {
		return Rendered{}, fmt.Errorf("read row: %w", err)
	}
	msgs, trained, err := messages(row, mode)
	if err != nil {
		return Rendered{}, err
	}
	render := func(n int, gen bool) (string, error) {
		return tpl.Render(chattemplate.Conversation{Messages: msgs[:n], AddGenerationPrompt: gen})
	}
	full, err := render(len(msgs), false)
	if err != nil {
		return Rendered{}, err
	}
	var out Rendered
	pos := 0
	for _, i := range trained {
		before, err := render(i, true)
		if err != nil {
			return Rendered{}, err
		}
		upto, err := render(i+1, false)
		if err != nil {
			return Rendered{}, err
		}
		if !strings.HasPrefix(upto, before) || !strings.HasPrefix(full, upto) || len(before) < pos {
			return Rendered{}, fmt.Errorf("message %d: the template does not render the conversation before it as the start of the conversation with it, so its span cannot be found", i)
		}
		if len(before) > pos {
			out.Pieces = append(out.Pieces, Piece{Text: full[pos:len(before)]})
		}
		span := full[len(before):len(upto)]
		if span == "" {
			return Rendered{}, fmt.Errorf("message %d: the template renders it as nothing", i)
		}
		out.Pieces = append(out.Pieces, Piece{Text: span, Trained: true})
		out.Spans = append(out.Spans, Span{Message: i, Text: span})
		pos = len(upto)
	}
	if pos < len(full) {
		out.Pieces = append(out.Pieces, Piece{Text: full[pos:]})
	}
	return out, nil
}

// messages returns a row's conversation and the indices of the messages
// mode trains.
func messages(row *chattemplate.Object, mode Mode) ([]any, []int, error) {
	list := func(key string) ([]any, bool) {
		v, ok := row.Get(key)
		l, isList := v.([]any)
		return l, ok && isList
	}
	var msgs []any
	first := 0 // the first message Completion may train
	weighted := false
	if m, ok := list("messages"); ok {
		msgs, weighted = m, true
	} else if p, ok := list("prompt"); ok {
		c, ok := list("completion")
		if !ok {
			return nil, nil, errors.New(`row: "prompt" without "completion"`)
		}
		msgs, first = append(append([]any{}, p...), c...), len(p)
	} else {
		return nil, nil, errors.New(`row: neither "messages" nor "prompt" and "completion"`)
	}
	if len(msgs) == 0 {
		return nil, nil, errors.New("row: no messages")
	}
	role := func(i int) string {
		o, _ := msgs[i].(*chattemplate.Object)
		if o == nil {
			return ""
		}
		return o.String("role")
	}
	var trained []int
	switch {
	case mode == Assistant:
		for i := range msgs {
			if role(i) == "assistant" {
				trained = append(trained, i)
			}
		}
	case weighted:
		anyWeight := false
		for i := range msgs {
			o, _ := msgs[i].(*chattemplate.Object)
			if o == nil {
				continue
			}
			if w, ok := o.Get("weight"); ok {
				anyWeight = true
				if n, ok := w.(json.Number); ok && n.String() == "1" {
					trained = append(trained, i)
				}
			}
		}
		if !anyWeight {
			trained = []int{len(msgs) - 1}
		}
	default:
		for i := first; i < len(msgs); i++ {
			if role(i) == "assistant" {
				trained = append(trained, i)
			}
		}
	}
	if len(trained) == 0 {
		return nil, nil, errors.New("row: no message to train")
	}
	return msgs, trained, nil
}
