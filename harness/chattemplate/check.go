package chattemplate

import (
	"errors"
	"fmt"
	"strings"
)

// Adaptation is one change Check made to a row so that the template
// renders what the row means.
type Adaptation string

const (
	// adaptSystemFolded: the template refuses or drops the system role, so
	// the system prompt is put at the head of the first user message.
	adaptSystemFolded Adaptation = "system prompt folded into the first user message"
	// adaptGenerationTail: the generation prompt ends with what a rendered
	// answer does not start with (a reasoning template's "<think>\n"), so
	// the trained answer starts with it and the prompt is a prefix of the
	// conversation: the loss starts where the trainer's mask says.
	adaptGenerationTail Adaptation = "completion starts with the generation prompt's tail"
	// adaptReasoningField: the reasoning is moved to the field the
	// template renders (reasoning_content or thinking).
	adaptReasoningField Adaptation = "reasoning moved to the field the template renders"
	// adaptThinkToField: a <think>…</think> block the template strips from
	// content is moved to the reasoning field it renders.
	adaptThinkToField Adaptation = "<think> block moved from content to the reasoning field"
	// adaptArgumentsDecoded: tool-call arguments given as a JSON string
	// are decoded to the object Hugging Face templates expect.
	adaptArgumentsDecoded Adaptation = "tool-call arguments decoded from a JSON string to an object"
)

// rowError is a row the template cannot render as meant: the template's
// own error, or what went missing from its output.
type rowError struct {
	Template string
	// Part names the conversation of the row ("messages", "prompt+completion",
	// "prompt+chosen", "prompt+rejected").
	Part string
	Err  error
}

func (e *rowError) Error() string {
	return fmt.Sprintf("template %s, %s: %v", e.Template, e.Part, e.Err)
}

func (e *rowError) Unwrap() error { return e.Err }

// Checker checks rows against one template, adapting what can be adapted.
// Check may be called from several goroutines.
type Checker struct {
	T      *Template
	Traits Traits
}

// NewChecker probes t and returns a checker for it.
func NewChecker(t *Template) *Checker { return &Checker{T: t, Traits: t.probe()} }

// Checked is the outcome of checking one row.
type Checked struct {
	// Row is the row as it should be written: the input when nothing was
	// adapted, else the adapted row (keys in their order).
	Row []byte
	// Adaptations applied, each once, in the order applied.
	Adaptations []Adaptation
	// NotPrefix, when set, says that the prompt rendered with the
	// generation prompt is not a prefix of the whole conversation and no
	// change to the answer makes it one: the row renders, but TRL's
	// prompt/completion and mlx-lm's --mask-prompt start the loss at the
	// wrong place. A warning, not an error: the template is built so.
	NotPrefix string
}

// conversation is one rendering of a row: the context messages and the
// trained ones (the last assistant message, or the completion).
type conversation struct {
	part    string
	context []any
	trained []any
}

// Check renders a row — a JSONL line as a trainer loads it: {"messages"},
// {"prompt", "completion"} or {"prompt", "chosen", "rejected"}, with an
// optional "tools" column — through the template, adapts it where the
// template needs it and checks that the rendering holds the system
// prompt, every trained answer unaltered, its reasoning and its tool
// calls, and that the prompt is a prefix of the whole conversation. A row
// that cannot be rendered as meant returns a *rowError.
func (c *Checker) Check(line []byte) (Checked, error) {
	v, err := decodeJSON(line)
	if err != nil {
		return Checked{}, fmt.Errorf("read row: %w", err)
	}
	row, ok := v.(*Object)
	if !ok {
		return Checked{}, errors.New("read row: not a JSON object")
	}
	applied := map[Adaptation]bool{}
	var order []Adaptation
	note := func(a Adaptation) {
		if !applied[a] {
			applied[a] = true
			order = append(order, a)
		}
	}
	if err := c.adaptRow(row, note); err != nil {
		return Checked{}, &rowError{Template: c.T.Name, Part: "row", Err: err}
	}
	convs, err := conversations(row)
	if err != nil {
		return Checked{}, err
	}
	var tools []any
	if t, ok := row.Get("tools"); ok {
		if t, ok := t.([]any); ok {
			tools = t
		}
	}
	out := Checked{Row: line}
	for _, cv := range convs {
		notPrefix, err := c.check(cv, tools, note)
		if err != nil {
			return Checked{}, &rowError{Template: c.T.Name, Part: cv.part, Err: err}
		}
		if out.NotPrefix == "" && notPrefix != "" {
			out.NotPrefix = cv.part + ": " + notPrefix
		}
	}
	out.Adaptations = order
	if len(order) > 0 {
		if out.Row, err = row.MarshalJSON(); err != nil {
			return Checked{}, fmt.Errorf("write adapted row: %w", err)
		}
	}
	return out, nil
}

func conversations(row *Object) ([]conversation, error) {
	list := func(key string) ([]any, bool) {
		v, ok := row.Get(key)
		l, isList := v.([]any)
		return l, ok && isList
	}
	if msgs, ok := list("messages"); ok {
		if len(msgs) == 0 {
			return nil, errors.New("row: messages is empty")
		}
		return []conversation{{part: "messages", context: msgs[:len(msgs)-1], trained: msgs[len(msgs)-1:]}}, nil
	}
	prompt, ok := list("prompt")
	if !ok {
		return nil, errors.New(`row: neither "messages" nor "prompt" is a list of messages`)
	}
	if comp, ok := list("completion"); ok {
		return []conversation{{part: "prompt+completion", context: prompt, trained: comp}}, nil
	}
	chosen, okc := list("chosen")
	rejected, okr := list("rejected")
	if !okc || !okr {
		return nil, errors.New(`row: "prompt" without "completion" or "chosen" and "rejected"`)
	}
	return []conversation{{part: "prompt+chosen", context: prompt, trained: chosen}, {part: "prompt+rejected", context: prompt, trained: rejected}}, nil
}

func objects(l []any) []*Object {
	var out []*Object
	for _, v := range l {
		if o, ok := v.(*Object); ok {
			out = append(out, o)
		}
	}
	return out
}

func (c *Checker) check(cv conversation, tools []any, note func(Adaptation)) (notPrefix string, err error) {
	tr := c.Traits
	var answers []*Object
	for _, m := range objects(cv.trained) {
		if m.String("role") != "assistant" {
			continue
		}
		answers = append(answers, m)
		if err := c.placeReasoning(m, note); err != nil {
			return "", err
		}
	}
	render := func(agp bool, trained bool) (string, error) {
		msgs := append([]any{}, cv.context...)
		if trained {
			msgs = append(msgs, cv.trained...)
		}
		return c.T.render(Conversation{Messages: msgs, Tools: tools, AddGenerationPrompt: agp})
	}
	full, err := render(false, true)
	if err != nil {
		return "", err
	}
	// The system prompt (folded or not) and what the user said are the
	// context the answer was trained in: the rendering must hold them.
	for i, m := range objects(cv.context) {
		role := m.String("role")
		if s := strings.TrimSpace(m.String("content")); (role == "system" || role == "user") && s != "" && !strings.Contains(full, s) {
			return "", fmt.Errorf("message %d (%s) is missing from the rendering (%.60q…)", i, role, s)
		}
	}
	for _, m := range answers {
		// Whether the calls are rendered at all first: the tools column
		// may name every function in a template that ignores the calls.
		if err := c.toolCallsRendered(full, m, func() (string, error) { return render(false, true) }); err != nil {
			return "", err
		}
		if err := answerRendered(full, m, tr.ReasoningField); err != nil {
			return "", err
		}
	}
	if len(cv.context) == 0 || len(answers) == 0 {
		return "", nil
	}
	prompt, err := render(true, false)
	if err != nil {
		return "", fmt.Errorf("the prompt with the generation prompt: %w", err)
	}
	if strings.HasPrefix(full, prompt) {
		return "", nil
	}
	n := commonPrefix(prompt, full)
	tail := prompt[n:]
	first := answers[0]
	if first != cv.trained[0] {
		return describeNotPrefix(prompt, full, n), nil
	}
	old := first.String("content")
	first.Set("content", tail+old)
	adapted, err := render(false, true)
	if err == nil && strings.HasPrefix(adapted, prompt) && answerRendered(adapted, first, tr.ReasoningField) == nil {
		note(adaptGenerationTail)
		return "", nil
	}
	first.Set("content", old)
	return describeNotPrefix(prompt, full, n), nil
}

func describeNotPrefix(prompt, full string, n int) string {
	from := max(n-30, 0)
	return fmt.Sprintf("the generation prompt ends %q where the conversation has %q",
		prompt[from:], full[from:min(len(full), n+30)])
}

// toolCallsRendered checks that an answer's tool calls change the
// rendering: a template that ignores tool_calls renders the same text
// without them (the tools column may still name every function).
func (c *Checker) toolCallsRendered(full string, m *Object, render func() (string, error)) error {
	calls, ok := m.Get("tool_calls")
	if !ok || len(asList(calls)) == 0 {
		return nil
	}
	var without string
	var err error
	m.without("tool_calls", func() { without, err = render() })
	if err == nil && without == full {
		return errors.New("the template drops the answer's tool calls: export without --keep-tool-calls for it")
	}
	return nil
}

// adaptRow makes the changes that concern the whole row: tool-call
// arguments decoded, and the system prompt folded into the first user
// message of "messages" or "prompt" when the template refuses or drops it.
func (c *Checker) adaptRow(row *Object, note func(Adaptation)) error {
	for _, key := range []string{"messages", "prompt", "completion", "chosen", "rejected"} {
		msgs, ok := row.vals[key].([]any)
		if !ok {
			continue
		}
		for _, m := range objects(msgs) {
			if decodeArguments(m) {
				note(adaptArgumentsDecoded)
			}
		}
		if key != "messages" && key != "prompt" || c.Traits.System == systemKept || len(msgs) == 0 {
			continue
		}
		if m, ok := msgs[0].(*Object); !ok || m.String("role") != "system" {
			continue
		}
		folded, err := foldSystem(msgs)
		if err != nil {
			return err
		}
		row.Set(key, folded)
		note(adaptSystemFolded)
	}
	return nil
}

// foldSystem puts the system prompt at the head of the first user message
// and drops the system message.
func foldSystem(msgs []any) ([]any, error) {
	sys := msgs[0].(*Object)
	rest := msgs[1:]
	for _, m := range objects(rest) {
		if m.String("role") != "user" {
			continue
		}
		if content := m.String("content"); content != "" {
			m.Set("content", sys.String("content")+"\n\n"+content)
		} else {
			m.Set("content", sys.String("content"))
		}
		return rest, nil
	}
	return nil, errors.New("the template takes no system prompt and there is no user message to fold it into")
}

// placeReasoning puts an answer's reasoning where the template renders it.
func (c *Checker) placeReasoning(m *Object, note func(Adaptation)) error {
	field := c.Traits.ReasoningField
	for _, k := range []string{"reasoning_content", "thinking"} {
		r, ok := m.Get(k)
		if s, _ := r.(string); !ok || s == "" {
			continue
		}
		if field == "" {
			return fmt.Errorf("the answer carries reasoning (%s) but the template renders neither reasoning_content nor thinking: export with --reasoning drop, or train with a template that keeps reasoning", k)
		}
		if k != field {
			m.delete(k)
			m.Set(field, r)
			note(adaptReasoningField)
		}
	}
	content := m.String("content")
	if !c.Traits.StripsThink || !strings.Contains(content, "</think>") {
		return nil
	}
	if field == "" {
		return errors.New("the answer's content holds a <think> block, which the template strips, and the template renders no reasoning field to move it to: export with --reasoning drop")
	}
	before, after, _ := strings.Cut(content, "</think>")
	reasoning := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(before), "<think>"))
	if prev := m.String(field); prev != "" {
		reasoning = prev + "\n" + reasoning
	}
	m.Set(field, reasoning)
	m.Set("content", strings.TrimLeft(after, "\n"))
	note(adaptThinkToField)
	return nil
}

// answerRendered checks that an answer's content, reasoning and tool
// calls are in the rendering, the arguments not double-encoded.
func answerRendered(out string, m *Object, field string) error {
	if s := strings.TrimSpace(m.String("content")); s != "" && !strings.Contains(out, s) {
		return fmt.Errorf("the answer's content is altered or missing in the rendering (%.60q…)", s)
	}
	if field != "" {
		if s := strings.TrimSpace(m.String(field)); s != "" && !strings.Contains(out, s) {
			return fmt.Errorf("the answer's reasoning (%s) is missing from the rendering", field)
		}
	}
	calls, _ := m.Get("tool_calls")
	for _, call := range objects(asList(calls)) {
		fn, _ := call.Get("function")
		f, ok := fn.(*Object)
		if !ok {
			f = call
		}
		name := f.String("name")
		if name != "" && !strings.Contains(out, name) {
			return fmt.Errorf("the template drops the answer's tool calls (%s is not in the rendering): export without --keep-tool-calls for it", name)
		}
		args, _ := f.Get("arguments")
		a, ok := args.(*Object)
		if !ok {
			continue
		}
		for _, k := range a.keys {
			if doubleEncoded(out, k) {
				return fmt.Errorf("the template renders the arguments of tool call %s double-encoded (\\\"%s\\\")", name, k)
			}
			if s, ok := a.vals[k].(string); ok && s != "" && !strings.Contains(out, s) && !strings.Contains(out, jsonString(s)) {
				return fmt.Errorf("the template drops argument %s of tool call %s", k, name)
			}
		}
	}
	return nil
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// jsonString is s as a template's tojson writes it inside a JSON string:
// Python's encoder, which leaves < > & as they are (Go's json.Marshal
// writes \u003e, which no rendering holds).
func jsonString(s string) string {
	var e jsonDumper
	e.str(s)
	q := e.b.String()
	return q[1 : len(q)-1]
}

// decodeArguments turns tool-call arguments given as a JSON string into an
// object, as Hugging Face templates expect them; it reports whether it did.
func decodeArguments(m *Object) bool {
	changed := false
	calls, _ := m.Get("tool_calls")
	for _, call := range objects(asList(calls)) {
		fn, _ := call.Get("function")
		f, ok := fn.(*Object)
		if !ok {
			continue
		}
		s, ok := f.vals["arguments"].(string)
		if !ok {
			continue
		}
		if v, err := decodeJSON([]byte(s)); err == nil {
			if o, ok := v.(*Object); ok {
				f.Set("arguments", o)
				changed = true
			}
		}
	}
	return changed
}
