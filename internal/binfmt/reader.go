package binfmt

import "encoding/binary"

// Reader reads the fields of an entry, varints and fixed-size
// little-endian words, remembering when it ran out of bytes or met a
// varint that does not read (and giving zeros after that) so that the
// caller checks once, at the end: a damaged entry is then an error, never
// a wrong value taken for a right one.
type Reader struct {
	b     []byte
	short bool
}

// NewReader reads b.
func NewReader(b []byte) *Reader { return &Reader{b: b} }

// Short reports whether a field asked for more bytes than were left.
func (r *Reader) Short() bool { return r.short }

// Len is the number of bytes not read yet.
func (r *Reader) Len() int { return len(r.b) }

// stop makes r short: nothing after is read.
func (r *Reader) stop() { r.short, r.b = true, nil }

// Bytes takes the next n bytes, without copying them.
func (r *Reader) Bytes(n int) []byte {
	if r.short || n < 0 || len(r.b) < n {
		r.stop()
		return nil
	}
	out := r.b[:n:n]
	r.b = r.b[n:]
	return out
}

// Count takes a number (a uvarint) of things that take at least a byte
// each: one larger than the bytes left makes r short.
func (r *Reader) Count() int {
	n := r.Uvarint()
	if n > uint64(len(r.b)) {
		r.stop()
		return 0
	}
	return int(n)
}

// Text takes a length (a uvarint) and that many bytes.
func (r *Reader) Text() string { return string(r.Bytes(r.Count())) }

// Byte takes one byte.
func (r *Reader) Byte() byte {
	if b := r.Bytes(1); b != nil {
		return b[0]
	}
	return 0
}

// Uint32 takes a little-endian uint32.
func (r *Reader) Uint32() uint32 {
	if b := r.Bytes(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

// Uint64 takes a little-endian uint64.
func (r *Reader) Uint64() uint64 {
	if b := r.Bytes(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

// Uvarint takes an unsigned varint; one of a byte, the most common,
// without a call.
func (r *Reader) Uvarint() uint64 {
	if len(r.b) > 0 && r.b[0] < 0x80 {
		v := uint64(r.b[0])
		r.b = r.b[1:]
		return v
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.stop()
		return 0
	}
	r.b = r.b[n:]
	return v
}

// Varint takes a signed varint.
func (r *Reader) Varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.stop()
		return 0
	}
	r.b = r.b[n:]
	return v
}

// AppendString appends s as Text reads it: its length, then its bytes.
func AppendString(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}
