package gguf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ollama/ollama/fs/ggml"
)

// file builds GGUF bytes by hand, field by field as the format specifies,
// so that the package is checked against the layout rather than against
// its own writer.
type file struct {
	kv      []byte
	nkv     int
	tensors []byte
	data    []byte
	nt      int
	align   int
}

func le(v any) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, v)
	return b.Bytes()
}

func str(s string) []byte { return append(le(uint64(len(s))), s...) }

func (f *file) add(key string, typ uint32, raw []byte) {
	f.kv = append(f.kv, str(key)...)
	f.kv = append(f.kv, le(typ)...)
	f.kv = append(f.kv, raw...)
	f.nkv++
}

// tensor adds an F32 tensor of n elements with values start, start+1, …
// at the next aligned offset of the data.
func (f *file) tensor(name string, n int, start float32) {
	for len(f.data)%f.align != 0 {
		f.data = append(f.data, 0)
	}
	f.tensors = append(f.tensors, str(name)...)
	f.tensors = append(f.tensors, le(uint32(1))...)
	f.tensors = append(f.tensors, le(uint64(n))...)
	f.tensors = append(f.tensors, le(uint32(0))...) // F32
	f.tensors = append(f.tensors, le(uint64(len(f.data)))...)
	for i := range n {
		f.data = append(f.data, le(start+float32(i))...)
	}
	f.nt++
}

func (f *file) bytes() []byte {
	out := []byte("GGUF")
	out = append(out, le(uint32(3))...)
	out = append(out, le(uint64(f.nt))...)
	out = append(out, le(uint64(f.nkv))...)
	out = append(out, f.kv...)
	out = append(out, f.tensors...)
	for len(out)%f.align != 0 {
		out = append(out, 0)
	}
	return append(out, f.data...)
}

// everyType is a file with one key of each value type, an array of each
// element type, the pooling key, and three tensors; align > 0 sets
// general.alignment.
func everyType(align int) *file {
	f := &file{align: defaultAlignment}
	f.add("general.architecture", 8, str("llama"))
	if align > 0 {
		f.align = align
		f.add("general.alignment", 4, le(uint32(align)))
	}
	f.add("t.u8", 0, []byte{200})
	f.add("t.i8", 1, []byte{0x80})
	f.add("t.u16", 2, le(uint16(60000)))
	f.add("t.i16", 3, le(int16(-30000)))
	f.add("t.u32", 4, le(uint32(4000000000)))
	f.add("t.i32", 5, le(int32(-2000000000)))
	f.add("t.f32", 6, le(float32(0.5)))
	f.add("t.bool", 7, []byte{1})
	f.add("t.str", 8, str("héllo"))
	f.add("t.u64", 10, le(uint64(math.MaxUint64)))
	f.add("t.i64", 11, le(int64(math.MinInt64)))
	f.add("t.f64", 12, le(float64(-2.25)))
	f.add("llama.pooling_type", 4, le(uint32(1)))
	arr := func(elem uint32, n int, each []byte) []byte {
		b := append(le(elem), le(uint64(n))...)
		for range n {
			b = append(b, each...)
		}
		return b
	}
	f.add("a.u8", 9, arr(0, 3, []byte{7}))
	f.add("a.i32", 9, arr(5, 2, le(int32(-1))))
	f.add("a.f32", 9, arr(6, 2, le(float32(1.5))))
	f.add("a.bool", 9, arr(7, 2, []byte{0}))
	f.add("a.str", 9, arr(8, 2, str("tok")))
	f.add("a.u64", 9, arr(10, 1, le(uint64(9))))
	f.add("a.f64", 9, arr(12, 1, le(float64(3))))
	f.add("a.empty", 9, arr(8, 0, nil))
	f.tensor("token_embd.weight", 5, 1)
	f.tensor("blk.0.attn_q.weight", 3, 100)
	f.tensor("output.weight", 7, -4)
	return f
}

func TestReadHeaderEveryType(t *testing.T) {
	raw := everyType(0).bytes()
	h, err := ReadHeader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"general.architecture": "llama", "t.u8": uint8(200), "t.i8": int8(-128), "t.u16": uint16(60000),
		"t.i16": int16(-30000), "t.u32": uint32(4000000000), "t.i32": int32(-2000000000), "t.f32": float32(0.5),
		"t.bool": true, "t.str": "héllo", "t.u64": uint64(math.MaxUint64), "t.i64": int64(math.MinInt64),
		"t.f64": float64(-2.25), "llama.pooling_type": uint32(1),
		"a.u8":    Array{Elem: typeUint8, Values: []any{uint8(7), uint8(7), uint8(7)}},
		"a.i32":   Array{Elem: TypeInt32, Values: []any{int32(-1), int32(-1)}},
		"a.f32":   Array{Elem: TypeFloat32, Values: []any{float32(1.5), float32(1.5)}},
		"a.bool":  Array{Elem: TypeBool, Values: []any{false, false}},
		"a.str":   Array{Elem: TypeString, Values: []any{"tok", "tok"}},
		"a.u64":   Array{Elem: typeUint64, Values: []any{uint64(9)}},
		"a.f64":   Array{Elem: typeFloat64, Values: []any{float64(3)}},
		"a.empty": Array{Elem: TypeString, Values: []any{}},
	}
	if len(h.KV) != len(want) {
		t.Errorf("read %d keys, want %d", len(h.KV), len(want))
	}
	for _, kv := range h.KV {
		if !reflect.DeepEqual(kv.Value, want[kv.Key]) {
			t.Errorf("%s = %#v (%s), want %#v", kv.Key, kv.Value, kv.Type, want[kv.Key])
		}
	}
	if len(h.Tensors) != 3 || h.Tensors[1].Name != "blk.0.attn_q.weight" || h.Tensors[1].Offset != 32 || h.Tensors[2].Offset != 64 {
		t.Errorf("tensors = %+v", h.Tensors)
	}
	if got := h.TensorTypes(); !reflect.DeepEqual(got, map[TensorType]int{TypeF32: 3}) {
		t.Errorf("tensor types = %v", got)
	}
	if h.DataOffset%32 != 0 || h.DataOffset < h.Size || h.DataOffset-h.Size >= 32 {
		t.Errorf("data at %d after a header of %d bytes: not the next multiple of 32", h.DataOffset, h.Size)
	}
}

// TestRemoveKeys removes the pooling key from files of several alignments
// and checks the copy: every other key as it was, the key gone, every
// tensor's bytes the same at its offset from the new data start, and the
// whole file read back by Ollama's own GGUF decoder.
func TestRemoveKeys(t *testing.T) {
	for _, align := range []int{0, 8, 64, 256} {
		t.Run(fmt.Sprintf("align %d", align), func(t *testing.T) {
			src := everyType(align)
			raw := src.bytes()
			var out bytes.Buffer
			removed, err := removeKeys(&out, bytes.NewReader(raw), "llama.pooling_type", "not.there")
			if err != nil {
				t.Fatal(err)
			}
			if len(removed) != 1 || removed[0].Key != "llama.pooling_type" || removed[0].Value != uint32(1) {
				t.Fatalf("removed %+v, want llama.pooling_type = 1", removed)
			}
			before, _ := ReadHeader(bytes.NewReader(raw))
			after, err := ReadHeader(bytes.NewReader(out.Bytes()))
			if err != nil {
				t.Fatalf("the copy does not read: %v", err)
			}
			if _, ok := after.Get("llama.pooling_type"); ok {
				t.Error("the copy still has llama.pooling_type")
			}
			var kept []KV
			for _, kv := range before.KV {
				if kv.Key != "llama.pooling_type" {
					kept = append(kept, kv)
				}
			}
			if !reflect.DeepEqual(after.KV, kept) {
				t.Errorf("keys of the copy differ from the original's less the one removed")
			}
			wantAlign := int64(src.align)
			if after.DataOffset%wantAlign != 0 {
				t.Errorf("data of the copy at %d, not aligned to %d", after.DataOffset, wantAlign)
			}
			if after.DataOffset >= before.DataOffset+wantAlign {
				t.Errorf("data of the copy at %d, original's at %d: the copy grew", after.DataOffset, before.DataOffset)
			}
			if !bytes.Equal(out.Bytes()[after.DataOffset:], raw[before.DataOffset:]) {
				t.Error("the tensor data of the copy differs from the original's")
			}
			if !reflect.DeepEqual(after.Tensors, before.Tensors) {
				t.Errorf("tensor infos changed: %+v", after.Tensors)
			}

			// Ollama's decoder, a reader written by others, agrees.
			path := filepath.Join(t.TempDir(), "out.gguf")
			if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			fh, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer fh.Close()
			g, err := ggml.Decode(fh, -1)
			if err != nil {
				t.Fatalf("Ollama's decoder refuses the copy: %v", err)
			}
			kv := g.KV()
			if _, ok := kv["llama.pooling_type"]; ok {
				t.Error("Ollama's decoder still sees llama.pooling_type")
			}
			// Map access: Ollama's getters prefix keys with the architecture.
			if kv["t.str"] != "héllo" || kv["t.u32"] != uint32(4000000000) || kv["t.f64"] != float64(-2.25) {
				t.Errorf("Ollama's decoder reads t.str %v, t.u32 %v, t.f64 %v", kv["t.str"], kv["t.u32"], kv["t.f64"])
			}
			ts := g.Tensors()
			if ts.Offset != uint64(after.DataOffset) {
				t.Errorf("Ollama's decoder puts the data at %d, this package at %d", ts.Offset, after.DataOffset)
			}
		})
	}
}

// TestRoundTrip: a header read and written again, with the data copied
// after it, gives back the file byte for byte.
func TestRoundTrip(t *testing.T) {
	for _, align := range []int{0, 16, 128} {
		raw := everyType(align).bytes()
		var out bytes.Buffer
		if _, err := removeKeys(&out, bytes.NewReader(raw)); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), raw) {
			t.Errorf("align %d: written again, the file differs (%d bytes, was %d)", align, out.Len(), len(raw))
		}
	}
}

func TestRemoveAlignmentRefused(t *testing.T) {
	_, err := removeKeys(&bytes.Buffer{}, bytes.NewReader(everyType(64).bytes()), "general.alignment")
	if err == nil || !strings.Contains(err.Error(), "general.alignment") {
		t.Errorf("err = %v, want a refusal naming general.alignment", err)
	}
}

func TestReadHeaderBadInput(t *testing.T) {
	good := everyType(0).bytes()
	badType := everyType(0)
	badType.add("t.weird", 42, nil)
	for _, tt := range []struct {
		name string
		raw  []byte
		want string
	}{
		{"not gguf", []byte("PK\x03\x04 a zip file"), `not a GGUF file (it starts "PK\x03\x04"`},
		{"version 1", append([]byte("GGUF"), le(uint32(1))...), "GGUF version 1"},
		{"cut in the keys", good[:60], "at byte"},
		{"cut in the tensor infos", good[:len(good)-len(everyType(0).data)-40], "unexpected EOF"},
		{"unknown value type", badType.bytes(), "t.weird: unknown value type 42"},
		{"huge string", append(append([]byte("GGUF"), le(uint32(3))...), append(le(uint64(0)), append(le(uint64(1)), le(uint64(1<<40))...)...)...), "beyond any real file's"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadHeader(bytes.NewReader(tt.raw))
			var fe *FormatError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want a FormatError containing %q", err, tt.want)
			}
		})
	}
}

func TestTensorTypeNames(t *testing.T) {
	for typ, want := range map[TensorType]string{0: "F32", 1: "F16", 8: "Q8_0", 12: "Q4_K", 30: "BF16", 99: "type(99)"} {
		if got := typ.String(); got != want {
			t.Errorf("%d = %s, want %s", uint32(typ), got, want)
		}
	}
}

// TestEditSet changes a value's width (a uint32 made a string) so that the
// header grows, and checks the data moved whole to the next aligned start.
func TestEditSet(t *testing.T) {
	raw := everyType(64).bytes()
	var out bytes.Buffer
	err := Edit(&out, bytes.NewReader(raw), func(h *Header) error {
		h.Set(KV{Key: "t.u32", Type: TypeString, Value: strings.Repeat("x", 100)})
		h.Set(KV{Key: "new.key", Type: TypeUint32, Value: uint32(7)})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	before, _ := ReadHeader(bytes.NewReader(raw))
	after, err := ReadHeader(bytes.NewReader(out.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := after.String("t.u32"); len(v) != 100 || after.KV[len(after.KV)-1].Key != "new.key" {
		t.Errorf("edits not in the copy: t.u32 %q, last key %s", v, after.KV[len(after.KV)-1].Key)
	}
	if after.DataOffset%64 != 0 || !bytes.Equal(out.Bytes()[after.DataOffset:], raw[before.DataOffset:]) {
		t.Errorf("data at %d: not aligned to 64 or not the original's", after.DataOffset)
	}
	err = Edit(&bytes.Buffer{}, bytes.NewReader(raw), func(h *Header) error {
		h.Tensors[0].Offset = 4
		return nil
	})
	if err == nil {
		t.Error("moving a tensor was allowed")
	}
}

// removeKeys copies src to dst through Edit without the entries named in
// keys, and returns the entries it removed.
func removeKeys(dst io.Writer, src io.ReadSeeker, keys ...string) ([]KV, error) {
	var removed []KV
	err := Edit(dst, src, func(h *Header) error {
		for _, key := range keys {
			if kv, ok := h.Remove(key); ok {
				removed = append(removed, kv)
			}
		}
		return nil
	})
	return removed, err
}
