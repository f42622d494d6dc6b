package chattemplate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Object is a JSON object whose keys keep the order they were read in, as
// Python's json.loads keeps them: a template that prints a dict with
// tojson or iterates .items() prints them in that order.
type Object struct {
	keys []string
	vals map[string]any
}

// newObject returns an empty object.
func newObject() *Object { return &Object{vals: map[string]any{}} }

// NewObject is an object of the given keys and values, in that order
// (key, value, key, value, …), for callers that build the conversations
// they render.
func NewObject(kv ...any) *Object {
	o := newObject()
	for i := 0; i+1 < len(kv); i += 2 {
		o.Set(kv[i].(string), kv[i+1])
	}
	return o
}

// Get returns the value of key and whether it is there.
func (o *Object) Get(key string) (any, bool) {
	v, ok := o.vals[key]
	return v, ok
}

// String returns the value of key when it is a string, else "".
func (o *Object) String(key string) string {
	s, _ := o.vals[key].(string)
	return s
}

// Set sets key, appending it when it is new.
func (o *Object) Set(key string, v any) {
	if _, ok := o.vals[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = v
}

// Delete removes key.
func (o *Object) delete(key string) {
	if _, ok := o.vals[key]; !ok {
		return
	}
	delete(o.vals, key)
	for i, k := range o.keys {
		if k == key {
			o.keys = append(o.keys[:i:i], o.keys[i+1:]...)
			break
		}
	}
}

// without removes key for as long as fn runs, then puts it back in its
// place.
func (o *Object) without(key string, fn func()) {
	v, ok := o.vals[key]
	if !ok {
		fn()
		return
	}
	keys := append([]string(nil), o.keys...)
	o.delete(key)
	defer func() { o.keys, o.vals[key] = keys, v }()
	fn()
}

// MarshalJSON writes the object with its keys in order and without
// escaping < > & (code is full of them), as export writes rows.
func (o *Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	if err := writeJSON(&b, o); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func writeJSON(b *bytes.Buffer, v any) error {
	switch v := v.(type) {
	case *Object:
		b.WriteByte('{')
		for i, k := range v.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeJSON(b, k); err != nil {
				return err
			}
			b.WriteByte(':')
			if err := writeJSON(b, v.vals[k]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeJSON(b, x); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	default:
		var enc bytes.Buffer
		e := json.NewEncoder(&enc)
		e.SetEscapeHTML(false)
		if err := e.Encode(v); err != nil {
			return err
		}
		b.Write(bytes.TrimSuffix(enc.Bytes(), []byte("\n")))
	}
	return nil
}

// decodeJSON reads one JSON value the way Python's json.loads does:
// objects as *Object in key order, arrays as []any, numbers as
// json.Number (an integer stays an integer), strings, bools and nil.
func decodeJSON(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	v, err := decodeValue(d)
	if err != nil {
		return nil, err
	}
	if _, err := d.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("decode JSON: more than one value")
	}
	return v, nil
}

func decodeValue(d *json.Decoder) (any, error) {
	tok, err := d.Token()
	if err != nil {
		return nil, fmt.Errorf("decode JSON: %w", err)
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := newObject()
			for d.More() {
				kt, err := d.Token()
				if err != nil {
					return nil, fmt.Errorf("decode JSON: %w", err)
				}
				k, _ := kt.(string)
				v, err := decodeValue(d)
				if err != nil {
					return nil, err
				}
				o.Set(k, v)
			}
			_, err := d.Token()
			return o, err
		case '[':
			a := []any{}
			for d.More() {
				v, err := decodeValue(d)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := d.Token()
			return a, err
		}
		return nil, fmt.Errorf("decode JSON: unexpected %v", t)
	}
	return tok, nil
}

// DecodeRow reads a JSONL row as a trainer reads it: a JSON object whose
// objects keep their key order.
func DecodeRow(line []byte) (*Object, error) {
	v, err := decodeJSON(line)
	if err != nil {
		return nil, err
	}
	o, ok := v.(*Object)
	if !ok {
		return nil, errors.New("not a JSON object")
	}
	return o, nil
}
