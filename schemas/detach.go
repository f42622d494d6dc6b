package schemas

import "strings"

// goccy/go-json decodes a string without escapes as a view of its copy of
// the whole line, so one string kept from a record (a run_start's case id,
// kept for every run of a corpus) kept the whole line alive: dedupe's live
// heap at 100k turns went from 12 to 37 MB. The detach methods give every
// string of a record decoded that way its own memory, as encoding/json
// does. TestDecodedStringsKeepNoLine holds them to every string field.

func clone[S ~string](s *S) {
	if *s != "" {
		*s = S(strings.Clone(string(*s)))
	}
}

func cloneAll(ss []string) {
	for i := range ss {
		clone(&ss[i])
	}
}

func (v *RunStart) detach() {
	for _, s := range []*string{&v.Type, &v.Schema, &v.RunID, &v.Source, &v.CaseID, &v.Task, &v.Subject, &v.Suite, &v.Python,
		&v.Model.Backend, &v.Model.Name, &v.Model.Digest, &v.Model.Host,
		&v.Harness.Version, &v.Harness.Commit, &v.Repo.Path, &v.Repo.Commit, &v.Repo.URL} {
		clone(s)
	}
	if v.Model.Context != nil {
		clone(&v.Model.Context.Source)
	}
	cloneAll(v.Targets)
	cloneAll(v.Names)
	cloneAll(v.Scope)
	cloneAll(v.Tags)
}

func (v *Turn) detach() {
	for _, s := range []*string{&v.Type, &v.RunID, &v.Sent.PromptHash,
		&v.Reply.Content, &v.Reply.Thinking, &v.Reply.FinishReason,
		&v.Action.Verb, &v.Action.Path, &v.Action.Shape, &v.Action.Via, &v.Outcome.Message} {
		clone(s)
	}
	clone(&v.Sent.Kind)
	clone(&v.Sent.Code)
	clone(&v.Outcome.Status)
	clone(&v.Outcome.Code)
	for i := range v.Sent.Messages {
		m := &v.Sent.Messages[i]
		clone(&m.Role)
		clone(&m.Content)
		clone(&m.ToolCallID)
		detachCalls(m.ToolCalls)
	}
	for i := range v.Sent.Elided {
		clone(&v.Sent.Elided[i].What)
		clone(&v.Sent.Elided[i].Ref)
	}
	detachCalls(v.Reply.ToolCalls)
	cloneAll(v.Action.Repairs)
	cloneAll(v.Outcome.FilesChanged)
	for i := range v.Attempts {
		clone(&v.Attempts[i].Error)
	}
	cloneAll(v.Warnings)
	if v.Reasoning != nil {
		clone(&v.Reasoning.Text)
		clone(&v.Reasoning.Source)
	}
}

func (v *RunEnd) detach() {
	for _, s := range []*string{&v.Type, &v.RunID, &v.Patch, &v.Reason, &v.Error,
		&v.Checks.FirstFailure, &v.SuiteBefore.ImportError, &v.SuiteAfter.ImportError} {
		clone(s)
	}
	clone(&v.Verdict)
	clone(&v.FailureClass)
	clone(&v.StopReason)
	for i := range v.Writes {
		clone(&v.Writes[i].Path)
	}
	cloneAll(v.Warnings)
}

func detachCalls(calls []ToolCall) {
	for i := range calls {
		clone(&calls[i].ID)
		clone(&calls[i].Name)
		calls[i].Arguments = detachMap(calls[i].Arguments)
	}
}

// detachAny copies the strings of a value decoded into an any.
func detachAny(v any) any {
	switch v := v.(type) {
	case string:
		return strings.Clone(v)
	case []any:
		for i := range v {
			v[i] = detachAny(v[i])
		}
		return v
	case map[string]any:
		return detachMap(v)
	}
	return v
}

func detachMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[strings.Clone(k)] = detachAny(v)
	}
	return out
}
