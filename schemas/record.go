package schemas

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
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

// CheckSchema accepts the schema of a run_start record when this build can
// read it: every minor version of the major it writes. Otherwise it returns
// an *UnsupportedSchemaError.
func CheckSchema(s string) error {
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
