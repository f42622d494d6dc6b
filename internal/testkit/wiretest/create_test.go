package wiretest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/fs/ggml"
)

// ollamaGGUF writes a small llama GGUF with Ollama's own writer, with the
// extra keys given.
func ollamaGGUF(t *testing.T, extra ggml.KV) []byte {
	t.Helper()
	kv := ggml.KV{"general.architecture": "llama", "llama.context_length": uint32(256), "llama.block_count": uint32(1)}
	for k, v := range extra {
		kv[k] = v
	}
	path := filepath.Join(t.TempDir(), "m.gguf")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, 4*8)
	ts := []*ggml.Tensor{{Name: "token_embd.weight", Kind: 0, Shape: []uint64{8}, WriterTo: bytes.NewReader(data)}}
	if err := ggml.WriteGGUF(f, kv, ts); err != nil {
		t.Fatal(err)
	}
	f.Close()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func createFrom(t *testing.T, c *api.Client, name string, file []byte) ([]string, error) {
	t.Helper()
	digest := fmt.Sprintf("sha256:%x", sha256.Sum256(file))
	if err := c.CreateBlob(context.Background(), digest, bytes.NewReader(file)); err != nil {
		t.Fatalf("upload: %v", err)
	}
	var statuses []string
	err := c.Create(context.Background(), &api.CreateRequest{Model: name, Files: map[string]string{"model.gguf": digest}},
		func(p api.ProgressResponse) error { statuses = append(statuses, p.Status); return nil })
	return statuses, err
}

// TestOllamaCreate drives the server with Ollama's own client, as `ollama
// create` does: a blob under the wrong digest is refused, a model created
// from a GGUF streams the recorded statuses and is then served; one whose
// file carries a pooling key is an embedding model, and a chat with it is
// refused with the recorded message.
func TestOllamaCreate(t *testing.T) {
	srv := NewOllama(t)
	srv.Trained = Trained4096
	c := api.NewClient(mustURL(t, srv.URL), http.DefaultClient)

	err := c.CreateBlob(context.Background(), "sha256:"+strings.Repeat("0", 64), strings.NewReader("not this"))
	if err == nil || !strings.Contains(err.Error(), "digest mismatch, expected \"sha256:000") {
		t.Errorf("wrong digest: %v", err)
	}

	statuses, err := createFrom(t, c, "emb", ollamaGGUF(t, ggml.KV{"llama.pooling_type": uint32(0)}))
	if err != nil || statuses[len(statuses)-1] != "success" {
		t.Fatalf("create: %v %v", statuses, err)
	}
	want := MustLoad("create-gguf").Units()
	if len(statuses) != len(want) {
		t.Errorf("statuses %v, the recording has %d lines", statuses, len(want))
	}
	err = c.Chat(context.Background(), &api.ChatRequest{Model: "emb", Messages: []api.Message{{Role: "user", Content: "hi"}}}, func(api.ChatResponse) error { return nil })
	if err == nil || !strings.Contains(err.Error(), `"emb" does not support chat`) {
		t.Errorf("chat with the embedding model: %v", err)
	}

	if _, err := createFrom(t, c, "chat", ollamaGGUF(t, nil)); err != nil {
		t.Fatal(err)
	}
	show, err := c.Show(context.Background(), &api.ShowRequest{Model: "chat"})
	if err != nil || fmt.Sprint(show.ModelInfo["llama.context_length"]) != "256" {
		t.Errorf("show of the created model: context %v, %v", show.ModelInfo["llama.context_length"], err)
	}
	srv.AnswerModel("chat", Text("READ a.py"))
	var got strings.Builder
	err = c.Chat(context.Background(), &api.ChatRequest{Model: "chat", Messages: []api.Message{{Role: "user", Content: "hi"}}}, func(r api.ChatResponse) error {
		got.WriteString(r.Message.Content)
		return nil
	})
	if err != nil || got.String() != "READ a.py" {
		t.Errorf("chat with the created model: %q, %v", got.String(), err)
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestOllamaBlobAgain: a blob sent twice is answered as the real server
// answered it, 201 then 200.
func TestOllamaBlobAgain(t *testing.T) {
	srv := NewOllama(t)
	file := ollamaGGUF(t, nil)
	digest := fmt.Sprintf("sha256:%x", sha256.Sum256(file))
	var got []int
	for range 2 {
		resp, err := http.Post(srv.URL+"/api/blobs/"+digest, "application/octet-stream", bytes.NewReader(file))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		got = append(got, resp.StatusCode)
	}
	if got[0] != http.StatusCreated || got[1] != http.StatusOK {
		t.Errorf("statuses %v, want 201 then 200 as recorded", got)
	}
}

// TestOllamaCreateAdapter: HEAD of the blob says 404, then 200 once sent;
// FROM a model the server has with one LoRA
// adapter GGUF (scripts/train_lora.py's, llama.cpp's layout) streams the
// statuses recorded from Ollama v0.17.4 (create-adapter) and serves the
// new model; the server keeps which adapter it was.
func TestOllamaCreateAdapter(t *testing.T) {
	srv := NewOllama(t)
	srv.Trained = Trained4096
	c := api.NewClient(mustURL(t, srv.URL), http.DefaultClient)
	adapter, err := os.ReadFile(filepath.Join("..", "..", "..", "export", "sfttokens", "testdata", "parity", "adapter.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	digest := fmt.Sprintf("sha256:%x", sha256.Sum256(adapter))
	head := func() int {
		resp, err := http.Head(srv.URL + "/api/blobs/" + digest)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := head(); got != http.StatusNotFound {
		t.Errorf("HEAD of a blob never sent = %d, want 404 as recorded", got)
	}
	if err := c.CreateBlob(context.Background(), digest, bytes.NewReader(adapter)); err != nil {
		t.Fatal(err)
	}
	if got := head(); got != http.StatusOK {
		t.Errorf("HEAD of a blob sent = %d, want 200 as recorded", got)
	}
	var statuses []string
	err = c.Create(context.Background(), &api.CreateRequest{Model: "tiny-lora", From: "tiny", Adapters: map[string]string{"adapter.gguf": digest}},
		func(p api.ProgressResponse) error { statuses = append(statuses, p.Status); return nil })
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, u := range MustLoad("create-adapter").Units() {
		var p api.ProgressResponse
		if err := json.Unmarshal(u, &p); err != nil {
			t.Fatal(err)
		}
		want = append(want, p.Status)
	}
	if strings.Join(statuses, "\n") != strings.Join(want, "\n") || statuses[len(statuses)-1] != "success" {
		t.Errorf("statuses %q, want the recorded %q", statuses, want)
	}
	if got := srv.Adapter("tiny-lora"); got != digest {
		t.Errorf("Adapter(tiny-lora) = %q, want %s", got, digest)
	}
	if _, err := c.Show(context.Background(), &api.ShowRequest{Model: "tiny-lora"}); err != nil {
		t.Errorf("show of the created model: %v", err)
	}
}
