package randmodel_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/collect/loop/randmodel"
	"github.com/pyharness/pyharness/internal/gguf"
)

// vocab is a tokenizer-only header as llama.cpp's vocabulary files are.
func vocab(n int, template string) *gguf.Header {
	toks := gguf.Array{Elem: gguf.TypeString}
	for i := range n {
		toks.Values = append(toks.Values, fmt.Sprintf("t%d", i))
	}
	h := &gguf.Header{Version: 3, KV: []gguf.KV{
		{Key: "general.architecture", Type: gguf.TypeString, Value: "llama"},
		{Key: "tokenizer.ggml.model", Type: gguf.TypeString, Value: "gpt2"},
		{Key: "tokenizer.ggml.tokens", Type: gguf.TypeArray, Value: toks},
		{Key: "tokenizer.ggml.bos_token_id", Type: gguf.TypeUint32, Value: uint32(1)},
	}}
	if template != "" {
		h.KV = append(h.KV, gguf.KV{Key: "tokenizer.chat_template", Type: gguf.TypeString, Value: template})
	}
	return h
}

func write(t *testing.T, v *gguf.Header, c randmodel.Config) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := randmodel.Write(context.Background(), &b, v, c); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func small() randmodel.Config {
	c := randmodel.Default()
	c.Embd, c.FF = 32, 64
	return c
}

func TestSameSeedSameBytes(t *testing.T) {
	v := vocab(500, "{{ messages }}")
	a, b := write(t, v, small()), write(t, v, small())
	if !bytes.Equal(a, b) {
		t.Fatal("two writes with the same seed differ")
	}
	c := small()
	c.Seed = 2
	if bytes.Equal(a, write(t, v, c)) {
		t.Fatal("seeds 1 and 2 wrote the same bytes")
	}
}

// tensor reads an F32 tensor's values from a written file.
func tensor(t *testing.T, file []byte, h *gguf.Header, name string) ([]float32, []uint64) {
	t.Helper()
	for _, ti := range h.Tensors {
		if ti.Name != name {
			continue
		}
		n := uint64(1)
		for _, d := range ti.Dims {
			n *= d
		}
		start := uint64(h.DataOffset) + ti.Offset
		if start+4*n > uint64(len(file)) {
			t.Fatalf("%s runs past the end of the file", name)
		}
		out := make([]float32, n)
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(file[start+4*uint64(i):]))
		}
		return out, ti.Dims
	}
	t.Fatalf("no tensor %s", name)
	return nil, nil
}

func std(v []float32) float64 {
	var s, ss float64
	for _, x := range v {
		s += float64(x)
		ss += float64(x) * float64(x)
	}
	m := s / float64(len(v))
	return math.Sqrt(ss/float64(len(v)) - m*m)
}

func TestLoadsInTheReader(t *testing.T) {
	const nVocab = 500
	c := small()
	file := write(t, vocab(nVocab, "{{ messages }}"), c)
	h, err := gguf.ReadHeader(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	if arch, _ := h.String("general.architecture"); arch != "llama" {
		t.Errorf("architecture %q", arch)
	}
	if tpl, _ := h.String("tokenizer.chat_template"); tpl != "{{ messages }}" {
		t.Errorf("chat template %q, want the vocabulary's", tpl)
	}
	for key, want := range map[string]uint32{"llama.embedding_length": 32, "llama.block_count": 2, "llama.vocab_size": nVocab, "llama.attention.head_count_kv": 2, "llama.rope.dimension_count": 8} {
		if kv, _ := h.Get(key); kv.Value != want {
			t.Errorf("%s = %v, want %d", key, kv.Value, want)
		}
	}
	if got, want := len(h.Tensors), 3+9*c.Layers; got != want {
		t.Errorf("%d tensors, want %d", got, want)
	}
	if types := h.TensorTypes(); types[gguf.TypeF32] != len(h.Tensors) {
		t.Errorf("tensor types %v, want all F32", types)
	}
	// The last tensor ends the file: every byte is accounted for.
	last := h.Tensors[len(h.Tensors)-1]
	if end := uint64(h.DataOffset) + last.Offset + 4*last.Dims[0]*last.Dims[1]; end != uint64(len(file)) {
		t.Errorf("the data ends at %d, the file at %d", end, len(file))
	}
	for _, tt := range []struct {
		name string
		dims []uint64
		std  float64
	}{
		{"token_embd.weight", []uint64{32, nVocab}, 1},
		{"blk.0.attn_q.weight", []uint64{32, 32}, 1 / math.Sqrt(32)},
		{"blk.1.attn_k.weight", []uint64{32, 16}, 1 / math.Sqrt(32)},
		{"blk.0.ffn_down.weight", []uint64{64, 32}, 1 / math.Sqrt(64)},
		{"output.weight", []uint64{32, nVocab}, 0.02},
		{"blk.1.ffn_norm.weight", []uint64{32}, 0},
	} {
		v, dims := tensor(t, file, h, tt.name)
		if fmt.Sprint(dims) != fmt.Sprint(tt.dims) {
			t.Errorf("%s has dims %v, want %v", tt.name, dims, tt.dims)
		}
		if got := std(v); math.Abs(got-tt.std) > 0.1*tt.std+1e-9 {
			t.Errorf("%s: std %.4f, want %.4f", tt.name, got, tt.std)
		}
		if tt.std == 0 && v[0] != 1 {
			t.Errorf("%s: a norm weight is %g, want 1", tt.name, v[0])
		}
	}
}

func TestInitScales(t *testing.T) {
	c := small()
	c.LayerStd, c.EmbedStd, c.OutputStd = 0.05, 0.5, 0.1
	file := write(t, vocab(300, "x"), c)
	h, err := gguf.ReadHeader(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]float64{"token_embd.weight": 0.5, "blk.0.ffn_down.weight": 0.05, "output.weight": 0.1} {
		v, _ := tensor(t, file, h, name)
		if got := std(v); math.Abs(got-want) > 0.1*want {
			t.Errorf("%s: std %.4f, want %.4f", name, got, want)
		}
	}
}

func TestTemplateAndRefusals(t *testing.T) {
	c := small()
	c.ChatTemplate = "mine"
	h, err := gguf.ReadHeader(bytes.NewReader(write(t, vocab(100, "theirs"), c)))
	if err != nil {
		t.Fatal(err)
	}
	if tpl, _ := h.String("tokenizer.chat_template"); tpl != "mine" {
		t.Errorf("chat template %q, want the one given", tpl)
	}
	n := 0
	for _, kv := range h.KV {
		if kv.Key == "tokenizer.chat_template" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d chat template keys", n)
	}

	bad := small()
	bad.Heads = 5
	for _, tt := range []struct {
		name  string
		vocab *gguf.Header
		c     randmodel.Config
		want  string
	}{
		{"no tokens", &gguf.Header{Version: 3}, small(), "no tokenizer.ggml.tokens"},
		{"no template", vocab(10, ""), small(), "no tokenizer.chat_template"},
		{"heads", vocab(10, "x"), bad, "not a multiple of the 5 heads"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := randmodel.Write(context.Background(), &bytes.Buffer{}, tt.vocab, tt.c)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one saying %q", err, tt.want)
			}
		})
	}
}
