package chattemplate

import (
	"fmt"
	"regexp"
	"strings"
)

// SystemHandling says what a template does with a system message.
type SystemHandling string

const (
	// systemKept: the system prompt is rendered.
	systemKept SystemHandling = "kept"
	// systemRefused: the template raises (Gemma: "System role not supported").
	systemRefused SystemHandling = "refused"
	// systemDropped: the template renders without it (Phi-3-mini).
	systemDropped SystemHandling = "dropped"
	// systemLastUserOnly: the template renders it only inside the last
	// user turn when that turn ends the conversation (Mistral-Nemo), so
	// never in a conversation that ends with the trained answer.
	systemLastUserOnly SystemHandling = "kept only when a user turn is last"
)

// ToolHandling says what a template does with an assistant's tool calls
// whose arguments are a JSON object, as Hugging Face documents them.
type ToolHandling string

// What a template does with a tool call: renders it, ignores it (Phi-3.5,
// phi-4, granite 3.3, SmolLM3), prints its arguments as a JSON string
// inside JSON (a template that runs tojson over arguments it expects as a
// string), or raises (templates without tool support).
const (
	toolsRendered      ToolHandling = "rendered"
	toolsDropped       ToolHandling = "dropped"
	toolsDoubleEncoded ToolHandling = "double-encoded"
	toolsRaise         ToolHandling = "raise"
)

// Traits are what rendering probes found a template does.
type Traits struct {
	System SystemHandling
	// SystemError is the template's message when it refuses the system role.
	SystemError string
	// GenerationTags: the template marks answers with {% generation %},
	// which TRL's assistant_only_loss needs.
	GenerationTags bool
	// GenerationTail is what the generation prompt adds that a rendered
	// answer does not start with ("<think>\n" for QwQ and the R1
	// distills): with it the prompt is not a prefix of the conversation.
	GenerationTail string
	// StripsThink: the template removes <think>…</think> from an
	// assistant's content.
	StripsThink bool
	// ReasoningField is the message field whose reasoning the template
	// renders ("reasoning_content" or "thinking"), "" when it renders none.
	ReasoningField string
	Tools          ToolHandling
	// ToolsError is the template's message when a tool call makes it raise.
	ToolsError string
}

// Probe markers: words no template writes on its own.
const (
	probeSystem    = "PROBE-SYSTEM-7c1"
	probeUser      = "PROBE-USER-2b9"
	probeAnswer    = "PROBE-ANSWER-5d3"
	probeReasoning = "PROBE-REASONING-9e4"
	probeToolName  = "probe_tool_4a8"
	probeArgKey    = "probe_path"
	probeArgValue  = "PROBE-ARG-6f2"
	probeToolID    = "pr0beC4ll"
	probeResult    = "PROBE-RESULT-1a7"
)

func msg(kv ...any) *Object {
	o := newObject()
	for i := 0; i+1 < len(kv); i += 2 {
		o.Set(kv[i].(string), kv[i+1])
	}
	return o
}

// probeTools is the tools column of the tool probe, a JSON Schema function.
func probeTools() []any {
	params := msg("type", "object", "properties", msg(probeArgKey, msg("type", "string", "description", "a path")), "required", []any{probeArgKey})
	return []any{msg("type", "function", "function", msg("name", probeToolName, "description", "probe", "parameters", params))}
}

// Probe renders small conversations to learn what the template does with
// a system prompt, the generation prompt, reasoning and tool calls.
func (t *Template) probe() Traits {
	var tr Traits
	user := func() *Object { return msg("role", "user", "content", probeUser) }
	answer := func() *Object { return msg("role", "assistant", "content", probeAnswer) }

	out, err := t.Render(Conversation{Messages: []any{msg("role", "system", "content", probeSystem), user(), answer()}})
	switch {
	case err != nil:
		tr.System, tr.SystemError = systemRefused, err.Error()
	case !strings.Contains(out, probeSystem):
		tr.System = systemDropped
		open, err := t.Render(Conversation{Messages: []any{msg("role", "system", "content", probeSystem), user()}, AddGenerationPrompt: true})
		if err == nil && strings.Contains(open, probeSystem) {
			tr.System = systemLastUserOnly
		}
	default:
		tr.System = systemKept
	}

	tr.GenerationTags = generationTag.MatchString(t.Source)

	prompt, perr := t.Render(Conversation{Messages: []any{user()}, AddGenerationPrompt: true})
	full, ferr := t.Render(Conversation{Messages: []any{user(), answer()}})
	if perr == nil && ferr == nil && !strings.HasPrefix(full, prompt) {
		n := commonPrefix(prompt, full)
		tr.GenerationTail = prompt[n:]
	}

	think := "<think>\n" + probeReasoning + "\n</think>\n\n" + probeAnswer
	if out, err := t.Render(Conversation{Messages: []any{user(), msg("role", "assistant", "content", think)}}); err == nil && !strings.Contains(out, probeReasoning) {
		tr.StripsThink = true
	}
	for _, field := range []string{"reasoning_content", "thinking"} {
		m := msg("role", "assistant", "content", probeAnswer, field, probeReasoning)
		if out, err := t.Render(Conversation{Messages: []any{user(), m}}); err == nil && strings.Contains(out, probeReasoning) {
			tr.ReasoningField = field
			break
		}
	}

	call := msg("id", probeToolID, "type", "function", "function", msg("name", probeToolName, "arguments", msg(probeArgKey, probeArgValue)))
	conv := Conversation{Tools: probeTools(), Messages: []any{user(),
		msg("role", "assistant", "content", "", "tool_calls", []any{call}),
		msg("role", "tool", "tool_call_id", probeToolID, "name", probeToolName, "content", probeResult),
		answer()}}
	out, err = t.Render(conv)
	switch {
	case err != nil:
		tr.Tools, tr.ToolsError = toolsRaise, err.Error()
	case !strings.Contains(out, probeArgValue):
		tr.Tools = toolsDropped
	case doubleEncoded(out, probeArgKey):
		tr.Tools = toolsDoubleEncoded
	default:
		tr.Tools = toolsRendered
	}
	return tr
}

var generationTag = regexp.MustCompile(`\{%-?\s*generation\s*-?%\}`)

// doubleEncoded reports whether an argument key is printed as a JSON
// string inside a JSON string (\"key\"), as a template that runs tojson
// over arguments that are already a string prints it.
func doubleEncoded(out, key string) bool {
	return strings.Contains(out, `\"`+key+`\"`)
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// String sums up the traits for a report.
func (tr Traits) String() string {
	s := fmt.Sprintf("system %s; tool calls %s", tr.System, tr.Tools)
	if tr.GenerationTail != "" {
		s += fmt.Sprintf("; generation prompt adds %q", tr.GenerationTail)
	}
	if tr.GenerationTags {
		s += "; marks answers with {% generation %}"
	}
	if tr.StripsThink {
		s += "; strips <think> from content"
	}
	if tr.ReasoningField != "" {
		s += "; renders reasoning from " + tr.ReasoningField
	} else {
		s += "; renders no reasoning field"
	}
	return s
}
