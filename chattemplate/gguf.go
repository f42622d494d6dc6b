package chattemplate

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

const ggufMagic = "GGUF"

// GGUF metadata value types, as llama.cpp's gguf.h numbers them.
const (
	ggufUint8 uint32 = iota
	ggufInt8
	ggufUint16
	ggufInt16
	ggufUint32
	ggufInt32
	ggufFloat32
	ggufBool
	ggufString
	ggufArray
	ggufUint64
	ggufInt64
	ggufFloat64
)

// ggufTokens is the vocabulary array: kept, to name the BOS and EOS
// tokens by their ids.
const ggufTokens = "tokenizer.ggml.tokens"

// maxGGUFString bounds one string (a chat template is a few tens of
// kilobytes) so that a damaged length does not allocate gigabytes.
const maxGGUFString = 64 << 20

// GGUFError is a GGUF file that cannot be read, with the byte offset and
// the metadata key where reading stopped.
type GGUFError struct {
	Offset int64
	Key    string
	Err    error
}

func (e *GGUFError) Error() string {
	if e.Key != "" {
		return fmt.Sprintf("GGUF offset %d, key %q: %v", e.Offset, e.Key, e.Err)
	}
	return fmt.Sprintf("GGUF offset %d: %v", e.Offset, e.Err)
}

func (e *GGUFError) Unwrap() error { return e.Err }

// ReadGGUFMetadata reads the header and the metadata key/values of a GGUF
// file (versions 2 and 3), stopping before the tensor data. Scalars come
// back as Go numbers, bools and strings; arrays are skipped, except the
// vocabulary (tokenizer.ggml.tokens, as []string).
func ReadGGUFMetadata(r io.Reader) (map[string]any, error) {
	g := &ggufReader{r: r}
	magic := make([]byte, 4)
	g.read(magic)
	if g.err == nil && string(magic) != ggufMagic {
		return nil, &GGUFError{Err: errNotGGUF}
	}
	version := g.u32()
	if g.err == nil && version != 2 && version != 3 {
		return nil, &GGUFError{Offset: 4, Err: fmt.Errorf("version %d: want 2 or 3", version)}
	}
	g.u64() // tensor count
	n := g.u64()
	if g.err != nil {
		return nil, &GGUFError{Offset: g.off, Err: g.err}
	}
	meta := map[string]any{}
	for i := uint64(0); i < n; i++ {
		key := g.str()
		typ := g.u32()
		v := g.value(typ, key == ggufTokens)
		if g.err != nil {
			return nil, &GGUFError{Offset: g.off, Key: key, Err: g.err}
		}
		meta[key] = v
	}
	return meta, nil
}

// ReadGGUF reads the chat template of a GGUF model (tokenizer.chat_template)
// and its BOS and EOS tokens.
func ReadGGUF(name string, r io.Reader) (*Template, error) {
	meta, err := ReadGGUFMetadata(r)
	if err != nil {
		return nil, fmt.Errorf("read GGUF %s: %w", name, err)
	}
	src, ok := meta["tokenizer.chat_template"].(string)
	if !ok {
		return nil, fmt.Errorf("read GGUF %s: no tokenizer.chat_template in its metadata", name)
	}
	tokens := map[string]string{}
	vocab, _ := meta[ggufTokens].([]string)
	for key, id := range map[string]string{"bos_token": "tokenizer.ggml.bos_token_id", "eos_token": "tokenizer.ggml.eos_token_id"} {
		if n, ok := asIndex(meta[id]); ok && n < len(vocab) {
			tokens[key] = vocab[n]
		}
	}
	return Parse(name+" (tokenizer.chat_template)", src, tokens)
}

func asIndex(v any) (int, bool) {
	switch n := v.(type) {
	case uint32:
		return int(n), true
	case int32:
		return int(n), n >= 0
	case uint64:
		return int(n), n < math.MaxInt32
	case int64:
		return int(n), n >= 0 && n < math.MaxInt32
	}
	return 0, false
}

type ggufReader struct {
	r   io.Reader
	off int64
	err error
	buf [8]byte
}

func (g *ggufReader) read(p []byte) {
	if g.err != nil {
		return
	}
	n, err := io.ReadFull(g.r, p)
	g.off += int64(n)
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	g.err = err
}

func (g *ggufReader) u32() uint32 {
	g.read(g.buf[:4])
	return binary.LittleEndian.Uint32(g.buf[:4])
}

func (g *ggufReader) u64() uint64 {
	g.read(g.buf[:8])
	return binary.LittleEndian.Uint64(g.buf[:8])
}

func (g *ggufReader) str() string {
	n := g.u64()
	if g.err != nil {
		return ""
	}
	if n > maxGGUFString {
		g.err = fmt.Errorf("string of %d bytes", n)
		return ""
	}
	b := make([]byte, n)
	g.read(b)
	return string(b)
}

var ggufSizes = map[uint32]int{ggufUint8: 1, ggufInt8: 1, ggufUint16: 2, ggufInt16: 2, ggufUint32: 4, ggufInt32: 4, ggufFloat32: 4, ggufBool: 1, ggufUint64: 8, ggufInt64: 8, ggufFloat64: 8}

// value reads one value of type typ. An array is read through and
// dropped unless keep (then it must be of strings).
func (g *ggufReader) value(typ uint32, keep bool) any {
	if typ == ggufString {
		return g.str()
	}
	if typ == ggufArray {
		et := g.u32()
		n := g.u64()
		if g.err != nil {
			return nil
		}
		if keep && et == ggufString {
			out := make([]string, 0, min(n, 1<<20))
			for i := uint64(0); i < n && g.err == nil; i++ {
				out = append(out, g.str())
			}
			return out
		}
		if size, ok := ggufSizes[et]; ok {
			total := int64(n) * int64(size)
			if n > math.MaxInt64/8 {
				g.err = fmt.Errorf("array of %d elements", n)
				return nil
			}
			c, err := io.CopyN(io.Discard, g.r, total)
			g.off += c
			if err != nil {
				g.err = io.ErrUnexpectedEOF
			}
			return nil
		}
		for i := uint64(0); i < n && g.err == nil; i++ {
			g.value(et, false)
		}
		return nil
	}
	size, ok := ggufSizes[typ]
	if !ok {
		g.err = fmt.Errorf("unknown value type %d", typ)
		return nil
	}
	g.read(g.buf[:size])
	if g.err != nil {
		return nil
	}
	b := g.buf[:size]
	switch typ {
	case ggufUint8:
		return b[0]
	case ggufInt8:
		return int8(b[0])
	case ggufUint16:
		return binary.LittleEndian.Uint16(b)
	case ggufInt16:
		return int16(binary.LittleEndian.Uint16(b))
	case ggufUint32:
		return binary.LittleEndian.Uint32(b)
	case ggufInt32:
		return int32(binary.LittleEndian.Uint32(b))
	case ggufFloat32:
		return math.Float32frombits(binary.LittleEndian.Uint32(b))
	case ggufBool:
		return b[0] != 0
	case ggufUint64:
		return binary.LittleEndian.Uint64(b)
	case ggufInt64:
		return int64(binary.LittleEndian.Uint64(b))
	default:
		return math.Float64frombits(binary.LittleEndian.Uint64(b))
	}
}
