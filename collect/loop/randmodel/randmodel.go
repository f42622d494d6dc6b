package randmodel

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/pyharness/pyharness/internal/gguf"
)

// Config is the model's shape and the scales its weights are drawn at.
type Config struct {
	Name    string
	Seed    uint64
	Layers  int
	Embd    int // the hidden size
	FF      int // the feed-forward size
	Heads   int
	KVHeads int
	Context int // the trained context length the file declares
	// RopeBase is RoPE's frequency base; NormEps the RMS norm's epsilon.
	RopeBase float32
	NormEps  float32
	// EmbedStd is the token embeddings' standard deviation, OutputStd the
	// output layer's, LayerStd the projections' inside the layers; a
	// LayerStd of 0 draws each at 1/√fan-in (its row length).
	EmbedStd, LayerStd, OutputStd float64
	// ChatTemplate, when set, replaces the vocabulary file's template.
	ChatTemplate string
}

// Default is the tiny model the loop on a CPU trains: 2 layers of width
// 64, with the init that trains.
func Default() Config {
	return Config{
		Name: "tiny-random", Seed: 1, Layers: 2, Embd: 64, FF: 256, Heads: 4, KVHeads: 2,
		Context: 4096, RopeBase: 500000, NormEps: 1e-5, EmbedStd: 1, OutputStd: 0.02,
	}
}

// Validate checks the shape before anything is written.
func (c Config) Validate() error {
	var errs []error
	pos := func(v int, name string) {
		if v <= 0 {
			errs = append(errs, fmt.Errorf("%s is %d: it must be at least 1", name, v))
		}
	}
	pos(c.Layers, "layers")
	pos(c.Embd, "embedding size")
	pos(c.FF, "feed-forward size")
	pos(c.Heads, "heads")
	pos(c.KVHeads, "key/value heads")
	pos(c.Context, "context length")
	if c.Heads > 0 && c.Embd%c.Heads != 0 {
		errs = append(errs, fmt.Errorf("embedding size %d is not a multiple of the %d heads", c.Embd, c.Heads))
	}
	if c.Heads > 0 && c.KVHeads > 0 && c.Heads%c.KVHeads != 0 {
		errs = append(errs, fmt.Errorf("%d heads are not a multiple of the %d key/value heads", c.Heads, c.KVHeads))
	}
	if c.Heads > 0 && c.Embd%c.Heads == 0 && (c.Embd/c.Heads)%2 != 0 {
		errs = append(errs, fmt.Errorf("head size %d is odd: RoPE rotates pairs", c.Embd/c.Heads))
	}
	for _, s := range []struct {
		v    float64
		name string
	}{{c.EmbedStd, "embedding std"}, {c.LayerStd, "layer std"}, {c.OutputStd, "output std"}} {
		if s.v < 0 || math.IsNaN(s.v) || math.IsInf(s.v, 0) {
			errs = append(errs, fmt.Errorf("%s %g: want a finite number ≥ 0", s.name, s.v))
		}
	}
	return errors.Join(errs...)
}

// tokenizerPrefix marks the keys taken from the vocabulary file.
const tokenizerPrefix = "tokenizer."

const chatTemplateKey = "tokenizer.chat_template"

// Write writes the model to w: the shape's llama.* keys, the tokenizer
// and chat template of vocab (a GGUF header; its tensors, if any, are not
// read), and the random tensors, all F32.
func Write(ctx context.Context, w io.Writer, vocab *gguf.Header, c Config) error {
	if err := c.Validate(); err != nil {
		return err
	}
	tokens, ok := vocab.Get("tokenizer.ggml.tokens")
	arr, isArr := tokens.Value.(gguf.Array)
	if !ok || !isArr || len(arr.Values) == 0 {
		return errors.New("the vocabulary file has no tokenizer.ggml.tokens: name a GGUF with a tokenizer (llama.cpp's models/ggml-vocab-*.gguf, or any model)")
	}
	nVocab := len(arr.Values)
	hd := c.Embd / c.Heads
	u32 := func(k string, v int) gguf.KV { return gguf.KV{Key: k, Type: gguf.TypeUint32, Value: uint32(v)} }
	f32 := func(k string, v float32) gguf.KV { return gguf.KV{Key: k, Type: gguf.TypeFloat32, Value: v} }
	kv := []gguf.KV{
		{Key: "general.architecture", Type: gguf.TypeString, Value: "llama"},
		{Key: "general.name", Type: gguf.TypeString, Value: c.Name},
		u32("general.file_type", 0), // all F32
		u32("llama.context_length", c.Context),
		u32("llama.embedding_length", c.Embd),
		u32("llama.block_count", c.Layers),
		u32("llama.feed_forward_length", c.FF),
		u32("llama.attention.head_count", c.Heads),
		u32("llama.attention.head_count_kv", c.KVHeads),
		f32("llama.attention.layer_norm_rms_epsilon", c.NormEps),
		f32("llama.rope.freq_base", c.RopeBase),
		u32("llama.rope.dimension_count", hd),
		u32("llama.vocab_size", nVocab),
	}
	for _, e := range vocab.KV {
		if strings.HasPrefix(e.Key, tokenizerPrefix) && (e.Key != chatTemplateKey || c.ChatTemplate == "") {
			kv = append(kv, e)
		}
	}
	if c.ChatTemplate != "" {
		kv = append(kv, gguf.KV{Key: chatTemplateKey, Type: gguf.TypeString, Value: c.ChatTemplate})
	} else if _, ok := vocab.String(chatTemplateKey); !ok {
		return errors.New("the vocabulary file has no tokenizer.chat_template: give the template (a .jinja file) as well")
	}

	var tensors []gguf.Tensor
	add := func(name string, d tensorData, dims ...int) {
		n := uint64(1)
		var ud []uint64
		for _, x := range dims {
			ud = append(ud, uint64(x))
			n *= uint64(x)
		}
		d.ctx, d.n, d.stream = ctx, n, c.Seed
		d.index = uint64(len(tensors))
		tensors = append(tensors, gguf.Tensor{Name: name, Dims: ud, Type: gguf.TypeF32, Size: 4 * n, Data: d})
	}
	layer := func(fanIn int) tensorData {
		if c.LayerStd > 0 {
			return tensorData{std: c.LayerStd}
		}
		return tensorData{std: 1 / math.Sqrt(float64(fanIn))}
	}
	kvDim := hd * c.KVHeads
	add("token_embd.weight", tensorData{std: c.EmbedStd}, c.Embd, nVocab)
	for i := range c.Layers {
		b := fmt.Sprintf("blk.%d.", i)
		add(b+"attn_norm.weight", tensorData{ones: true}, c.Embd)
		add(b+"attn_q.weight", layer(c.Embd), c.Embd, c.Embd)
		add(b+"attn_k.weight", layer(c.Embd), c.Embd, kvDim)
		add(b+"attn_v.weight", layer(c.Embd), c.Embd, kvDim)
		add(b+"attn_output.weight", layer(c.Embd), c.Embd, c.Embd)
		add(b+"ffn_norm.weight", tensorData{ones: true}, c.Embd)
		add(b+"ffn_gate.weight", layer(c.Embd), c.Embd, c.FF)
		add(b+"ffn_up.weight", layer(c.Embd), c.Embd, c.FF)
		add(b+"ffn_down.weight", layer(c.FF), c.FF, c.Embd)
	}
	add("output_norm.weight", tensorData{ones: true}, c.Embd)
	add("output.weight", tensorData{std: c.OutputStd}, c.Embd, nVocab)
	return gguf.Write(w, kv, tensors)
}

// tensorData draws one tensor's values: normal with mean 0 and std, or all
// ones (the norms). Each tensor has its own stream of the seed, so a
// tensor's values do not depend on the shapes of those before it.
type tensorData struct {
	ctx    context.Context
	n      uint64
	std    float64
	ones   bool
	stream uint64
	index  uint64
}

func (d tensorData) WriteTo(w io.Writer) (int64, error) {
	rng := rand.New(rand.NewPCG(d.stream, d.index))
	const chunk = 1 << 14
	buf := make([]byte, 0, 4*chunk)
	var written int64
	for done := uint64(0); done < d.n; {
		if err := d.ctx.Err(); err != nil {
			return written, err
		}
		buf = buf[:0]
		for i := uint64(0); i < chunk && done < d.n; i++ {
			v := float32(1)
			if !d.ones {
				v = float32(rng.NormFloat64() * d.std)
			}
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(v))
			done++
		}
		n, err := w.Write(buf)
		written += int64(n)
		if err != nil {
			return written, err
		}
	}
	return written, nil
}
