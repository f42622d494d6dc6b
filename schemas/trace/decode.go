package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unsafe"

	"github.com/bytedance/sonic"

	"github.com/pyharness/pyharness/schemas"
)

// fieldError reports a field of a record that could not be decoded; the
// reader turns it into a ParseError's Field and Err.
type fieldError struct {
	Field string
	Err   error
}

func (e *fieldError) Error() string {
	if e.Field == "" {
		return e.Err.Error()
	}
	return fmt.Sprintf("field %q: %v", e.Field, e.Err)
}

func (e *fieldError) Unwrap() error { return e.Err }

// decodeRecord decodes one trace line. Unknown fields are ignored; an
// unknown record type, a field of the wrong type and an unsupported major
// schema version are errors (a *fieldError or *schemas.UnsupportedSchemaError).
//
// A line laid out exactly as Writer writes it is decoded by a reader of
// that layout (decodeTurnLine and its kin, in decode_layout.go); another
// line that starts with its type and holds no field this build does not
// know, by github.com/bytedance/sonic (decodeFast); anything else, and
// every line that fails, by decodeStrict with encoding/json, whose errors
// name the field. So the fast decoders only ever decide successes, and
// FuzzDecodeRecord holds them to the same records and errors.
func decodeRecord(line []byte) (schemas.Record, error) {
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
func decodeFast(line []byte) (rec schemas.Record, ok bool) {
	defer func() {
		// A malformed line must never take the reader down: a panic in
		// the fast decoder sends the line to the strict one.
		if recover() != nil {
			rec, ok = schemas.Record{}, false
		}
	}()
	const prefix = `{"type":"`
	rest, found := bytes.CutPrefix(line, []byte(prefix))
	if !found {
		return schemas.Record{}, false
	}
	// sonic reads a string, and Unmarshal would copy the line into one
	// first; with CopyString nothing it returns points into the line, so
	// the line itself is read in place.
	text := unsafe.String(unsafe.SliceData(line), len(line))
	switch {
	case bytes.HasPrefix(rest, []byte(schemas.TypeTurn+`"`)):
		if t, ok := decodeTurnLine(line); ok {
			return schemas.Record{Turn: t}, true
		}
		t := new(schemas.Turn)
		if fastJSON.UnmarshalFromString(text, t) != nil || t.Type != schemas.TypeTurn {
			return schemas.Record{}, false
		}
		return schemas.Record{Turn: t}, true
	case bytes.HasPrefix(rest, []byte(schemas.TypeRunEnd+`"`)):
		if e, ok := decodeRunEndLine(line); ok {
			return schemas.Record{RunEnd: e}, true
		}
		e := new(schemas.RunEnd)
		if fastJSON.UnmarshalFromString(text, e) != nil || e.Type != schemas.TypeRunEnd {
			return schemas.Record{}, false
		}
		return schemas.Record{RunEnd: e}, true
	case bytes.HasPrefix(rest, []byte(schemas.TypeRunStart+`"`)):
		if s, ok := decodeRunStartLine(line); ok {
			return schemas.Record{RunStart: s}, true
		}
		s := new(schemas.RunStart)
		if fastJSON.UnmarshalFromString(text, s) != nil || s.Type != schemas.TypeRunStart || schemas.CheckSchema(s.Schema) != nil {
			return schemas.Record{}, false
		}
		return schemas.Record{RunStart: s}, true
	}
	return schemas.Record{}, false
}

// decodeStrict decodes a line with encoding/json: a head for the type and
// schema, then the record. Its errors are the ones decodeRecord returns.
func decodeStrict(line []byte) (schemas.Record, error) {
	var head struct {
		Type   *string `json:"type"`
		Schema *string `json:"schema"`
	}
	if err := json.Unmarshal(line, &head); err != nil {
		return schemas.Record{}, asFieldError(err)
	}
	if head.Type == nil {
		return schemas.Record{}, &fieldError{Field: "type", Err: fmt.Errorf("missing")}
	}
	var rec schemas.Record
	var target any
	switch *head.Type {
	case schemas.TypeRunStart:
		if head.Schema == nil {
			return schemas.Record{}, &fieldError{Field: "schema", Err: fmt.Errorf("missing")}
		}
		if err := schemas.CheckSchema(*head.Schema); err != nil {
			return schemas.Record{}, err
		}
		rec.RunStart = new(schemas.RunStart)
		target = rec.RunStart
	case schemas.TypeTurn:
		rec.Turn = new(schemas.Turn)
		target = rec.Turn
	case schemas.TypeRunEnd:
		rec.RunEnd = new(schemas.RunEnd)
		target = rec.RunEnd
	default:
		return schemas.Record{}, &fieldError{Field: "type", Err: fmt.Errorf("unknown record type %q (want run_start, turn or run_end)", *head.Type)}
	}
	if err := json.Unmarshal(line, target); err != nil {
		return schemas.Record{}, asFieldError(err)
	}
	return rec, nil
}

// asFieldError turns an error of encoding/json into a *fieldError naming
// the field at fault, or the byte, for invalid JSON.
func asFieldError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return &fieldError{Field: te.Field, Err: fmt.Errorf("got JSON %s, want %s", te.Value, te.Type)}
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &fieldError{Err: fmt.Errorf("invalid JSON at byte %d: %v", se.Offset, se)}
	}
	return &fieldError{Err: err}
}
