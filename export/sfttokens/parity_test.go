package sfttokens_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/collect/loop/randmodel"
	"github.com/pyharness/pyharness/internal/gguf"
)

// recordBase and recordLoRA, when set, are llama-servers serving the
// parity model (written by -write-parity-model), the second with the
// parity adapter loaded by --lora: the test then records their answers
// into testdata/parity. Two servers, since this build's per-request "lora"
// scales did not reliably switch the adapter off and on.
var (
	recordBase       = flag.String("record-base", "", "record the base answers from this llama-server")
	recordLoRA       = flag.String("record-lora", "", "record the adapter's answers from this llama-server (--lora testdata/parity/adapter.gguf)")
	writeParityModel = flag.String("write-parity-model", "", "write the parity model to this path and stop")
)

var parityDir = filepath.Join("testdata", "parity")

// byteLevel is GPT-2's map of the 256 bytes to printable runes, the
// alphabet of every byte-level BPE vocabulary.
func byteLevel() []string {
	var out []string
	n := 0
	for b := 0; b < 256; b++ {
		if ('!' <= b && b <= '~') || (0xA1 <= b && b <= 0xAC) || (0xAE <= b && b <= 0xFF) {
			out = append(out, string(rune(b)))
		} else {
			out = append(out, string(rune(256+n)))
			n++
		}
	}
	return out
}

// parityVocab is a small byte-level BPE vocabulary llama.cpp loads: the
// 256 byte symbols, a few merges, and Llama 3's special tokens.
func parityVocab() *gguf.Header {
	toks := byteLevel()
	merges := []string{"Ġ t", "h e", "Ġt he", "i n", "e r", "Ġ a", "o n", "r e"}
	for _, m := range merges {
		toks = append(toks, strings.ReplaceAll(m, " ", ""))
	}
	types := make([]any, len(toks))
	for i := range types {
		types[i] = int32(1)
	}
	specials := []string{"<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"}
	for _, s := range specials {
		toks = append(toks, s)
		types = append(types, int32(3))
	}
	arr := func(elem gguf.ValueType, vs []any) gguf.Array { return gguf.Array{Elem: elem, Values: vs} }
	var tv, mv []any
	for _, t := range toks {
		tv = append(tv, t)
	}
	for _, m := range merges {
		mv = append(mv, m)
	}
	bos := uint32(len(toks) - len(specials))
	return &gguf.Header{Version: 3, KV: []gguf.KV{
		{Key: "tokenizer.ggml.model", Type: gguf.TypeString, Value: "gpt2"},
		{Key: "tokenizer.ggml.pre", Type: gguf.TypeString, Value: "llama-bpe"},
		{Key: "tokenizer.ggml.tokens", Type: gguf.TypeArray, Value: arr(gguf.TypeString, tv)},
		{Key: "tokenizer.ggml.token_type", Type: gguf.TypeArray, Value: arr(gguf.TypeInt32, types)},
		{Key: "tokenizer.ggml.merges", Type: gguf.TypeArray, Value: arr(gguf.TypeString, mv)},
		{Key: "tokenizer.ggml.bos_token_id", Type: gguf.TypeUint32, Value: bos},
		{Key: "tokenizer.ggml.eos_token_id", Type: gguf.TypeUint32, Value: bos + 4},
		{Key: "tokenizer.chat_template", Type: gguf.TypeString, Value: "{% for m in messages %}{{ m.content }}{% endfor %}"},
	}}
}

// parityModel is the model the recordings were made on: 2 layers of
// width 64, grouped-query attention, the default init.
func parityModel(t *testing.T, path string) {
	t.Helper()
	c := randmodel.Default()
	// The output drawn large, so that the next token's distribution is
	// peaked and a wrong forward shows in every candidate.
	c.Name, c.Seed, c.FF, c.Context, c.OutputStd = "parity", 3, 128, 512, 1
	var b bytes.Buffer
	if err := randmodel.Write(context.Background(), &b, parityVocab(), c); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// parityPrompts are the token ids asked about: short and long, with
// repeated ids (RoPE's positions matter) and the special tokens.
var parityPrompts = [][]int{
	{264, 100, 101, 102},
	{264, 266, 72, 105, 267, 76, 83, 266, 72, 105, 268, 76, 83, 1, 200, 260, 261, 262, 263, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33},
}

// completion is the part of llama-server's /completion answer read here:
// the next token's top candidates with their log-probabilities (the
// softmax of the raw logits, post_sampling_probs false).
type completion struct {
	Probs []struct {
		Top []struct {
			ID      int     `json:"id"`
			Logprob float64 `json:"logprob"`
		} `json:"top_logprobs"`
	} `json:"completion_probabilities"`
}

func parityRequest(ids []int) []byte {
	// The grammar makes the sampled token printable: the server holds back
	// the probabilities of a token that ends inside a UTF-8 character. The
	// probabilities it reports are the raw logits' softmax all the same.
	b, _ := json.Marshal(map[string]any{"prompt": ids, "n_predict": 1, "n_probs": 10, "temperature": 0,
		"cache_prompt": false, "post_sampling_probs": false, "grammar": "root ::= [ -~]+"})
	return b
}

func recordName(i int, scale float64) string {
	if scale == 0 {
		return fmt.Sprintf("completion-%d-base", i)
	}
	return fmt.Sprintf("completion-%d-lora", i)
}

// TestForwardParity compares the trainer's next-token probabilities with
// llama-server's (QVAC Fabric b7336, CPU, F32 KV cache, no flash
// attention), recorded on the same model with and without the same adapter: the trainer's forward is llama.cpp's,
// and the adapter it writes means to llama.cpp what it means to the
// trainer.
func TestForwardParity(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "parity.gguf")
	if *writeParityModel != "" {
		model = *writeParityModel
	}
	parityModel(t, model)
	if *writeParityModel != "" {
		t.Skip("wrote the parity model to", model)
	}
	data, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	sum := fmt.Sprintf("%x", sha256.Sum256(data))
	if *recordBase != "" && *recordLoRA != "" {
		record(t, sum)
	}
	want, err := os.ReadFile(filepath.Join(parityDir, "model.sha256"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(want)) != sum {
		t.Fatalf("the parity model's bytes changed (sha256 %s, recorded on %s): gen-model's output moved, record again", sum, want)
	}
	py := torch(t)
	for i, ids := range parityPrompts {
		for _, scale := range []float64{0, 1} {
			name := recordName(i, scale)
			t.Run(name, func(t *testing.T) {
				body, err := os.ReadFile(filepath.Join(parityDir, name+".body"))
				if err != nil {
					t.Fatal(err)
				}
				var c completion
				if err := json.Unmarshal(body, &c); err != nil || len(c.Probs) == 0 {
					t.Fatalf("read %s: %v", name, err)
				}
				args := []string{filepath.Join(scripts, "train_lora.py"), "logits", "--base", model, "--ids", joinInts(ids)}
				if scale != 0 {
					args = append(args, "--adapter", filepath.Join(parityDir, "adapter.gguf"))
				}
				out, err := exec.Command(py, args...).Output()
				if err != nil {
					t.Fatalf("train_lora.py logits: %v", err)
				}
				var got struct{ Logits [][]float64 }
				if err := json.Unmarshal(out, &got); err != nil || len(got.Logits) != len(ids) {
					t.Fatalf("read the trainer's logits (%d rows for %d ids): %v", len(got.Logits), len(ids), err)
				}
				last := got.Logits[len(ids)-1]
				lse := logSumExp(last)
				if len(c.Probs[0].Top) != 10 {
					t.Fatalf("llama-server gave %d candidates, want 10", len(c.Probs[0].Top))
				}
				for k, srv := range c.Probs[0].Top {
					mine := last[srv.ID] - lse
					if math.Abs(mine-srv.Logprob) > 2e-3 {
						t.Errorf("candidate %d, id %d: llama-server log-probability %.5f, the trainer's %.5f", k, srv.ID, srv.Logprob, mine)
					}
				}
			})
		}
	}
}

func logSumExp(v []float64) float64 {
	m := math.Inf(-1)
	for _, x := range v {
		m = math.Max(m, x)
	}
	var s float64
	for _, x := range v {
		s += math.Exp(x - m)
	}
	return m + math.Log(s)
}

func joinInts(ids []int) string {
	var s []string
	for _, id := range ids {
		s = append(s, fmt.Sprint(id))
	}
	return strings.Join(s, ",")
}

func record(t *testing.T, sum string) {
	for i, ids := range parityPrompts {
		for _, scale := range []float64{0, 1} {
			req := parityRequest(ids)
			srv := *recordBase
			if scale != 0 {
				srv = *recordLoRA
			}
			resp, err := http.Post(srv+"/completion", "application/json", bytes.NewReader(req))
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Fatalf("%s: %s", resp.Status, body)
			}
			name := recordName(i, scale)
			os.WriteFile(filepath.Join(parityDir, name+".request"), append(req, '\n'), 0o644)
			os.WriteFile(filepath.Join(parityDir, name+".body"), body, 0o644)
		}
	}
	os.WriteFile(filepath.Join(parityDir, "model.sha256"), []byte(sum+"\n"), 0o644)
}
