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
	return a, stated(a)
}

// hasCanonical reports whether a selected draft can be trained in the
// protocol's canonical form, of the parse p holds or makes.
func hasCanonical(t *schemas.Turn, p *parsedDraft) bool {
	_, ok := canonicalOf(t, p)
	return ok
}

// canonicalText writes an action in the protocol's canonical form: the form
// the harness shows as "Read as:" after a draft in another format
// (draft.Canonical), with the file body, the FIND and REPLACE blocks and the
// summary written out. ok is false for an action the protocol cannot state
// (stated).
func canonicalText(a draft.Action) (string, bool) {
	if !stated(a) {
		return "", false
	}
	switch a.Verb {
	case draft.VerbWrite:
		return "WRITE " + a.Path + "\n" + fence(a.Path, a.Body), true
	case draft.VerbPatch:
		find, replace, _ := patchBlocks(a)
		return "PATCH " + a.Path + "\nFIND:\n" + fence(a.Path, find) + "\nREPLACE:\n" + fence(a.Path, replace), true
	case draft.VerbDone:
		return strings.TrimSpace("DONE " + a.Text), true
	}
	return draft.Canonical(a), true
}

// stated reports whether the protocol can state an action, which
// canonicalText then writes: not a verb it does not know, a READ of the
// last N lines (only the harness, which knew the file's length, placed
// that window), nor a PATCH written as a unified diff of several hunks, or
// of a hunk that only inserts (FIND needs text to find). Selecting a turn
// asks only this, without writing the text.
func stated(a draft.Action) bool {
	switch a.Verb {
	case draft.VerbRead:
		return a.Last <= 0
	case draft.VerbPatch:
		_, _, ok := patchBlocks(a)
		return ok
	case draft.VerbWrite, draft.VerbRun, draft.VerbSkill, draft.VerbAsk, draft.VerbDone:
		return true
	}
	return false
}

// patchBlocks are a PATCH's FIND and REPLACE lines: its own, or those of
// its one hunk when it was written as a unified diff.
func patchBlocks(a draft.Action) (find, replace string, ok bool) {
	if len(a.Hunks) == 0 {
		return a.Find, a.Replace, a.Find != ""
	}
	if len(a.Hunks) > 1 || strings.TrimSpace(a.Hunks[0].Old) == "" {
		return "", "", false
	}
	h := a.Hunks[0]
	return strings.TrimSuffix(h.Old, "\n"), strings.TrimSuffix(h.New, "\n"), true
}

// canonicalCall is an action as the native tool call the harness offers for
// it (draft.NativeTools), with the documented argument names. Call it
// only on an action canonicalText can write.
func canonicalCall(a draft.Action) schemas.ToolCall {
	args := map[string]any{}
	name := ""
	switch a.Verb {
	case draft.VerbRead:
		name, args["path"] = "read_file", a.Path
		if a.Start > 0 {
			args["start"] = a.Start
		}
		if a.End > 0 {
			args["end"] = a.End
		}
	case draft.VerbWrite:
		name, args["path"], args["content"] = "write_file", a.Path, a.Body
	case draft.VerbPatch:
		find, replace, _ := patchBlocks(a)
		name, args["path"], args["find"], args["replace"] = "patch_file", a.Path, find, replace
	case draft.VerbRun:
		name = "run_tests"
	case draft.VerbSkill:
		name, args["name"] = "skill", a.Skill
		if len(a.Args) > 0 {
			args["args"] = a.Args
		}
	case draft.VerbAsk:
		name, args["question"] = "ask", a.Text
	case draft.VerbDone:
		name, args["summary"] = "done", a.Text
	}
	return schemas.ToolCall{Name: name, Arguments: args}
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

// fence wraps a body in a code fence tagged with the file's language,
// choosing a longer fence when the body holds one. An empty body is an
// empty block (a REPLACE that deletes).
func fence(name, body string) string {
	tag := draft.FenceTag(name)
	marker := "```"
	for strings.Contains(body, marker) {
		marker += "`"
	}
	if body != "" && !strings.HasSuffix(body, "\n") {
		body += "\n"
	}
	return marker + tag + "\n" + body + marker
}

// NativeCall is an action as the native tool call the harness offers for
// it; ok is false for an action the protocol cannot state (canonicalText).
// Tests build native-tool collections from text drafts with it.
func NativeCall(a draft.Action) (schemas.ToolCall, bool) {
	if _, ok := canonicalText(a); !ok {
		return schemas.ToolCall{}, false
	}
	return canonicalCall(a), true
}
