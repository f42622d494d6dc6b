package draft

import (
	"strings"

	"github.com/pyharness/pyharness/schemas"
)

// ReaderVersion names what this reader reads from a reply. A turn records
// it beside its reading (RecordReading), and the stages after collect take
// a recorded reading only from a turn this version read: a turn another
// version read is read again. Raise it with any change that reads some
// reply differently; TestReaderVersionPinsItsReadings fails until then
// when the change reaches a draft of testdata/, and a change it does not
// reach (a probe's reply) raises it all the same.
const ReaderVersion = 2

// RecordReading adds to an action's record what the stages after collect
// need of the reading, so that they do not read the reply again: the
// reader's version, whether the protocol can state the action read
// (Stated), and that statement when it is not the reply's content as
// written (Canonical). a and err are the reading of the reply whose content
// is given, as read: with the path it wrote, not the one the harness may
// have settled on after.
func RecordReading(rec *schemas.Action, a Action, err error, content string) {
	rec.Reader, rec.Stated, rec.Canonical = ReaderVersion, false, ""
	if err != nil {
		return
	}
	text, ok := CanonicalText(a)
	rec.Stated = ok
	if ok && text != content {
		rec.Canonical = text
	}
}

// CanonicalText writes an action in the protocol's canonical form: the form
// the harness shows as "Read as:" after a draft in another format
// (Canonical), with the file body, the FIND and REPLACE blocks and the
// summary written out; the form a fine-tuning export trains. ok is false
// for an action the protocol cannot state (stated).
func CanonicalText(a Action) (string, bool) {
	if !stated(a) {
		return "", false
	}
	switch a.Verb {
	case VerbWrite:
		return "WRITE " + a.Path + "\n" + fenced(a.Path, a.Body), true
	case VerbPatch:
		find, replace, _ := patchBlocks(a)
		return "PATCH " + a.Path + "\nFIND:\n" + fenced(a.Path, find) + "\nREPLACE:\n" + fenced(a.Path, replace), true
	case VerbDone:
		return strings.TrimSpace("DONE " + a.Text), true
	}
	return Canonical(a), true
}

// NativeCall is an action as the native tool call the harness offers for
// it (NativeTools), with the documented argument names; ok is false for an
// action the protocol cannot state (CanonicalText).
func NativeCall(a Action) (schemas.ToolCall, bool) {
	if !stated(a) {
		return schemas.ToolCall{}, false
	}
	args := map[string]any{}
	name := ""
	switch a.Verb {
	case VerbRead:
		name, args["path"] = "read_file", a.Path
		if a.Start > 0 {
			args["start"] = a.Start
		}
		if a.End > 0 {
			args["end"] = a.End
		}
	case VerbWrite:
		name, args["path"], args["content"] = "write_file", a.Path, a.Body
	case VerbPatch:
		find, replace, _ := patchBlocks(a)
		name, args["path"], args["find"], args["replace"] = "patch_file", a.Path, find, replace
	case VerbRun:
		name = "run_tests"
	case VerbSkill:
		name, args["name"] = "skill", a.Skill
		if len(a.Args) > 0 {
			args["args"] = a.Args
		}
	case VerbAsk:
		name, args["question"] = "ask", a.Text
	case VerbDone:
		name, args["summary"] = "done", a.Text
	}
	return schemas.ToolCall{Name: name, Arguments: args}, true
}

// stated reports whether the protocol can state an action: not a verb it
// does not know, a READ of the last N lines (only the harness, which knew
// the file's length, placed that window), nor a PATCH written as a unified
// diff of several hunks, or of a hunk that only inserts (FIND needs text
// to find).
func stated(a Action) bool {
	switch a.Verb {
	case VerbRead:
		return a.Last <= 0
	case VerbPatch:
		_, _, ok := patchBlocks(a)
		return ok
	case VerbWrite, VerbRun, VerbSkill, VerbAsk, VerbDone:
		return true
	}
	return false
}

// patchBlocks are a PATCH's FIND and REPLACE lines: its own, or those of
// its one hunk when it was written as a unified diff.
func patchBlocks(a Action) (find, replace string, ok bool) {
	if len(a.Hunks) == 0 {
		return a.Find, a.Replace, a.Find != ""
	}
	if len(a.Hunks) > 1 || strings.TrimSpace(a.Hunks[0].Old) == "" {
		return "", "", false
	}
	h := a.Hunks[0]
	return strings.TrimSuffix(h.Old, "\n"), strings.TrimSuffix(h.New, "\n"), true
}

// fenced wraps a body in a code fence tagged with the file's language,
// choosing a longer fence when the body holds one. An empty body is an
// empty block (a REPLACE that deletes).
func fenced(name, body string) string {
	marker := "```"
	for strings.Contains(body, marker) {
		marker += "`"
	}
	if body != "" && !strings.HasSuffix(body, "\n") {
		body += "\n"
	}
	return marker + FenceTag(name) + "\n" + body + marker
}
