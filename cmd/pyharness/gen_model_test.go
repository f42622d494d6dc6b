package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/internal/gguf"
)

// TestGenModelSameSeedSameBytes runs the command twice on a vocabulary
// file and reads what it wrote back with the gguf reader.
func TestGenModelSameSeedSameBytes(t *testing.T) {
	dir := t.TempDir()
	toks := gguf.Array{Elem: gguf.TypeString}
	for _, s := range []string{"<unk>", "<s>", "</s>", "a", "b", "c", "ab", "bc"} {
		toks.Values = append(toks.Values, s)
	}
	var vb bytes.Buffer
	vocab := &gguf.Header{Version: 3, KV: []gguf.KV{
		{Key: "tokenizer.ggml.model", Type: gguf.TypeString, Value: "llama"},
		{Key: "tokenizer.ggml.tokens", Type: gguf.TypeArray, Value: toks},
	}}
	if _, err := vocab.WriteHeader(&vb); err != nil {
		t.Fatal(err)
	}
	vpath, tpl := filepath.Join(dir, "vocab.gguf"), filepath.Join(dir, "chat.jinja")
	os.WriteFile(vpath, vb.Bytes(), 0o644)
	os.WriteFile(tpl, []byte("{% for m in messages %}{{ m.content }}{% endfor %}"), 0o644)
	gen := func(name, seed string) []byte {
		out := filepath.Join(dir, name)
		code, stdout, stderr := runCLI(t, "gen-model", "--vocab", vpath, "--chat-template", tpl, "--seed", seed, "--embd", "16", "--ff", "32", "--out", out)
		if code != 0 || !strings.Contains(stdout, "wrote "+out) {
			t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a, b, c := gen("a.gguf", "7"), gen("b.gguf", "7"), gen("c.gguf", "8")
	if !bytes.Equal(a, b) {
		t.Error("the same seed wrote different bytes")
	}
	if bytes.Equal(a, c) {
		t.Error("seeds 7 and 8 wrote the same bytes")
	}
	h, err := gguf.ReadHeader(bytes.NewReader(a))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := h.String("tokenizer.chat_template"); !strings.Contains(got, "m.content") {
		t.Errorf("chat template %q, want the file's", got)
	}
	if kv, _ := h.Get("llama.vocab_size"); kv.Value != uint32(len(toks.Values)) {
		t.Errorf("vocab size %v, want %d", kv.Value, len(toks.Values))
	}
	if matches, _ := filepath.Glob(filepath.Join(dir, "*.tmp*")); len(matches) > 0 {
		t.Errorf("left behind %v", matches)
	}
}
