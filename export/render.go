package export

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/pyharness/pyharness/draft"
	"github.com/pyharness/pyharness/schemas"
)

// Message is one chat message as the trainers read it: role and content,
// content always a string. ToolCalls and ToolCallID are written only with
// --keep-tool-calls, in the OpenAI shape (arguments a JSON string), which is
// why this is not schemas.Message: the trace keeps the calls as the model
// sent them.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

// ToolCall is an OpenAI-style function call; arguments are a JSON string.
type ToolCall struct {
	ID       string       `json:"id,omitempty"`
	Type     string       `json:"type"`
	Function FunctionCall `json:"function"`
}

// FunctionCall names a function and its arguments as a JSON string.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// renderer turns recorded messages into training messages. One renderer
// is for one goroutine: it counts the redactions it made.
type renderer struct {
	keepToolCalls bool
	redact        *Redactor // values sorted (sortValues) before rendering starts
	redactions    int
}

// redacted is s redacted, counted in rd.redactions.
func (rd *renderer) redacted(s string) string {
	out, n := rd.redact.redact(s)
	rd.redactions += n
	return out
}

// conversation renders a prompt and the draft that answered it: the draft
// becomes the last, assistant, message.
func (rd *renderer) conversation(prompt []schemas.Message, reply schemas.Reply) []Message {
	out := make([]Message, 0, len(prompt)+1)
	for _, m := range prompt {
		out = append(out, rd.message(m))
	}
	return append(out, rd.message(schemas.Message{Role: "assistant", Content: reply.Content, ToolCalls: reply.ToolCalls}))
}

// message renders one message, redacted. Without --keep-tool-calls a native
// tool call is written as the text action it was mapped to, and a tool
// result as the user message the text protocol sends, so every row speaks
// the one protocol the model is trained on.
func (rd *renderer) message(m schemas.Message) Message {
	out := Message{Role: m.Role, Content: m.Content}
	if rd.keepToolCalls {
		for _, c := range m.ToolCalls {
			args, err := json.Marshal(c.Arguments)
			if err != nil || c.Arguments == nil {
				args = []byte("{}")
			}
			out.ToolCalls = append(out.ToolCalls, ToolCall{ID: c.ID, Type: "function",
				Function: FunctionCall{Name: c.Name, Arguments: rd.redacted(string(args))}})
		}
		out.ToolCallID = m.ToolCallID
	} else {
		if len(m.ToolCalls) > 0 {
			out.Content = TextAction(m.Content, m.ToolCalls)
		}
		if out.Role == "tool" {
			out.Role = "user"
		}
	}
	out.Content = rd.redacted(out.Content)
	return out
}

// training returns a prompt and draft as the training text holds them,
// before redaction: with native tool calls in the text protocol unless
// they are kept. Exact keys and near-duplicates are computed on this, so a
// draft sent as a tool call and its twin written as text are one pair.
func (rd *renderer) training(prompt []schemas.Message, reply schemas.Reply) ([]schemas.Message, schemas.Reply) {
	if rd.keepToolCalls {
		return prompt, reply
	}
	var out []schemas.Message
	for i, m := range prompt {
		if len(m.ToolCalls) == 0 && m.Role != "tool" {
			continue
		}
		if out == nil {
			out = slices.Clone(prompt)
		}
		if len(m.ToolCalls) > 0 {
			out[i] = schemas.Message{Role: m.Role, Content: TextAction(m.Content, m.ToolCalls)}
		}
		if m.Role == "tool" {
			out[i] = schemas.Message{Role: "user", Content: m.Content}
		}
	}
	if out == nil {
		out = prompt
	}
	if len(reply.ToolCalls) > 0 {
		reply = schemas.Reply{Content: TextAction(reply.Content, reply.ToolCalls)}
	}
	return out, reply
}

// TextAction renders native tool calls as the text protocol's action, after
// any content the model wrote with them. The first call is the action (the
// harness ignores the others, as it ignores extra text actions).
func TextAction(content string, calls []schemas.ToolCall) string {
	a, err := draft.Parse("", calls[:1])
	var act string
	if err != nil {
		act = rawCall(calls[0])
	} else {
		act = canonical(a)
	}
	if strings.TrimSpace(content) == "" {
		return act
	}
	return strings.TrimRight(content, "\n") + "\n" + act
}

func rawCall(c schemas.ToolCall) string {
	args, err := json.Marshal(c.Arguments)
	if err != nil {
		args = []byte("{}")
	}
	return c.Name + "(" + string(args) + ")"
}

// canonical writes an action in the canonical shapes the system prompt
// teaches.
func canonical(a draft.Action) string {
	switch a.Verb {
	case draft.VerbRead:
		switch {
		case a.Start > 0 && a.End > 0:
			return fmt.Sprintf("READ %s:%d-%d", a.Path, a.Start, a.End)
		case a.Start > 0:
			return fmt.Sprintf("READ %s:%d", a.Path, a.Start)
		}
		return "READ " + a.Path
	case draft.VerbWrite:
		return "WRITE " + a.Path + "\n" + fence(a.Path, a.Body)
	case draft.VerbPatch:
		return "PATCH " + a.Path + "\nFIND:\n" + fence(a.Path, a.Find+"\n") + "\nREPLACE:\n" + fence(a.Path, a.Replace+"\n")
	case draft.VerbRun:
		if len(a.Args) == 0 {
			return "RUN tests"
		}
		return "RUN " + strings.Join(a.Args, " ")
	case draft.VerbSkill:
		return strings.TrimSpace("SKILL " + a.Skill + " " + strings.Join(a.Args, " "))
	case draft.VerbAsk:
		return "ASK " + a.Text
	case draft.VerbDone:
		return strings.TrimSpace("DONE " + a.Text)
	}
	return a.Verb
}

// fence wraps a body in a code fence tagged with the file's language,
// choosing a longer fence when the body holds one.
func fence(name, body string) string {
	tag := draft.FenceTag(name)
	marker := "```"
	for strings.Contains(body, marker) {
		marker += "`"
	}
	if !strings.HasSuffix(body, "\n") {
		body += "\n"
	}
	return marker + tag + "\n" + body + marker
}
