package schemas

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unsafe"

	"github.com/bytedance/sonic"
)

// Record is one line of a trace: exactly one of its fields is set.
type Record struct {
	RunStart *RunStart
	Turn     *Turn
	RunEnd   *RunEnd
}

// Type returns the record's type, or "" for an empty record.
func (r Record) Type() string {
	switch {
	case r.RunStart != nil:
		return TypeRunStart
	case r.Turn != nil:
		return TypeTurn
	case r.RunEnd != nil:
		return TypeRunEnd
	}
	return ""
}

// RunID returns the run id the record belongs to.
func (r Record) RunID() string {
	switch {
	case r.RunStart != nil:
		return r.RunStart.RunID
	case r.Turn != nil:
		return r.Turn.RunID
	case r.RunEnd != nil:
		return r.RunEnd.RunID
	}
	return ""
}

// MarshalJSON writes the set record with its "type" field filled in.
func (r Record) MarshalJSON() ([]byte, error) {
	switch {
	case r.RunStart != nil:
		v := *r.RunStart
		v.Type = TypeRunStart
		v.normalize()
		if v.Schema == "" {
			v.Schema = Schema
		}
		return json.Marshal(v)
	case r.Turn != nil:
		v := *r.Turn
		v.Type = TypeTurn
		v.normalize()
		return json.Marshal(v)
	case r.RunEnd != nil:
		v := *r.RunEnd
		v.Type = TypeRunEnd
		v.normalize()
		return json.Marshal(v)
	}
	return nil, fmt.Errorf("marshal record: no record set")
}

// UnsupportedSchemaError reports a trace written with a major version this
// build cannot read.
type UnsupportedSchemaError struct {
	Got string
}

func (e *UnsupportedSchemaError) Error() string {
	return fmt.Sprintf("unsupported schema %q: this build reads %s (every minor version)", e.Got, Schema)
}

// FieldError reports a field of a record that could not be decoded.
type FieldError struct {
	Field string
	Err   error
}

func (e *FieldError) Error() string {
	if e.Field == "" {
		return e.Err.Error()
	}
	return fmt.Sprintf("field %q: %v", e.Field, e.Err)
}

func (e *FieldError) Unwrap() error { return e.Err }

// DecodeRecord decodes one trace line. Unknown fields are ignored; an
// unknown record type, a field of the wrong type and an unsupported major
// schema version are errors (a *FieldError or *UnsupportedSchemaError).
//
// A line laid out exactly as trace.Writer writes it is decoded by a reader
// of that layout (decodeTurnLine and its kin, in writerlines.go); another
// line that starts with its type and holds no field this build does not
// know, by github.com/bytedance/sonic (decodeFast); anything else, and
// every line that fails, by decodeStrict with encoding/json, whose errors
// name the field. So the fast decoders only ever decide successes, and
// FuzzDecodeRecord holds them to the same records and errors.
// docs/performance.md has the figures.
func DecodeRecord(line []byte) (Record, error) {
	if rec, ok := decodeFast(line); ok {
		return rec, nil
	}
	return decodeStrict(line)
}

// fastJSON is sonic as decodeFast needs it:
//
//   - CopyString: every string gets its own memory, as encoding/json
//     gives it, so a kept string keeps no line alive and the reader may
//     reuse its buffer (sonic would otherwise point into the line);
//   - ValidateString: a control character in a string is an error, as in
//     encoding/json (sonic would otherwise take it);
//   - DisallowUnknownFields: sonic skips an unknown field's value without
//     checking all of it (a bad escape in it passes), and matches keys
//     without Unicode case folding ("ſteps" is steps to encoding/json, an
//     unknown field to sonic). Turning every unknown key away makes both
//     the strict decoder's to decide, so that what sonic decides is only
//     the fields it decodes, all of which it checks.
//
// On a platform sonic has no native decoder for, it decodes with
// encoding/json, and the fast path is that decoder once more.
var fastJSON = sonic.Config{CopyString: true, ValidateString: true, DisallowUnknownFields: true}.Froze()

// decodeFast decodes a line that starts {"type":"<known type>" into that
// record type in one pass. It reports false whenever decodeStrict might
// decide otherwise: another first field, a field sonic does not know, a
// decoding error, a type field repeated with another value, and a
// run_start of a schema this build does not read.
func decodeFast(line []byte) (rec Record, ok bool) {
	defer func() {
		// A malformed line must never take the reader down: a panic in
		// the fast decoder sends the line to the strict one.
		if recover() != nil {
			rec, ok = Record{}, false
		}
	}()
	const prefix = `{"type":"`
	rest, found := bytes.CutPrefix(line, []byte(prefix))
	if !found {
		return Record{}, false
	}
	// sonic reads a string, and Unmarshal would copy the line into one
	// first; with CopyString nothing it returns points into the line, so
	// the line itself is read in place.
	text := unsafe.String(unsafe.SliceData(line), len(line))
	switch {
	case bytes.HasPrefix(rest, []byte(TypeTurn+`"`)):
		if t, ok := decodeTurnLine(line); ok {
			return Record{Turn: t}, true
		}
		t := new(Turn)
		if fastJSON.UnmarshalFromString(text, t) != nil || t.Type != TypeTurn {
			return Record{}, false
		}
		return Record{Turn: t}, true
	case bytes.HasPrefix(rest, []byte(TypeRunEnd+`"`)):
		if e, ok := decodeRunEndLine(line); ok {
			return Record{RunEnd: e}, true
		}
		e := new(RunEnd)
		if fastJSON.UnmarshalFromString(text, e) != nil || e.Type != TypeRunEnd {
			return Record{}, false
		}
		return Record{RunEnd: e}, true
	case bytes.HasPrefix(rest, []byte(TypeRunStart+`"`)):
		if s, ok := decodeRunStartLine(line); ok {
			return Record{RunStart: s}, true
		}
		s := new(RunStart)
		if fastJSON.UnmarshalFromString(text, s) != nil || s.Type != TypeRunStart || checkSchema(s.Schema) != nil {
			return Record{}, false
		}
		return Record{RunStart: s}, true
	}
	return Record{}, false
}

// decodeStrict decodes a line with encoding/json: a head for the type and
// schema, then the record. Its errors are the ones DecodeRecord returns.
func decodeStrict(line []byte) (Record, error) {
	var head struct {
		Type   *string `json:"type"`
		Schema *string `json:"schema"`
	}
	if err := json.Unmarshal(line, &head); err != nil {
		return Record{}, fieldErr(err)
	}
	if head.Type == nil {
		return Record{}, &FieldError{Field: "type", Err: fmt.Errorf("missing")}
	}
	var rec Record
	var target any
	switch *head.Type {
	case TypeRunStart:
		if head.Schema == nil {
			return Record{}, &FieldError{Field: "schema", Err: fmt.Errorf("missing")}
		}
		if err := checkSchema(*head.Schema); err != nil {
			return Record{}, err
		}
		rec.RunStart = new(RunStart)
		target = rec.RunStart
	case TypeTurn:
		rec.Turn = new(Turn)
		target = rec.Turn
	case TypeRunEnd:
		rec.RunEnd = new(RunEnd)
		target = rec.RunEnd
	default:
		return Record{}, &FieldError{Field: "type", Err: fmt.Errorf("unknown record type %q (want run_start, turn or run_end)", *head.Type)}
	}
	if err := json.Unmarshal(line, target); err != nil {
		return Record{}, fieldErr(err)
	}
	return rec, nil
}

// checkSchema accepts every minor version of the major this build reads.
func checkSchema(s string) error {
	name, ver, ok := strings.Cut(s, "/v")
	if !ok || name != "pyharness.trace" {
		return &UnsupportedSchemaError{Got: s}
	}
	major, err := strconv.Atoi(ver)
	if err != nil || major != schemaMajor {
		return &UnsupportedSchemaError{Got: s}
	}
	return nil
}

func fieldErr(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return &FieldError{Field: te.Field, Err: fmt.Errorf("got JSON %s, want %s", te.Value, te.Type)}
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &FieldError{Err: fmt.Errorf("invalid JSON at byte %d: %v", se.Offset, se)}
	}
	return &FieldError{Err: err}
}

// EncodeRecord returns the record as one line of JSON, newline included.
func EncodeRecord(r Record) ([]byte, error) {
	b, err := r.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.Grow(len(b) + 1)
	buf.Write(b)
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

// nonNil returns s, or an empty slice for nil, so that arrays in the
// contract are written as [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func (v *RunStart) normalize() {
	v.Targets, v.Names, v.Scope = nonNil(v.Targets), nonNil(v.Names), nonNil(v.Scope)
}

func (v *Turn) normalize() {
	v.Sent.Messages = nonNil(v.Sent.Messages)
	v.Sent.Elided = nonNil(v.Sent.Elided)
	v.Reply.ToolCalls = nonNil(v.Reply.ToolCalls)
	v.Action.Repairs = nonNil(v.Action.Repairs)
	v.Outcome.FilesChanged = nonNil(v.Outcome.FilesChanged)
	if v.Action.Shape == "" {
		v.Action.Shape = "none"
	}
	for i := range v.Reply.ToolCalls {
		if v.Reply.ToolCalls[i].Arguments == nil {
			v.Reply.ToolCalls[i].Arguments = map[string]any{}
		}
	}
}

func (v *RunEnd) normalize() {
	v.Writes = nonNil(v.Writes)
}
