package schemas

import (
	"strings"
	"unsafe"
)

// sonic decodes a string without escapes as a view of the line it reads,
// and the trace reader reuses its buffer for the next line, so such a
// string must get memory of its own before DecodeRecord returns. sonic's
// CopyString gives each one an allocation of its own: most of a record's
// allocations (run id, kind, roles, hash, verb, path, …). lineStrings
// copies a turn's into shared chunks of stringChunk bytes instead, about
// one allocation per turn, and a string too long to share one gets its
// own. A kept string keeps at most its chunk alive, never the line. A
// run_start's and a run_end's strings get one allocation each, as
// CopyString gave them: there is one of each per run, and a run_start's
// case id is kept for every run of a corpus (trace.OpenCorpus), where a
// chunk would keep its neighbours too. Strings sonic unescaped are its
// own allocations already and stay where they are.
//
// The walk methods below visit every string a record can hold; a field
// they miss would keep pointing into the reader's buffer, which
// TestDecodedStringsKeepNoLine (every field of every record type filled,
// the line overwritten after decoding) catches.
type lineStrings struct {
	lo, hi uintptr // the line's bytes
	chunk  []byte  // where the next string goes, while it fits
	share  bool    // strings share chunks (a turn's)
}

// stringChunk is the size of a shared chunk: a turn's short strings
// (run id, kind, roles, prompt hash, verb, path, shape, status) are about
// 200 bytes in a generated corpus.
const stringChunk = 256

// detached returns rec, decoded from line, with every string that points
// into line copied to memory of its own.
func detached(line []byte, rec Record) Record {
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(line)))
	d := lineStrings{lo: lo, hi: lo + uintptr(len(line)), share: rec.Turn != nil}
	// A walk passed as a function value would put d on the heap: an
	// allocation per record more.
	switch {
	case rec.RunStart != nil:
		rec.RunStart.walk(&d)
	case rec.Turn != nil:
		rec.Turn.walk(&d)
	case rec.RunEnd != nil:
		rec.RunEnd.walk(&d)
	}
	return rec
}

// str copies one string when it points into the line.
func (d *lineStrings) str(s *string) {
	n := len(*s)
	if n == 0 {
		return
	}
	p := uintptr(unsafe.Pointer(unsafe.StringData(*s)))
	if p < d.lo || p >= d.hi {
		return
	}
	if n > cap(d.chunk)-len(d.chunk) {
		if !d.share || n > stringChunk/2 {
			*s = strings.Clone(*s)
			return
		}
		d.chunk = make([]byte, 0, stringChunk)
	}
	at := len(d.chunk)
	d.chunk = append(d.chunk, *s...) // within cap: the chunk never moves
	*s = unsafe.String(&d.chunk[at], n)
}

func (d *lineStrings) strs(ss []string) {
	for i := range ss {
		d.str(&ss[i])
	}
}

// anyValue returns v with its strings copied: a string in an
// interface cannot be changed in place.
func (d *lineStrings) anyValue(v any) any {
	switch v := v.(type) {
	case string:
		s := v
		d.str(&s)
		if unsafe.StringData(s) != unsafe.StringData(v) {
			return s
		}
	case []any:
		for i := range v {
			v[i] = d.anyValue(v[i])
		}
	case map[string]any:
		d.object(v)
	}
	return v
}

// object copies the keys and values of m, in place.
func (d *lineStrings) object(m map[string]any) {
	var moved []string // keys whose memory changed, old and new in turn
	for k, v := range m {
		m[k] = d.anyValue(v)
		nk := k
		d.str(&nk)
		if unsafe.StringData(nk) != unsafe.StringData(k) {
			moved = append(moved, k, nk)
		}
	}
	for i := 0; i < len(moved); i += 2 {
		v := m[moved[i]]
		delete(m, moved[i])
		m[moved[i+1]] = v
	}
}

func (d *lineStrings) calls(calls []ToolCall) {
	for i := range calls {
		c := &calls[i]
		d.str(&c.ID)
		d.str(&c.Name)
		if c.Arguments != nil {
			d.object(c.Arguments)
		}
	}
}

func (v *RunStart) walk(d *lineStrings) {
	for _, s := range [...]*string{&v.Type, &v.Schema, &v.RunID, &v.Source, &v.CaseID, &v.Task, &v.Subject, &v.Suite, &v.Python,
		&v.Model.Backend, &v.Model.Name, &v.Model.Digest, &v.Model.Host,
		&v.Harness.Version, &v.Harness.Commit, &v.Repo.Path, &v.Repo.Commit, &v.Repo.URL} {
		d.str(s)
	}
	if v.Model.Context != nil {
		d.str(&v.Model.Context.Source)
	}
	d.strs(v.Targets)
	d.strs(v.Names)
	d.strs(v.Scope)
	d.strs(v.Tags)
}

func (v *Turn) walk(d *lineStrings) {
	for _, s := range [...]*string{&v.Type, &v.RunID, (*string)(&v.Sent.Kind), (*string)(&v.Sent.Code), &v.Sent.PromptHash,
		&v.Reply.Content, &v.Reply.Thinking, &v.Reply.FinishReason,
		&v.Action.Verb, &v.Action.Path, &v.Action.Shape, &v.Action.Via,
		(*string)(&v.Outcome.Status), (*string)(&v.Outcome.Code), &v.Outcome.Message} {
		d.str(s)
	}
	for i := range v.Sent.Messages {
		m := &v.Sent.Messages[i]
		d.str(&m.Role)
		d.str(&m.Content)
		d.str(&m.ToolCallID)
		d.calls(m.ToolCalls)
	}
	for i := range v.Sent.Elided {
		d.str(&v.Sent.Elided[i].What)
		d.str(&v.Sent.Elided[i].Ref)
	}
	d.calls(v.Reply.ToolCalls)
	d.strs(v.Action.Repairs)
	d.strs(v.Outcome.FilesChanged)
	for i := range v.Attempts {
		d.str(&v.Attempts[i].Error)
	}
	d.strs(v.Warnings)
	if v.Reasoning != nil {
		d.str(&v.Reasoning.Text)
		d.str(&v.Reasoning.Source)
	}
}

func (v *RunEnd) walk(d *lineStrings) {
	for _, s := range [...]*string{&v.Type, &v.RunID, (*string)(&v.Verdict), (*string)(&v.FailureClass), (*string)(&v.StopReason),
		&v.Patch, &v.Reason, &v.Error, &v.Checks.FirstFailure, &v.SuiteBefore.ImportError, &v.SuiteAfter.ImportError} {
		d.str(s)
	}
	for i := range v.Writes {
		d.str(&v.Writes[i].Path)
	}
	d.strs(v.Warnings)
}
