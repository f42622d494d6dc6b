package draft

import (
	"fmt"
	"io"
	"strings"

	"github.com/pyharness/pyharness/schemas"
)

// codeParseFailed is the code of a draft that holds no readable action; the
// harness records the same code on the turn.
const codeParseFailed = schemas.CodeParseFailed

// Reading is how one draft is read, for a person: the action, or why it is
// refused and what the model would be told.
type Reading struct {
	Action *Action `json:"action,omitempty"`
	// ReadAs is the action in this protocol's form, for an action read
	// from another format.
	ReadAs  string   `json:"read_as,omitempty"`
	Refused *Refusal `json:"refused,omitempty"`
	// Reasoning is the reply's reasoning, read apart from its answer and
	// never read for an action; nil when it had none.
	Reasoning *Reasoning `json:"reasoning,omitempty"`
}

// Reasoning is the reasoning a reading found: where, and whether the
// reply ended inside it.
type Reasoning struct {
	Source string `json:"source"`
	Cut    bool   `json:"cut,omitempty"`
	Text   string `json:"text"`
}

// Refusal is a draft the harness would not act on.
type Refusal struct {
	Code   schemas.Code `json:"code"`
	Reason string       `json:"reason"`
	Verb   string       `json:"verb,omitempty"`
	Shape  string       `json:"shape"`
	Via    string       `json:"via"`
	// Message is what the model would be sent.
	Message string `json:"message"`
}

// readReply parses one text draft and says how it is read.
func readReply(content string) Reading {
	rd := read(content)
	if s := splitReasoning(strings.ReplaceAll(content, "\r\n", "\n")); s.Source != "" {
		rd.Reasoning = &Reasoning{Source: s.Source, Cut: s.Cut, Text: s.Reasoning}
	}
	return rd
}

// ReadWith parses one text draft as ParseWith does, with the syntax
// learned from the model's chat template tried first, and says how it is
// read. A nil syntax is Read.
func ReadWith(syn *Syntax, content string) Reading {
	if syn == nil {
		return readReply(content)
	}
	a, err := ParseWith(syn, content, nil)
	rd := reading(a, err)
	text := strings.ReplaceAll(content, "\r\n", "\n")
	if s, ok := syn.Reasoning.split(text); ok {
		rd.Reasoning = &Reasoning{Source: s.Source + " (the template's " + syn.Reasoning.Open + "…" + syn.Reasoning.Close + ")", Cut: s.Cut, Text: s.Reasoning}
	} else if s := splitReasoning(text); s.Source != "" {
		rd.Reasoning = &Reasoning{Source: s.Source, Cut: s.Cut, Text: s.Reasoning}
	}
	return rd
}

func read(content string) Reading {
	a, err := Parse(content, nil)
	return reading(a, err)
}

func reading(a Action, err error) Reading {
	if err != nil {
		r := &Refusal{Code: codeParseFailed, Reason: err.Error(), Shape: "none", Message: err.Error()}
		if pe, ok := err.(*Error); ok {
			r.Reason, r.Verb, r.Shape, r.Via = pe.Reason, pe.Verb, pe.Shape, pe.Via
			if pe.Code != "" {
				r.Code = pe.Code
			}
		}
		return Reading{Refused: r}
	}
	rd := Reading{Action: &a}
	if Foreign(a.Shape) {
		rd.ReadAs = Canonical(a)
	}
	return rd
}

// WriteText prints the reading as aligned lines: the fields an action has,
// the sizes of its bodies rather than the bodies, and for a refusal the
// message the model would be sent.
func (rd Reading) WriteText(w io.Writer) error {
	var b strings.Builder
	line := func(k, v string) { fmt.Fprintf(&b, "%-11s %s\n", k+":", v) }
	if r := rd.Reasoning; r != nil {
		cut := ""
		if r.Cut {
			cut = ", cut: the reply ended inside it"
		}
		line("reasoning", fmt.Sprintf("%s, %s%s (never read for an action)", r.Source, sizeOf(r.Text), cut))
		for _, l := range strings.Split(r.Text, "\n") {
			b.WriteString("  | " + l + "\n")
		}
	}
	if r := rd.Refused; r != nil {
		line("refused", string(r.Code))
		line("reason", r.Reason)
		line("verb", orNone(r.Verb))
		line("shape", r.Shape)
		b.WriteString("message to the model:\n")
		for _, l := range strings.Split(r.Message, "\n") {
			b.WriteString("  " + l + "\n")
		}
		_, err := io.WriteString(w, b.String())
		return err
	}
	a := rd.Action
	line("verb", a.Verb)
	if a.Path != "" {
		line("path", a.Path)
	}
	switch {
	case a.Last > 0:
		line("window", fmt.Sprintf("the last %d lines", a.Last))
	case a.Start > 0 && a.End > 0:
		line("window", fmt.Sprintf("%d-%d", a.Start, a.End))
	case a.Start > 0:
		line("window", fmt.Sprintf("%d-", a.Start))
	}
	if len(a.Candidates) > 0 {
		line("candidates", strings.Join(a.Candidates, ", ")+" (the harness takes the one that is a file)")
	}
	if a.Skill != "" {
		line("skill", a.Skill)
	}
	if len(a.Args) > 0 {
		line("args", strings.Join(a.Args, " "))
	}
	if a.Text != "" {
		line("text", sizeOf(a.Text))
	}
	if a.Verb == VerbWrite {
		line("body", sizeOf(a.Body))
	}
	if a.Verb == VerbPatch && len(a.Hunks) == 0 {
		line("find", sizeOf(a.Find))
		line("replace", sizeOf(a.Replace))
	}
	for i, h := range a.Hunks {
		line(fmt.Sprintf("hunk %d", i+1), fmt.Sprintf("old %s, new %s", sizeOf(h.Old), sizeOf(h.New)))
	}
	line("shape", a.Shape)
	line("repairs", orNone(strings.Join(a.Repairs, ", ")))
	line("via", a.Via)
	if rd.ReadAs != "" {
		line("read as", rd.ReadAs)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// sizeOf is a text's size in bytes and lines.
func sizeOf(s string) string {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return fmt.Sprintf("%d bytes, %d lines", len(s), n)
}
