package gguf

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

// Magic opens every GGUF file.
const Magic = "GGUF"

// defaultAlignment is the alignment of the tensor data when
// general.alignment does not say.
const defaultAlignment = 32

// alignmentKey is the key that sets the data's alignment.
const alignmentKey = "general.alignment"

// ValueType is the type tag of a metadata value.
type ValueType uint32

// The value types of GGUF versions 2 and 3 that callers name: the ones a
// chat template, a tokenizer setting or a training setting is stored as.
const (
	TypeUint32  ValueType = 4
	TypeInt32   ValueType = 5
	TypeFloat32 ValueType = 6
	TypeBool    ValueType = 7
	TypeString  ValueType = 8
	TypeArray   ValueType = 9
)

// The other value types, which the reader and writer handle alike.
const (
	typeUint8   ValueType = 0
	typeInt8    ValueType = 1
	typeUint16  ValueType = 2
	typeInt16   ValueType = 3
	typeUint64  ValueType = 10
	typeInt64   ValueType = 11
	typeFloat64 ValueType = 12
)

var typeNames = [...]string{"uint8", "int8", "uint16", "int16", "uint32", "int32", "float32", "bool", "string", "array", "uint64", "int64", "float64"}

func (t ValueType) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return fmt.Sprintf("type(%d)", uint32(t))
}

// Array is an array value: its element type and its elements, each of the
// Go type Value documents for that type.
type Array struct {
	Elem   ValueType
	Values []any
}

// KV is one metadata entry. Value's Go type follows Type: uint8, int8,
// uint16, int16, uint32, int32, float32, bool, string, Array, uint64,
// int64, float64.
type KV struct {
	Key   string
	Type  ValueType
	Value any
}

// TensorInfo describes one tensor; Offset is relative to the start of the
// data section.
type TensorInfo struct {
	Name   string
	Dims   []uint64
	Type   TensorType
	Offset uint64
}

// Header is everything of a GGUF file before its tensor data.
type Header struct {
	Version uint32
	KV      []KV
	Tensors []TensorInfo
	// Size is the header's length in bytes as read, before the padding
	// that aligns the data; DataOffset is where the data starts.
	Size       int64
	DataOffset int64
}

// Get returns the entry of a key.
func (h *Header) Get(key string) (KV, bool) {
	for _, kv := range h.KV {
		if kv.Key == key {
			return kv, true
		}
	}
	return KV{}, false
}

// String returns a string entry's value.
func (h *Header) String(key string) (string, bool) {
	kv, ok := h.Get(key)
	if !ok {
		return "", false
	}
	s, ok := kv.Value.(string)
	return s, ok
}

// Alignment is the alignment of the tensor data.
func (h *Header) alignment() uint64 {
	kv, ok := h.Get(alignmentKey)
	if !ok {
		return defaultAlignment
	}
	switch v := kv.Value.(type) {
	case uint32:
		return uint64(v)
	case uint64:
		return v
	}
	return defaultAlignment
}

// TensorTypes counts the tensors of each type.
func (h *Header) TensorTypes() map[TensorType]int {
	n := map[TensorType]int{}
	for _, t := range h.Tensors {
		n[t.Type]++
	}
	return n
}

// FormatError is a file that is not a GGUF this package reads, with the
// byte offset where reading stopped.
type FormatError struct {
	Offset int64
	What   string
	Err    error
}

func (e *FormatError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("gguf: at byte %d: %s: %v", e.Offset, e.What, e.Err)
	}
	return fmt.Sprintf("gguf: at byte %d: %s", e.Offset, e.What)
}

func (e *FormatError) Unwrap() error { return e.Err }

// maxLen bounds a string or array length read from a file, so that a
// corrupt length fails with a message rather than an allocation of
// exabytes; a real vocabulary has a few hundred thousand entries.
const maxLen = 1 << 30

type reader struct {
	r   *bufio.Reader
	off int64
}

func (r *reader) fail(what string, err error) error {
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return &FormatError{Offset: r.off, What: what, Err: err}
}

func (r *reader) bytes(n int, what string) ([]byte, error) {
	b := make([]byte, n)
	if _, err := io.ReadFull(r.r, b); err != nil {
		return nil, r.fail(what, err)
	}
	r.off += int64(n)
	return b, nil
}

func (r *reader) u32(what string) (uint32, error) {
	b, err := r.bytes(4, what)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b), nil
}

func (r *reader) u64(what string) (uint64, error) {
	b, err := r.bytes(8, what)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

func (r *reader) str(what string) (string, error) {
	n, err := r.u64(what + " length")
	if err != nil {
		return "", err
	}
	if n > maxLen {
		return "", r.fail(what, fmt.Errorf("length %d is beyond any real file's", n))
	}
	b, err := r.bytes(int(n), what)
	return string(b), err
}

func (r *reader) value(t ValueType, what string) (any, error) {
	switch t {
	case typeUint8, typeInt8, TypeBool:
		b, err := r.bytes(1, what)
		if err != nil {
			return nil, err
		}
		switch t {
		case typeUint8:
			return b[0], nil
		case typeInt8:
			return int8(b[0]), nil
		}
		if b[0] > 1 {
			return nil, r.fail(what, fmt.Errorf("bool byte %d", b[0]))
		}
		return b[0] == 1, nil
	case typeUint16, typeInt16:
		b, err := r.bytes(2, what)
		if err != nil {
			return nil, err
		}
		v := binary.LittleEndian.Uint16(b)
		if t == typeInt16 {
			return int16(v), nil
		}
		return v, nil
	case TypeUint32, TypeInt32, TypeFloat32:
		v, err := r.u32(what)
		switch t {
		case TypeInt32:
			return int32(v), err
		case TypeFloat32:
			return math.Float32frombits(v), err
		}
		return v, err
	case typeUint64, typeInt64, typeFloat64:
		v, err := r.u64(what)
		switch t {
		case typeInt64:
			return int64(v), err
		case typeFloat64:
			return math.Float64frombits(v), err
		}
		return v, err
	case TypeString:
		return r.str(what)
	case TypeArray:
		et, err := r.u32(what + " element type")
		if err != nil {
			return nil, err
		}
		n, err := r.u64(what + " element count")
		if err != nil {
			return nil, err
		}
		if n > maxLen {
			return nil, r.fail(what, fmt.Errorf("%d elements is beyond any real file's", n))
		}
		if ValueType(et) == TypeArray {
			// Nested arrays are in the format but no model writer uses them;
			// reading them would only be guessing at their layout.
			return nil, r.fail(what, errors.New("an array of arrays"))
		}
		a := Array{Elem: ValueType(et), Values: make([]any, 0, min(n, 1<<16))}
		for i := range n {
			v, err := r.value(ValueType(et), fmt.Sprintf("%s[%d]", what, i))
			if err != nil {
				return nil, err
			}
			a.Values = append(a.Values, v)
		}
		return a, nil
	}
	return nil, r.fail(what, fmt.Errorf("unknown value type %d", uint32(t)))
}

// ReadHeader reads a GGUF header from r, leaving r at the end of the
// tensor descriptions (before the padding). Versions 2 and 3 are read.
func ReadHeader(r io.Reader) (*Header, error) {
	rd := &reader{r: bufio.NewReaderSize(r, 1<<16)}
	magic, err := rd.bytes(4, "magic")
	if err != nil {
		return nil, err
	}
	if string(magic) != Magic {
		return nil, &FormatError{What: fmt.Sprintf("not a GGUF file (it starts %q, a GGUF starts %q)", magic, Magic)}
	}
	h := &Header{}
	if h.Version, err = rd.u32("version"); err != nil {
		return nil, err
	}
	if h.Version != 2 && h.Version != 3 {
		return nil, &FormatError{Offset: 4, What: fmt.Sprintf("GGUF version %d (this reader reads 2 and 3)", h.Version)}
	}
	nt, err := rd.u64("tensor count")
	if err != nil {
		return nil, err
	}
	nkv, err := rd.u64("metadata count")
	if err != nil {
		return nil, err
	}
	if nt > maxLen || nkv > maxLen {
		return nil, rd.fail("counts", fmt.Errorf("%d tensors and %d keys is beyond any real file's", nt, nkv))
	}
	for i := range nkv {
		key, err := rd.str(fmt.Sprintf("key %d", i))
		if err != nil {
			return nil, err
		}
		t, err := rd.u32(key + " type")
		if err != nil {
			return nil, err
		}
		v, err := rd.value(ValueType(t), key)
		if err != nil {
			return nil, err
		}
		h.KV = append(h.KV, KV{Key: key, Type: ValueType(t), Value: v})
	}
	for i := range nt {
		var ti TensorInfo
		if ti.Name, err = rd.str(fmt.Sprintf("tensor %d name", i)); err != nil {
			return nil, err
		}
		nd, err := rd.u32(ti.Name + " dimensions")
		if err != nil {
			return nil, err
		}
		if nd > 8 {
			return nil, rd.fail(ti.Name, fmt.Errorf("%d dimensions", nd))
		}
		for d := range nd {
			n, err := rd.u64(fmt.Sprintf("%s dimension %d", ti.Name, d))
			if err != nil {
				return nil, err
			}
			ti.Dims = append(ti.Dims, n)
		}
		t, err := rd.u32(ti.Name + " type")
		if err != nil {
			return nil, err
		}
		ti.Type = TensorType(t)
		if ti.Offset, err = rd.u64(ti.Name + " offset"); err != nil {
			return nil, err
		}
		h.Tensors = append(h.Tensors, ti)
	}
	h.Size = rd.off
	al := h.alignment()
	if al == 0 || al&(al-1) != 0 {
		return nil, &FormatError{Offset: rd.off, What: fmt.Sprintf("%s %d is not a power of two", alignmentKey, al)}
	}
	h.DataOffset = int64(alignUp(uint64(h.Size), al))
	return h, nil
}

func alignUp(n, al uint64) uint64 { return (n + al - 1) / al * al }

type writer struct {
	w   *bufio.Writer
	n   int64
	err error
}

func (w *writer) bytes(b []byte) {
	if w.err != nil {
		return
	}
	var n int
	n, w.err = w.w.Write(b)
	w.n += int64(n)
}

func (w *writer) u32(v uint32) { w.bytes(binary.LittleEndian.AppendUint32(nil, v)) }
func (w *writer) u64(v uint64) { w.bytes(binary.LittleEndian.AppendUint64(nil, v)) }
func (w *writer) str(s string) {
	w.u64(uint64(len(s)))
	w.bytes([]byte(s))
}

// valueType is the type tag of a Go value as Header holds it.
func valueType(v any) (ValueType, bool) {
	switch v.(type) {
	case uint8:
		return typeUint8, true
	case int8:
		return typeInt8, true
	case uint16:
		return typeUint16, true
	case int16:
		return typeInt16, true
	case uint32:
		return TypeUint32, true
	case int32:
		return TypeInt32, true
	case float32:
		return TypeFloat32, true
	case bool:
		return TypeBool, true
	case string:
		return TypeString, true
	case Array:
		return TypeArray, true
	case uint64:
		return typeUint64, true
	case int64:
		return typeInt64, true
	case float64:
		return typeFloat64, true
	}
	return 0, false
}

func (w *writer) value(key string, t ValueType, v any) {
	if w.err != nil {
		return
	}
	if vt, ok := valueType(v); !ok || vt != t {
		w.err = fmt.Errorf("gguf: key %s: a %s value held as %T", key, t, v)
		return
	}
	le := binary.LittleEndian
	switch x := v.(type) {
	case uint8:
		w.bytes([]byte{x})
	case int8:
		w.bytes([]byte{byte(x)})
	case bool:
		b := byte(0)
		if x {
			b = 1
		}
		w.bytes([]byte{b})
	case uint16:
		w.bytes(le.AppendUint16(nil, x))
	case int16:
		w.bytes(le.AppendUint16(nil, uint16(x)))
	case uint32:
		w.u32(x)
	case int32:
		w.u32(uint32(x))
	case float32:
		w.u32(math.Float32bits(x))
	case uint64:
		w.u64(x)
	case int64:
		w.u64(uint64(x))
	case float64:
		w.u64(math.Float64bits(x))
	case string:
		w.str(x)
	case Array:
		if x.Elem == TypeArray {
			w.err = fmt.Errorf("gguf: key %s: an array of arrays", key)
			return
		}
		w.u32(uint32(x.Elem))
		w.u64(uint64(len(x.Values)))
		for _, e := range x.Values {
			w.value(key, x.Elem, e)
		}
	}
}

// WriteHeader writes h followed by the zero padding up to the aligned
// start of the data, and returns that start. Tensor offsets are written as they are: they are
// relative to the data, which the caller copies after.
func (h *Header) WriteHeader(w io.Writer) (int64, error) {
	bw := &writer{w: bufio.NewWriterSize(w, 1<<16)}
	bw.bytes([]byte(Magic))
	bw.u32(h.Version)
	bw.u64(uint64(len(h.Tensors)))
	bw.u64(uint64(len(h.KV)))
	for _, kv := range h.KV {
		bw.str(kv.Key)
		bw.u32(uint32(kv.Type))
		bw.value(kv.Key, kv.Type, kv.Value)
	}
	for _, t := range h.Tensors {
		bw.str(t.Name)
		bw.u32(uint32(len(t.Dims)))
		for _, d := range t.Dims {
			bw.u64(d)
		}
		bw.u32(uint32(t.Type))
		bw.u64(t.Offset)
	}
	if len(h.Tensors) > 0 {
		// A file without tensors (a vocabulary) ends at its header, as
		// llama.cpp's own vocabulary files do.
		pad := int64(alignUp(uint64(bw.n), h.alignment())) - bw.n
		bw.bytes(make([]byte, pad))
	}
	if bw.err != nil {
		return bw.n, bw.err
	}
	return bw.n, bw.w.Flush()
}

// Edit copies the GGUF file src to dst with its header changed by edit,
// the tensor data copied through byte for byte at the new header's aligned
// end. edit may change, add and remove metadata entries; the tensor infos
// and the alignment must stay as they are, since the data is laid out by
// them.
func Edit(dst io.Writer, src io.ReadSeeker, edit func(*Header) error) error {
	h, err := ReadHeader(src)
	if err != nil {
		return err
	}
	tensors, align := slices.Clone(h.Tensors), h.alignment()
	if err := edit(h); err != nil {
		return err
	}
	if h.alignment() != align {
		return fmt.Errorf("gguf: %s cannot change (%d to %d): the tensor data is laid out by it", alignmentKey, align, h.alignment())
	}
	if !slices.EqualFunc(h.Tensors, tensors, func(a, b TensorInfo) bool {
		return a.Name == b.Name && a.Type == b.Type && a.Offset == b.Offset && slices.Equal(a.Dims, b.Dims)
	}) {
		return errors.New("gguf: the tensor infos cannot change: the data is copied as it is")
	}
	if _, err := src.Seek(h.DataOffset, io.SeekStart); err != nil {
		return fmt.Errorf("gguf: seek to the data at byte %d: %w", h.DataOffset, err)
	}
	if _, err := h.WriteHeader(dst); err != nil {
		return fmt.Errorf("gguf: write header: %w", err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		return fmt.Errorf("gguf: copy tensor data: %w", err)
	}
	return nil
}

// Remove removes a key's entry and returns it, if the header had it.
func (h *Header) Remove(key string) (old KV, had bool) {
	for i := range h.KV {
		if h.KV[i].Key == key {
			old = h.KV[i]
			h.KV = slices.Delete(h.KV, i, i+1)
			return old, true
		}
	}
	return KV{}, false
}

// Set sets a key's value (keeping its place, or adding it last) and
// returns the entry it replaced, if any.
func (h *Header) Set(kv KV) (old KV, had bool) {
	for i := range h.KV {
		if h.KV[i].Key == kv.Key {
			old, h.KV[i] = h.KV[i], kv
			return old, true
		}
	}
	h.KV = append(h.KV, kv)
	return KV{}, false
}

// FormatValue renders a value for a person: arrays by type and length.
func FormatValue(kv KV) string {
	switch v := kv.Value.(type) {
	case Array:
		return fmt.Sprintf("[%d × %s]", len(v.Values), v.Elem)
	case string:
		if len(v) > 60 {
			v = v[:57] + "..."
		}
		return fmt.Sprintf("%q", v)
	}
	return strings.TrimSpace(fmt.Sprint(kv.Value))
}
