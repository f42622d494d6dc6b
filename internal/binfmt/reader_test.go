package binfmt

import (
	"encoding/binary"
	"testing"
)

// TestReaderReadsWhatWasWritten: each field written is read back, and the
// reader ends with nothing left and not short.
func TestReaderReadsWhatWasWritten(t *testing.T) {
	var b []byte
	b = append(b, 7)
	b = binary.LittleEndian.AppendUint32(b, 0xdeadbeef)
	b = binary.LittleEndian.AppendUint64(b, 1<<63+5)
	b = binary.AppendUvarint(b, 300)
	b = binary.AppendVarint(b, -300)
	b = AppendString(b, "run-1")
	b = AppendString(b, "")
	r := NewReader(b)
	if got := r.Byte(); got != 7 {
		t.Errorf("Byte: %d", got)
	}
	if got := r.Uint32(); got != 0xdeadbeef {
		t.Errorf("Uint32: %#x", got)
	}
	if got := r.Uint64(); got != 1<<63+5 {
		t.Errorf("Uint64: %d", got)
	}
	if got := r.Uvarint(); got != 300 {
		t.Errorf("Uvarint: %d", got)
	}
	if got := r.Varint(); got != -300 {
		t.Errorf("Varint: %d", got)
	}
	if got := r.Text(); got != "run-1" {
		t.Errorf("Text: %q", got)
	}
	if got := r.Text(); got != "" {
		t.Errorf("empty Text: %q", got)
	}
	if r.Short() || r.Len() != 0 {
		t.Errorf("short %v with %d bytes left, want neither", r.Short(), r.Len())
	}
}

// TestReaderShortStaysShort: a field that asks for more bytes than are
// left, or a varint that does not read, makes the reader short, and every
// field after it reads as zero, so that a damaged entry is caught once,
// at the end.
func TestReaderShortStaysShort(t *testing.T) {
	for _, c := range []struct {
		name string
		b    []byte
		read func(*Reader)
	}{
		{"a word past the end", []byte{1, 2, 3}, func(r *Reader) { r.Uint32() }},
		{"a length past the end", AppendString(nil, "abc")[:3], func(r *Reader) { r.Text() }},
		{"a count larger than the bytes left", binary.AppendUvarint(nil, 1000), func(r *Reader) { r.Count() }},
		{"a varint cut short", []byte{0x80, 0x80}, func(r *Reader) { r.Uvarint() }},
		{"a negative length", []byte{1}, func(r *Reader) { r.Bytes(-1) }},
	} {
		r := NewReader(append(c.b, 9, 9, 9, 9, 9, 9, 9, 9)[:len(c.b)])
		c.read(r)
		if !r.Short() {
			t.Errorf("%s: not short", c.name)
		}
		if r.Byte() != 0 || r.Uint64() != 0 || r.Text() != "" || !r.Short() {
			t.Errorf("%s: a field after it read as something, or the reader forgot", c.name)
		}
	}
}
