package export

import (
	"encoding/binary"
	"maps"
	"strings"

	"github.com/cespare/xxhash/v2"

	"github.com/pyharness/pyharness/harness/draft"
	"github.com/pyharness/pyharness/schemas"
)

// readDraft is a reply read for training: the answer the parser read and
// the reasoning, the turn's own record of it when the trace has one (minor
// 2 on), else what the reply holds (older traces). Reasoning never goes
// into the answer: a chat template would strip it from there, or train it
// as the answer.
func readDraft(t *schemas.Turn) (string, *schemas.Reasoning) {
	answer, r := draft.ReadReasoning(t.Reply)
	if t.Reasoning != nil {
		r = t.Reasoning
	}
	return answer, r
}

// parsedDraft is a turn's draft parsed once: selecting a turn
// (hasCanonical) and keying it (trainedReply) both need the parse
// (draft.Parse, regular expressions), too costly to make twice.
type parsedDraft struct {
	done bool
	a    draft.Action
	err  error
}

// of parses t's answer the first time it is asked, and gives that parse
// after.
func (p *parsedDraft) of(t *schemas.Turn) (draft.Action, error) {
	if !p.done {
		answer, _ := readDraft(t)
		p.a, p.err = draft.Parse(answer, t.Reply.ToolCalls)
		p.done = true
	}
	return p.a, p.err
}

// canonicalAction is the action of a selected draft, read again from its
// answer, with the path the harness settled on (a draft that named several
// words, one of them the file). ok is false when the draft does not parse
// to the action the harness took, or the action has no canonical form.
func canonicalAction(t *schemas.Turn) (draft.Action, bool) {
	var p parsedDraft
	return canonicalOf(t, &p)
}

// canonicalOf is canonicalAction of the parse p holds or makes.
func canonicalOf(t *schemas.Turn, p *parsedDraft) (draft.Action, bool) {
	a, err := p.of(t)
	if err != nil || a.Verb != t.Action.Verb {
		return a, false
	}
	if t.Action.Path != "" {
		a.Path = t.Action.Path
	}
	_, ok := draft.CanonicalText(a)
	return a, ok
}

// hasCanonical reports whether a selected draft can be trained in the
// protocol's canonical form: as the turn recorded its reading
// (recordedReading), else of the parse p holds or makes.
func hasCanonical(t *schemas.Turn, p *parsedDraft) bool {
	if text, stated, ok := recordedReading(t); ok {
		return stated && readingOf(text, t.Action.Verb, "")
	}
	_, ok := canonicalOf(t, p)
	return ok
}

// recordedReading is the canonical text of the draft as read, as the turn
// recorded it when this build's reader read it (draft.RecordReading): the
// text, and whether the protocol can state the action at all. ok is false
// for a turn another reader read, or none.
func recordedReading(t *schemas.Turn) (text string, stated, ok bool) {
	r := &t.Action
	if r.Reader != draft.ReaderVersion {
		return "", false, false
	}
	if !r.Stated {
		return "", false, true
	}
	if r.Canonical != "" {
		return r.Canonical, true, true
	}
	return t.Reply.Content, true, true
}

// readingOf reports whether a canonical text states verb (on path, when
// path is not empty): whether the reading is of the action the harness
// took, on the file it settled on. The canonical form starts with the verb,
// then for a file's verbs a space, the path and a colon, a line's end or
// nothing.
func readingOf(text, verb, path string) bool {
	rest, ok := strings.CutPrefix(text, verb)
	if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\n') {
		return false
	}
	if path == "" {
		return true
	}
	rest, ok = strings.CutPrefix(rest, " "+path)
	return ok && (rest == "" || rest[0] == ':' || rest[0] == '\n')
}

// Tool is a tool as chat templates take it in their tools argument
// (transformers' JSON Schema form): TRL, mlx-lm and Axolotl pass a row's
// tools column to the template.
type tool struct {
	Type     string       `json:"type"`
	Function ToolFunction `json:"function"`
}

// ToolFunction names a tool, says what it does, and gives the JSON Schema
// of its arguments.
type ToolFunction struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Parameters  map[string]any `json:"parameters"`
}

// harnessTools are the tools the harness offers the model with
// --native-tools, the tools column of a --keep-tool-calls export. A tool
// without required arguments says so with an empty list: templates test
// "name in parameters.required", which a null would break.
func harnessTools() []tool {
	var out []tool
	for _, t := range draft.NativeTools() {
		params := maps.Clone(t.Parameters)
		if req, ok := params["required"].([]string); ok && req == nil {
			params["required"] = []string{}
		}
		out = append(out, tool{Type: "function", Function: ToolFunction{Name: t.Name, Description: t.Description, Parameters: params}})
	}
	return out
}

// callIDLen is the length of a tool call id: Mistral's templates raise
// unless an id is exactly nine letters and digits, the strictest rule
// among the templates that check ids at all.
const callIDLen = 9

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// callID is the id of call k of message i of a row of run runID: nine
// letters and digits drawn from a hash of the three, so that the same
// export always writes the same ids and no two calls of a row share one.
func callID(runID string, msg, call int) string {
	d := xxhash.New()
	d.WriteString(runID)
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], uint64(msg))
	binary.LittleEndian.PutUint64(b[8:], uint64(call))
	d.Write(b[:])
	h := d.Sum64()
	out := make([]byte, callIDLen)
	for i := range out {
		out[i] = base62[h%62]
		h /= 62
	}
	return string(out)
}

// asWritten is a draft's answer as the model wrote it, its native calls
// after it as name and JSON arguments: the provenance of a row whose
// trained draft was written in canonical form.
func asWritten(answer string, calls []schemas.ToolCall) string {
	parts := []string{}
	if s := strings.TrimSpace(answer); s != "" {
		parts = append(parts, strings.TrimRight(answer, "\n"))
	}
	for _, c := range calls {
		parts = append(parts, rawCall(c))
	}
	return strings.Join(parts, "\n")
}
