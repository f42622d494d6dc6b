package sfttokens

import (
	"fmt"

	"github.com/ollama/ollama/tokenizer"

	"github.com/pyharness/pyharness/internal/gguf"
)

// pretokenizers are the split patterns of the byte-level BPE vocabularies
// read here, by tokenizer.ggml.pre (llama.cpp's names).
var pretokenizers = map[string]string{
	"llama-bpe": `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
}

// Tokenizer is what tokenize needs of a tokenizer: text to ids, special
// tokens written in the text read as themselves.
type Tokenizer interface {
	Encode(s string, addSpecial bool) ([]int32, error)
}

// NewTokenizer reads a model's tokenizer from its GGUF header: a
// byte-level BPE vocabulary (tokenizer.ggml.model gpt2) with a
// pre-tokenizer this package knows.
func NewTokenizer(h *gguf.Header) (tokenizer.Tokenizer, error) {
	model, _ := h.String("tokenizer.ggml.model")
	pre, _ := h.String("tokenizer.ggml.pre")
	if model != "gpt2" {
		return nil, fmt.Errorf("tokenizer.ggml.model is %q: only byte-level BPE vocabularies (gpt2) are read", model)
	}
	pattern, ok := pretokenizers[pre]
	if !ok {
		return nil, fmt.Errorf("tokenizer.ggml.pre is %q: the pre-tokenizers read are llama-bpe", pre)
	}
	strs := func(key string) ([]string, error) {
		kv, ok := h.Get(key)
		a, isArr := kv.Value.(gguf.Array)
		if !ok || !isArr {
			return nil, fmt.Errorf("no %s array", key)
		}
		out := make([]string, len(a.Values))
		for i, v := range a.Values {
			if out[i], ok = v.(string); !ok {
				return nil, fmt.Errorf("%s[%d] is a %T, not a string", key, i, v)
			}
		}
		return out, nil
	}
	tokens, err := strs("tokenizer.ggml.tokens")
	if err != nil {
		return nil, err
	}
	merges, err := strs("tokenizer.ggml.merges")
	if err != nil {
		return nil, err
	}
	types := make([]int32, len(tokens))
	for i := range types {
		types[i] = tokenizer.TOKEN_TYPE_NORMAL
	}
	if kv, ok := h.Get("tokenizer.ggml.token_type"); ok {
		a, _ := kv.Value.(gguf.Array)
		if len(a.Values) != len(tokens) {
			return nil, fmt.Errorf("tokenizer.ggml.token_type has %d entries for %d tokens", len(a.Values), len(tokens))
		}
		for i, v := range a.Values {
			if n, ok := v.(int32); ok {
				types[i] = n
			}
		}
	}
	return tokenizer.NewBytePairEncoding(&tokenizer.Vocabulary{Values: tokens, Types: types, Merges: merges}, pattern), nil
}
