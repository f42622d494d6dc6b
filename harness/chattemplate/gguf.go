package chattemplate

import (
	"fmt"
	"io"
	"math"

	"github.com/pyharness/pyharness/internal/gguf"
)

// ggufTokens is the vocabulary array, which names the BOS and EOS tokens
// by their ids.
const ggufTokens = "tokenizer.ggml.tokens"

// readGGUF reads the chat template of a GGUF model (tokenizer.chat_template)
// and its BOS and EOS tokens.
func readGGUF(name string, r io.Reader) (*Template, error) {
	h, err := gguf.ReadHeader(r)
	if err != nil {
		return nil, fmt.Errorf("read GGUF %s: %w", name, err)
	}
	src, ok := h.String("tokenizer.chat_template")
	if !ok {
		return nil, fmt.Errorf("read GGUF %s: no tokenizer.chat_template in its metadata", name)
	}
	var vocab []any
	if kv, ok := h.Get(ggufTokens); ok {
		if a, ok := kv.Value.(gguf.Array); ok {
			vocab = a.Values
		}
	}
	tokens := map[string]string{}
	for key, id := range map[string]string{"bos_token": "tokenizer.ggml.bos_token_id", "eos_token": "tokenizer.ggml.eos_token_id"} {
		kv, ok := h.Get(id)
		if !ok {
			continue
		}
		if n, ok := asIndex(kv.Value); ok && n < len(vocab) {
			if s, ok := vocab[n].(string); ok {
				tokens[key] = s
			}
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
