package chattemplate

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pyharness/pyharness/internal/gguf"
	"github.com/pyharness/pyharness/internal/testkit/wiretest"
)

// ggufKV is one metadata key/value of a GGUF file written by a test.
type ggufKV struct {
	key string
	typ uint32
	val any
}

// writeGGUF writes a GGUF v3 header and metadata, as llama.cpp's
// gguf_write does (little-endian, uint64 lengths), and no tensors.
func writeGGUF(kvs []ggufKV) []byte {
	var b bytes.Buffer
	le := func(v any) { binary.Write(&b, binary.LittleEndian, v) }
	str := func(s string) { le(uint64(len(s))); b.WriteString(s) }
	b.WriteString("GGUF")
	le(uint32(3))
	le(uint64(0))
	le(uint64(len(kvs)))
	for _, kv := range kvs {
		str(kv.key)
		le(kv.typ)
		switch v := kv.val.(type) {
		case string:
			str(v)
		case []string:
			le(uint32(gguf.TypeString))
			le(uint64(len(v)))
			for _, s := range v {
				str(s)
			}
		case []int32:
			le(uint32(gguf.TypeInt32))
			le(uint64(len(v)))
			le(v)
		default:
			le(v)
		}
	}
	return b.Bytes()
}

const llamaLike = "{{ bos_token }}{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{{ eos_token }}{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}"

func TestReadGGUF(t *testing.T) {
	data := writeGGUF([]ggufKV{
		{"general.architecture", uint32(gguf.TypeString), "llama"},
		{"general.alignment", uint32(gguf.TypeUint32), uint32(32)},
		{"llama.rope.freq_base", uint32(gguf.TypeFloat32), float32(500000)},
		{"tokenizer.ggml.token_type", uint32(gguf.TypeArray), []int32{1, 3, 3}},
		{"tokenizer.ggml.tokens", uint32(gguf.TypeArray), []string{"<unk>", "<|begin|>", "<|end|>"}},
		{"tokenizer.ggml.bos_token_id", uint32(gguf.TypeUint32), uint32(1)},
		{"tokenizer.ggml.eos_token_id", uint32(gguf.TypeUint32), uint32(2)},
		{"tokenizer.ggml.add_bos_token", uint32(gguf.TypeBool), true},
		{"tokenizer.chat_template", uint32(gguf.TypeString), llamaLike},
	})
	path := filepath.Join(t.TempDir(), "tiny.gguf")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	tp, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if tp.Source != llamaLike {
		t.Errorf("template %q, want %q", tp.Source, llamaLike)
	}
	out, err := tp.Render(Conversation{Messages: []any{map[string]any{"role": "user", "content": "hi"}}, AddGenerationPrompt: true})
	if want := "<|begin|><|user|>hi<|end|><|assistant|>"; err != nil || out != want {
		t.Errorf("render = %q, %v; want %q (the BOS and EOS tokens named by their ids)", out, err, want)
	}
	// A file cut inside a key's value says where.
	_, err = readGGUF("cut.gguf", bytes.NewReader(data[:len(data)-10]))
	var fe *gguf.FormatError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "tokenizer.chat_template") || !strings.Contains(err.Error(), "cut.gguf") {
		t.Errorf("truncated file: %v, want a *gguf.FormatError naming the file and tokenizer.chat_template", err)
	}
	if _, err := readGGUF("x.gguf", strings.NewReader("GGML\x03\x00\x00\x00")); !errors.As(err, &fe) || !strings.Contains(err.Error(), "not a GGUF file") {
		t.Errorf("wrong magic: %v", err)
	}
	noTemplate := writeGGUF([]ggufKV{{"general.architecture", uint32(gguf.TypeString), "llama"}})
	if _, err := readGGUF("x.gguf", bytes.NewReader(noTemplate)); err == nil || !strings.Contains(err.Error(), "no tokenizer.chat_template") {
		t.Errorf("GGUF without a template: %v", err)
	}
}

func TestParseTokenizerConfig(t *testing.T) {
	for _, tc := range []struct {
		name, config, want, wantErr string
	}{
		{name: "string", config: `{"chat_template": "{{ bos_token }}A{{ eos_token }}", "bos_token": "<s>", "eos_token": "</s>"}`, want: "<s>A</s>"},
		{name: "added tokens", config: `{"chat_template": "{{ bos_token }}B", "bos_token": {"__type": "AddedToken", "content": "<|begin_of_text|>", "lstrip": false}}`, want: "<|begin_of_text|>B"},
		{name: "named list", config: `{"chat_template": [{"name": "tool_use", "template": "T"}, {"name": "default", "template": "D{{ eos_token }}"}], "eos_token": "<eos>"}`, want: "D<eos>"},
		{name: "no default", config: `{"chat_template": [{"name": "tool_use", "template": "T"}]}`, wantErr: `no "default" template (it has tool_use)`},
		{name: "none", config: `{"bos_token": "<s>"}`, wantErr: "no chat_template"},
		{name: "not JSON", config: `{"chat_template": `, wantErr: "read tokenizer config"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "tokenizer_config.json")
			if err := os.WriteFile(path, []byte(tc.config), 0o644); err != nil {
				t.Fatal(err)
			}
			tp, err := Load(path)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), path) {
					t.Fatalf("error %v, want one naming %s and saying %q", err, path, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if out, err := tp.Render(Conversation{}); err != nil || out != tc.want {
				t.Errorf("render = %q, %v; want %q", out, err, tc.want)
			}
		})
	}
}

// TestFetchProps reads the template of the recorded llama-server
// (release b10573 serving a Llama 3 GGUF), by its OpenAI base URL as
// `--base-url` gives it.
func TestFetchProps(t *testing.T) {
	srv := wiretest.NewLlamaServer(t)
	tp, err := FetchProps(context.Background(), http.DefaultClient, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if tp.Tokens["bos_token"] != "<|begin_of_text|>" || tp.Tokens["eos_token"] != "<|eot_id|>" {
		t.Errorf("tokens %v, want the recorded <|begin_of_text|> and <|eot_id|>", tp.Tokens)
	}
	out, err := tp.Render(Conversation{Messages: []any{map[string]any{"role": "user", "content": "hi"}}, AddGenerationPrompt: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, "<|begin_of_text|><|start_header_id|>system<|end_header_id|>") || !strings.HasSuffix(out, "<|start_header_id|>assistant<|end_header_id|>\n\n") {
		t.Errorf("rendered %q: not the Llama 3 layout the recorded server's template writes", out)
	}
	if _, err := FetchProps(context.Background(), http.DefaultClient, srv.URL+"/nowhere"); err == nil || !strings.Contains(err.Error(), "/nowhere/props") {
		t.Errorf("a root without /props: %v", err)
	}
}

func TestToJSONAsPython(t *testing.T) {
	tp, err := Parse("tojson", `{% set x = messages[0] %}{{ x|tojson }}|{{ x | tojson(indent=2) }}|{{ x|tojson(sort_keys=true, separators=[",", ":"]) }}|{{ x|tojson(ensure_ascii=true) }}|{{ strftime_now("%d %b %Y %-d") }}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	tp.Now = func() time.Time { return testNow }
	x, err := decodeJSON([]byte(`{"z": 1, "a": [1.0, 2.5e-7, 1e16, true, null], "s": "é<&>\"\\\n\b\u0001\u2028😀"}`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := tp.Render(Conversation{Messages: []any{x}})
	if err != nil {
		t.Fatal(err)
	}
	// What testdata/render_transformers.py printed for the same template
	// and json.loads of the same text (Debian's Python 3 and jinja2).
	want := `{"z": 1, "a": [1.0, 2.5e-07, 1e+16, true, null], "s": "é<&>\"\\\n\b\u0001` + "\u2028😀" + `"}|{
  "z": 1,
  "a": [
    1.0,
    2.5e-07,
    1e+16,
    true,
    null
  ],
  "s": "é<&>\"\\\n\b\u0001` + "\u2028😀" + `"
}|{"a":[1.0,2.5e-07,1e+16,true,null],"s":"é<&>\"\\\n\b\u0001` + "\u2028😀" + `","z":1}|{"z": 1, "a": [1.0, 2.5e-07, 1e+16, true, null], "s": "\u00e9<&>\"\\\n\b\u0001\u2028\ud83d\ude00"}|01 Dec 2026 1`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
