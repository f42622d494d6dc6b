package export

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/pyharness/pyharness/harness/draft"
	"github.com/pyharness/pyharness/schemas"
)

// Message is one chat message as the trainers read it: role and content,
// content always a string. ReasoningContent is the trained draft's
// reasoning (--reasoning keep), in the field trainers and templates read
// for it. ToolCalls and ToolCallID are written only with --keep-tool-calls,
// in the shape Hugging Face chat templates take (arguments a JSON object).
// Weight is set on the assistant messages of the messages layout: 1 on
// the draft to learn, 0 on the earlier drafts of its context (Axolotl's
// message_field_training, OpenAI's per-message weight); in the
// assistant-only layout, 1 on its one assistant message, the draft.
type Message struct {
	Role             string     `json:"role"`
	Content          string     `json:"content"`
	ReasoningContent string     `json:"reasoning_content,omitempty"`
	ToolCalls        []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID       string     `json:"tool_call_id,omitempty"`
	Weight           *int       `json:"weight,omitempty"`
	// encoded holds the message as the JSONL sink last encoded it, for
	// the next row of the run that repeats it (context).
	encoded *encodedMessage
}

// ToolCall is an OpenAI-style function call as chat templates read it.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function FunctionCall `json:"function"`
}

// FunctionCall names a function and its arguments, a JSON object: the
// templates iterate over it (arguments|items), and a string would crash
// them or be encoded twice.
type FunctionCall struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}

// renderer turns recorded messages into training messages. One renderer
// is for one goroutine: it counts the redactions it made.
type renderer struct {
	keepToolCalls bool
	asWritten     bool
	keepReasoning bool
	redact        *redactor // values sorted (sortValues) before rendering starts
	redactions    int
	// done holds the texts redacted so far with what redaction made of
	// them: the rows of a run repeat its earlier messages in every
	// context, and each was searched for every secret and token shape
	// once per row.
	done map[string]redaction
	// rendered are the messages context rendered, by their index in the
	// prompt, for the run runID: each row of a run repeats the messages
	// of its earlier prompts, which were rendered (and encoded) again for
	// every row.
	rendered []*renderedMessage
	runID    string
}

// renderedMessage is a prompt's message (from), what message made of it,
// and its encoding once a sink made one.
type renderedMessage struct {
	from       schemas.Message
	out        Message
	redactions int // made rendering it, counted again each time it is
	encoded    encodedMessage
}

// sameSource reports whether two prompt messages render alike: the same
// texts, and no tool calls (whose ids are set after rendering; they are
// rendered every time).
func sameSource(a, b *schemas.Message) bool {
	return len(a.ToolCalls) == 0 && len(b.ToolCalls) == 0 && a.Role == b.Role && a.Content == b.Content && a.ToolCallID == b.ToolCallID
}

// redaction is a text as redacted, and the number of redactions made.
type redaction struct {
	text string
	n    int
}

// memoLen is the shortest text redacted remembers: a shorter one costs
// less to redact again than to look up.
const memoLen = 64

func newRenderer(o Options, red *redactor) *renderer {
	return &renderer{keepToolCalls: o.KeepToolCalls, asWritten: o.AsWritten, keepReasoning: o.Reasoning == reasoningKeep, redact: red}
}

// redacted is s redacted, counted in rd.redactions.
func (rd *renderer) redacted(s string) string {
	if r, ok := rd.done[s]; ok {
		rd.redactions += r.n
		return r.text
	}
	out, n := rd.redact.redact(s)
	rd.redactions += n
	if len(s) >= memoLen {
		if rd.done == nil {
			rd.done = map[string]redaction{}
		}
		rd.done[s] = redaction{text: out, n: n}
	}
	return out
}

// context renders the prompt a draft answered, as the model was sent it:
// earlier drafts stay as written, refused ones too (with the harness's
// answer after them, they teach recovery; they are never trained). With
// --keep-tool-calls every call gets an id and every tool message the id
// of the call it answers.
func (rd *renderer) context(runID string, prompt []schemas.Message) []Message {
	out := make([]Message, 0, len(prompt)+1)
	lastCall := ""
	if runID != rd.runID {
		rd.rendered, rd.runID = rd.rendered[:0], runID
	}
	for i := range prompt {
		m := &prompt[i]
		var msg Message
		if i < len(rd.rendered) && sameSource(&rd.rendered[i].from, m) {
			msg = rd.rendered[i].out
			rd.redactions += rd.rendered[i].redactions
		} else {
			before := rd.redactions
			msg = rd.message(*m)
			if len(m.ToolCalls) == 0 && i <= len(rd.rendered) {
				r := &renderedMessage{from: *m, redactions: rd.redactions - before}
				msg.encoded = &r.encoded
				r.out = msg
				if i < len(rd.rendered) {
					rd.rendered[i] = r
				} else {
					rd.rendered = append(rd.rendered, r)
				}
			}
		}
		if rd.keepToolCalls {
			for k := range msg.ToolCalls {
				msg.ToolCalls[k].ID = callID(runID, i, k)
			}
			if len(msg.ToolCalls) > 0 {
				lastCall = msg.ToolCalls[0].ID
			}
			if msg.Role == "tool" {
				// The harness answers the first call of the draft before
				// (it acts on that one alone).
				msg.ToolCallID = lastCall
			}
		}
		out = append(out, msg)
	}
	return out
}

// The labels of the transcript foldHistory writes: each earlier draft
// and each answer of the harness after the task, on a line of its own
// before the text. They name no chat role, so no trainer that finds
// assistant turns by their markers (Unsloth, QVAC Fabric) takes one for a
// turn.
const (
	foldedDraft  = "[you]"
	foldedAnswer = "[harness]"
)

// foldHistory is the assistant-only layout's context: the system messages
// as they are, then the rest of the conversation, from the task to the
// harness's last answer, as one user message: the task, then each earlier
// draft as written and each answer after it, each under its label
// (foldedDraft, foldedAnswer), separated by blank lines. The draft that
// follows is then the row's only assistant message, so a trainer that
// trains every assistant message trains it alone. A context of one user
// message is kept as it is.
func foldHistory(context []Message) []Message {
	first := 0
	for first < len(context) && context[first].Role == "system" {
		first++
	}
	if len(context)-first <= 1 {
		return context
	}
	var b strings.Builder
	for i, m := range context[first:] {
		if i > 0 {
			label := foldedAnswer
			if m.Role == "assistant" {
				label = foldedDraft
			}
			b.WriteString("\n\n" + label + "\n")
		}
		b.WriteString(m.Content)
	}
	out := append(make([]Message, 0, first+1), context[:first]...)
	return append(out, Message{Role: "user", Content: b.String()})
}

// target renders the selected draft of turn t as the assistant message to
// learn: in the protocol's canonical form (a native call as the harness's
// own tool with its documented arguments), unless --as-written, and its
// reasoning in reasoning_content or dropped. msg is the message's index
// in the row, for call ids. written is the model's own text when the
// message says it otherwise, for the provenance.
func (rd *renderer) target(runID string, msg int, t *schemas.Turn) (out Message, written string) {
	answer, r := readDraft(t)
	reply := schemas.Message{Role: "assistant", Content: answer, ToolCalls: t.Reply.ToolCalls}
	if !rd.asWritten {
		if canon, ok := rd.canonicalMessage(t); ok {
			if w := asWritten(answer, t.Reply.ToolCalls); w != asWritten(canon.Content, canon.ToolCalls) {
				written = rd.redacted(w)
			}
			reply = canon
		}
	}
	out = rd.message(reply)
	for k := range out.ToolCalls {
		out.ToolCalls[k].ID = callID(runID, msg, k)
	}
	if rd.keepReasoning && r != nil {
		out.ReasoningContent = rd.redacted(strings.TrimSpace(r.Text))
	}
	return out, written
}

// canonicalMessage is the selected draft of turn t as the assistant
// message its canonical form makes, on the path the harness settled on:
// the text the turn recorded, or the native call the harness offers for
// the action with --keep-tool-calls (which needs the action, so the draft
// is read again). ok is false when the draft has no canonical form.
func (rd *renderer) canonicalMessage(t *schemas.Turn) (schemas.Message, bool) {
	canon := schemas.Message{Role: "assistant"}
	native := rd.keepToolCalls && len(t.Reply.ToolCalls) > 0
	if text, stated, ok := recordedReading(t); ok && !native {
		if !stated || !readingOf(text, t.Action.Verb, "") {
			return canon, false
		}
		if readingOf(text, t.Action.Verb, t.Action.Path) {
			canon.Content = text
			return canon, true
		}
		// Read on another path than the one the harness settled on: the
		// statement is made again with that path.
	}
	a, ok := canonicalAction(t)
	if !ok {
		return canon, false
	}
	if native {
		call, _ := draft.NativeCall(a)
		canon.ToolCalls = []schemas.ToolCall{call}
	} else {
		canon.Content, _ = draft.CanonicalText(a)
	}
	return canon, true
}

// rejected renders the rejected draft of a preference pair as written: it
// was refused, or came from a failed run, and may have no canonical form.
func (rd *renderer) rejected(runID string, msg int, t *schemas.Turn) Message {
	answer, r := readDraft(t)
	out := rd.message(schemas.Message{Role: "assistant", Content: answer, ToolCalls: t.Reply.ToolCalls})
	for k := range out.ToolCalls {
		out.ToolCalls[k].ID = callID(runID, msg, k)
	}
	if rd.keepReasoning && r != nil {
		out.ReasoningContent = rd.redacted(strings.TrimSpace(r.Text))
	}
	return out
}

// message renders one message, redacted. Without --keep-tool-calls a native
// tool call is written as the text action it was mapped to, and a tool
// result as the user message the text protocol sends, so every row speaks
// the one protocol the model is trained on.
func (rd *renderer) message(m schemas.Message) Message {
	out := Message{Role: m.Role, Content: m.Content}
	if rd.keepToolCalls {
		for _, c := range m.ToolCalls {
			out.ToolCalls = append(out.ToolCalls, ToolCall{Type: "function",
				Function: FunctionCall{Name: c.Name, Arguments: rd.redactedArgs(c.Arguments)}})
		}
	} else {
		if len(m.ToolCalls) > 0 {
			out.Content = textAction(m.Content, m.ToolCalls)
		}
		if out.Role == "tool" {
			out.Role = "user"
		}
	}
	out.Content = rd.redacted(out.Content)
	return out
}

// redactedArgs is a copy of a call's arguments with every string in it
// redacted; never nil, since templates iterate over it.
func (rd *renderer) redactedArgs(args map[string]any) map[string]any {
	out := make(map[string]any, len(args))
	for k, v := range args {
		out[k] = rd.redactedValue(v)
	}
	return out
}

func (rd *renderer) redactedValue(v any) any {
	switch v := v.(type) {
	case string:
		return rd.redacted(v)
	case map[string]any:
		return rd.redactedArgs(v)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = rd.redactedValue(e)
		}
		return out
	case []string:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = rd.redacted(e)
		}
		return out
	}
	return v
}

// training returns a prompt and draft as the training text holds them,
// before redaction: the draft in canonical form (unless --as-written),
// without its reasoning, and native tool calls in the text protocol unless
// they are kept. Exact keys and near-duplicates are computed on this, so
// a draft sent as a tool call and its twin written as text, or a draft in
// a foreign format and its canonical twin, are one pair.
func (rd *renderer) training(prompt []schemas.Message, reply schemas.Reply) ([]schemas.Message, schemas.Reply) {
	return rd.trainingOf(prompt, reply, rd.trainedReply(reply))
}

// trainingOf is training with the draft as trainedReply made it.
func (rd *renderer) trainingOf(prompt []schemas.Message, reply, trained schemas.Reply) ([]schemas.Message, schemas.Reply) {
	reply = trained
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
			out[i] = schemas.Message{Role: m.Role, Content: textAction(m.Content, m.ToolCalls)}
		}
		if m.Role == "tool" {
			out[i] = schemas.Message{Role: "user", Content: m.Content}
		}
	}
	if out == nil {
		out = prompt
	}
	if len(reply.ToolCalls) > 0 {
		reply = schemas.Reply{Content: textAction(reply.Content, reply.ToolCalls)}
	}
	return out, reply
}

// trainedReply is the draft of a pair as it is trained, for keys: its
// answer, in canonical form unless --as-written. The key reads the reply
// alone (the harness's resolved path is not at hand): a draft that names
// its file among other words keys on the words it wrote.
func (rd *renderer) trainedReply(reply schemas.Reply) schemas.Reply {
	var p parsedDraft
	return rd.trainedReplyOf(&schemas.Turn{Reply: reply}, &p)
}

// trainedReplyOf is trainedReply of t's draft, of the parse p holds or
// makes.
func (rd *renderer) trainedReplyOf(t *schemas.Turn, p *parsedDraft) schemas.Reply {
	if rd.asWritten {
		return answerOf(t.Reply)
	}
	native := rd.keepToolCalls && len(t.Reply.ToolCalls) > 0
	if text, stated, ok := recordedReading(t); ok && !native {
		if !stated {
			return answerOf(t.Reply)
		}
		return schemas.Reply{Content: text}
	}
	a, err := p.of(t)
	if err != nil {
		return answerOf(t.Reply)
	}
	if native {
		if call, ok := draft.NativeCall(a); ok {
			return schemas.Reply{ToolCalls: []schemas.ToolCall{call}}
		}
		return answerOf(t.Reply)
	}
	if text, ok := draft.CanonicalText(a); ok {
		return schemas.Reply{Content: text}
	}
	return answerOf(t.Reply)
}

// answerOf is reply trained as written: its answer without the reasoning,
// and its tool calls. trainedReplyOf reads it only when it is what is
// trained: a reading in canonical form, recorded or made, needs none.
func answerOf(reply schemas.Reply) schemas.Reply {
	answer, _ := draft.ReadReasoning(reply)
	return schemas.Reply{Content: answer, ToolCalls: reply.ToolCalls}
}

// textAction renders native tool calls as the text protocol's action, after
// any content the model wrote with them. The first call is the action (the
// harness ignores the others, as it ignores extra text actions).
func textAction(content string, calls []schemas.ToolCall) string {
	a, err := draft.Parse("", calls[:1])
	act, ok := draft.CanonicalText(a)
	if err != nil || !ok {
		act = rawCall(calls[0])
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
