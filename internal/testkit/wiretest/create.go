package wiretest

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/fs/ggml"
)

// What the Ollama test server does with `ollama create`'s traffic, as the
// recorded server did: HEAD /api/blobs/DIGEST answers 200 for a blob it
// has and 404 for one it lacks (blob-head, blob-head-missing); POST /api/blobs/DIGEST keeps the body when it
// hashes to DIGEST (blob-create: 201, no body; blob-create-again: 200 for
// a blob it has) and refuses it otherwise (blob-digest-mismatch); POST /api/create from uploaded GGUF files
// streams the recorded status lines (create-gguf) and adds the model. The
// server reads the file with Ollama's own GGUF decoder and decides as the
// real one does: a model carrying ARCH.pooling_type is an embedding model,
// and a chat with it is refused (chat-does-not-support-chat); /api/show of
// a created model reports the file's context length.

// POST /api/create FROM a model the server has with one uploaded GGUF
// adapter (a LoRA in llama.cpp's layout, general.type adapter) streams
// the recorded status lines of create-adapter and adds the model; the
// adapter is read with Ollama's decoder too, and one that is not an
// adapter, or from a model the server does not have, fails the test: only
// the accepted case was recorded.

// created is a model made through /api/create.
type created struct {
	embedding bool
	context   int
	// adapter is the digest of the adapter it was created with, if any.
	adapter string
}

// AnswerModel makes every chat request to model, when no step is queued
// for it, answered by s: a model that always replies the same.
func (o *Ollama) AnswerModel(model string, s Step) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.defaults[fullName(model)] = s
}

// PushModel queues steps for the chat requests to one model; they are used
// before the shared queue.
func (o *Ollama) PushModel(model string, steps ...Step) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.byModel[fullName(model)] = append(o.byModel[fullName(model)], steps...)
}

// Created reports whether a model was created through /api/create.
func (o *Ollama) Created(model string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	_, ok := o.created[fullName(model)]
	return ok
}

// modelStep takes the next step meant for a model: its own queue first,
// then its fixed answer.
func (o *Ollama) modelStep(model string) (Step, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	name := fullName(model)
	if q := o.byModel[name]; len(q) > 0 {
		o.byModel[name] = q[1:]
		return q[0], true
	}
	s, ok := o.defaults[name]
	return s, ok
}

func (o *Ollama) blob(w http.ResponseWriter, r *http.Request) {
	body := o.record(r)
	digest := r.PathValue("digest")
	if r.Method == http.MethodHead {
		o.mu.Lock()
		_, ok := o.blobs[digest]
		o.mu.Unlock()
		rec := MustLoad("blob-head")
		if !ok {
			rec = MustLoad("blob-head-missing")
		}
		answer(w, rec.Status, rec.Header, nil)
		return
	}
	got := fmt.Sprintf("sha256:%x", sha256.Sum256(body))
	if got != digest {
		rec := MustLoad("blob-digest-mismatch")
		answer(w, rec.Status, rec.Header, patchDigests(rec, digest, got))
		return
	}
	o.mu.Lock()
	_, had := o.blobs[digest]
	o.blobs[digest] = body
	o.mu.Unlock()
	rec := MustLoad("blob-create")
	if had {
		rec = MustLoad("blob-create-again")
	}
	answer(w, rec.Status, rec.Header, rec.Body)
}

// patchDigests puts this request's digests into a recorded refusal in
// place of the recorded ones.
func patchDigests(rec Recording, expected, got string) []byte {
	var m map[string]string
	json.Unmarshal(rec.Body, &m)
	b, _ := json.Marshal(map[string]string{"error": fmt.Sprintf("digest mismatch, expected %q, got %q", expected, got)})
	if !strings.HasPrefix(m["error"], "digest mismatch, expected ") {
		panic("wiretest: blob-digest-mismatch is not the recorded refusal")
	}
	return b
}

func (o *Ollama) create(w http.ResponseWriter, r *http.Request) {
	body := o.record(r)
	var req api.CreateRequest
	if err := json.Unmarshal(body, &req); err != nil {
		o.fail(w, http.StatusBadRequest, err.Error(), nil)
		return
	}
	if req.From != "" && len(req.Adapters) > 0 {
		o.createAdapter(w, r, req, body)
		return
	}
	if len(req.Files) != 1 || req.From != "" || len(req.Adapters) > 0 {
		// Only a model from one GGUF file was recorded.
		o.t.Errorf("wiretest: /api/create of %s: only a model from one GGUF file (files, no from, no adapters) was recorded; got %s", req.Model, body)
		o.fail(w, http.StatusNotImplemented, "wiretest: not recorded", nil)
		return
	}
	var data []byte
	for _, digest := range req.Files {
		b, ok := o.uploaded(w, "blob", digest)
		if !ok {
			return
		}
		data = b
	}
	c, err := decodeGGUF(data)
	if err != nil {
		o.t.Errorf("wiretest: /api/create: the uploaded file is not a GGUF Ollama reads: %v", err)
		o.fail(w, http.StatusBadRequest, err.Error(), nil)
		return
	}
	o.register(w, r, req.Model, c, "create-gguf")
}

// register keeps a model /api/create made and answers with the recorded
// create's streamed status lines.
func (o *Ollama) register(w http.ResponseWriter, r *http.Request, model string, c created, recording string) {
	o.mu.Lock()
	name := fullName(model)
	o.models[name] = true
	o.created[name] = c
	o.mu.Unlock()
	rec := MustLoad(recording)
	o.stream(w, r, Step{}, rec.Status, rec.Header, rec.Units(), len(rec.Units())-1, nil)
}

// uploaded is the blob /api/create names by digest, as it was uploaded;
// a blob never uploaded fails the test and answers 400.
func (o *Ollama) uploaded(w http.ResponseWriter, what, digest string) ([]byte, bool) {
	o.mu.Lock()
	b, ok := o.blobs[digest]
	o.mu.Unlock()
	if !ok {
		o.t.Errorf("wiretest: /api/create names %s %s, never uploaded", what, digest)
		o.fail(w, http.StatusBadRequest, "wiretest: blob never uploaded", nil)
	}
	return b, ok
}

// createAdapter is /api/create FROM a model with one adapter.
func (o *Ollama) createAdapter(w http.ResponseWriter, r *http.Request, req api.CreateRequest, body []byte) {
	if len(req.Adapters) != 1 || len(req.Files) > 0 {
		o.t.Errorf("wiretest: /api/create of %s: only FROM a model with one adapter file was recorded; got %s", req.Model, body)
		o.fail(w, http.StatusNotImplemented, "wiretest: not recorded", nil)
		return
	}
	o.mu.Lock()
	known := o.models[fullName(req.From)]
	baseCreated, wasCreated := o.created[fullName(req.From)]
	o.mu.Unlock()
	if !known {
		o.t.Errorf("wiretest: /api/create of %s FROM %s, a model the server does not have (not recorded)", req.Model, req.From)
		o.fail(w, http.StatusNotImplemented, "wiretest: not recorded", nil)
		return
	}
	var digest string
	for _, d := range req.Adapters {
		digest = d
	}
	data, ok := o.uploaded(w, "adapter blob", digest)
	if !ok {
		return
	}
	kv, err := decodeKV(data)
	kind := ""
	if err == nil {
		kind = kv.Kind()
	}
	if err != nil || kind != "adapter" {
		o.t.Errorf("wiretest: /api/create of %s: the adapter file is not a GGUF adapter Ollama reads (general.type %q, %v)", req.Model, kind, err)
		o.fail(w, http.StatusBadRequest, "wiretest: not an adapter", nil)
		return
	}
	c := created{context: Trained4096, adapter: digest}
	if o.Trained > 0 {
		c.context = o.Trained
	}
	if wasCreated {
		c.context, c.embedding = baseCreated.context, baseCreated.embedding
	}
	o.register(w, r, req.Model, c, "create-adapter")
}

// Adapter returns the digest of the adapter a model was created with
// through /api/create ("" for none).
func (o *Ollama) Adapter(model string) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.created[fullName(model)].adapter
}

// decodeKV reads a GGUF's metadata as the real server reads it, with
// Ollama's own decoder (fs/ggml).
func decodeKV(data []byte) (ggml.KV, error) {
	g, err := ggml.Decode(bytes.NewReader(data), -1)
	if err != nil {
		return nil, err
	}
	return g.KV(), nil
}

// decodeGGUF reads what the server keeps of a model file it creates a
// model from: whether it is an embedding model, its trained context.
func decodeGGUF(data []byte) (created, error) {
	kv, err := decodeKV(data)
	if err != nil {
		return created{}, err
	}
	_, embedding := kv[kv.Architecture()+".pooling_type"]
	return created{embedding: embedding, context: int(kv.ContextLength())}, nil
}

// refuseEmbedding answers a chat with an embedding model as the real
// server did.
func (o *Ollama) refuseEmbedding(w http.ResponseWriter, model string) bool {
	o.mu.Lock()
	c, ok := o.created[fullName(model)]
	o.mu.Unlock()
	if !ok || !c.embedding {
		return false
	}
	rec := MustLoad("chat-does-not-support-chat")
	recorded := recordedModel(rec)
	answer(w, rec.Status, rec.Header, bytes.ReplaceAll(rec.Body, []byte(`\"`+recorded+`\"`), []byte(`\"`+model+`\"`)))
	return true
}

// recordedModel is the model a recorded request named.
func recordedModel(rec Recording) string {
	var req struct {
		Model string `json:"model"`
	}
	json.Unmarshal(rec.RequestBody, &req)
	return req.Model
}

// showCreated answers /api/show for a created model: the recorded show of
// the tiny model, with the context length of the file it was created from.
func (o *Ollama) showCreated(w http.ResponseWriter, model string) bool {
	o.mu.Lock()
	c, ok := o.created[fullName(model)]
	o.mu.Unlock()
	if !ok {
		return false
	}
	rec := MustLoad("show-tiny")
	answer(w, rec.Status, rec.Header, patchInt(rec.Body, "llama.context_length", Trained4096, c.context))
	return true
}
