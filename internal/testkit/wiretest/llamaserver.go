package wiretest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The figures of the recorded llama-server (testdata/llama-server): its
// window (-c 2048), the model's trained context, and the GGUF path it
// echoes as the model of every answer.
const (
	LlamaServerNCtx      = 2048
	LlamaServerNCtxTrain = 4096
	LlamaServerModelPath = "/models/tiny.gguf"
	llamaFingerprint     = "b10573-d775b8967"
)

// LlamaServer is a test server for llama.cpp's llama-server, in the shapes
// recorded from release b10573: /v1/chat/completions, /v1/models, /props,
// /slots and /health; GET /v1/models/{id} and every other route answer 404
// "File Not Found" as the real one does.
//
// Like the real server it answers for any model name (or none) with the
// one model it serves, echoing its GGUF path as the model; it counts the
// prompt (CountPrompt) and refuses one that does not fit its window with
// 400 exceed_context_size_error carrying n_prompt_tokens and n_ctx; it
// stops generation with finish_reason "length" when prompt and output
// fill the window (no context shift); it sends timings with every answer
// and reuses its prompt cache: timings.cache_n counts the prefix shared
// with the previous request, prompt_n the rest.
type LlamaServer struct {
	*server
	// URL is the base URL to give a client, ending in /v1.
	URL string
	// Root is the server's root, where /props, /slots and /health are.
	Root string
	// NCtx is the window in force (llama-server's -c; the recording's
	// 2048), NCtxTrain the model's trained context (4096). Set them
	// before the first request.
	NCtx, NCtxTrain int
	// LoRA lists the adapter files the server was started with (--lora
	// FILE, scale 1), as GET /lora-adapters reports them: the recorded
	// lora-adapters with these paths, or lora-adapters-none (a server
	// started without --lora) when it is empty. Set it before the first
	// request.
	LoRA []string

	ids atomic.Int64
	mu  sync.Mutex
	// cached is the prompt of the last completion, for the cache figures.
	cached []string
	// Rates from the recorded openai-nostream timings, so generated
	// timings are in the recorded proportions.
	promptMSPerToken, predictedMSPerToken float64
}

// NewLlamaServer starts a llama-server test server with the recorded
// window (2048) and trained context (4096), closed when t ends.
func NewLlamaServer(t testing.TB) *LlamaServer {
	l := &LlamaServer{NCtx: LlamaServerNCtx, NCtxTrain: LlamaServerNCtxTrain}
	var rec struct {
		Timings llamaTimings `json:"timings"`
	}
	if err := json.Unmarshal(MustLoad("llama-server/openai-nostream").Body, &rec); err != nil || rec.Timings.PromptN == 0 || rec.Timings.PredictedN == 0 {
		panic(fmt.Sprintf("wiretest: recorded llama-server/openai-nostream has no timings: %v", err))
	}
	l.promptMSPerToken = rec.Timings.PromptMS / float64(rec.Timings.PromptN)
	l.predictedMSPerToken = rec.Timings.PredictedMS / float64(rec.Timings.PredictedN)

	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", l.chat)
	mux.HandleFunc("GET /v1/models", l.patched("models"))
	mux.HandleFunc("GET /props", l.patched("props"))
	mux.HandleFunc("GET /slots", l.patched("slots"))
	mux.HandleFunc("GET /health", l.replay("health"))
	mux.HandleFunc("GET /lora-adapters", l.loraAdapters)
	// GET /v1/models/{id} has no route of its own: the catch-all's 404 is
	// what models-get-tiny recorded.
	mux.HandleFunc("/", l.replay("models-get-tiny"))
	l.server = newServer(t, mux)
	l.Root = l.http.URL
	l.URL = l.http.URL + "/v1"
	return l
}

// Push queues steps for the next chat requests.
func (l *LlamaServer) Push(steps ...Step) { l.push(steps...) }

// Pending returns how many pushed steps are still unused.
func (l *LlamaServer) Pending() int { return l.pending() }

// Requests returns every request received, in order.
func (l *LlamaServer) Requests() []Request { return l.log("") }

// ChatRequests returns the /v1/chat/completions requests, in order.
func (l *LlamaServer) ChatRequests() []Request { return l.log("/v1/chat/completions") }

// Wait blocks until n requests (of any path) have arrived.
func (l *LlamaServer) Wait(ctx context.Context, n int) error { return l.wait(ctx, n) }

// Close stops the server; it is also done when the test ends.
func (l *LlamaServer) Close() { l.close() }

func (l *LlamaServer) replay(name string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		l.record(r)
		rec := MustLoad("llama-server/" + name)
		answer(w, rec.Status, rec.Header, rec.Body)
	}
}

// loraAdapters answers GET /lora-adapters: the recorded entry of the one
// adapter loaded, once per file in LoRA, with its id and path.
func (l *LlamaServer) loraAdapters(w http.ResponseWriter, r *http.Request) {
	l.record(r)
	if len(l.LoRA) == 0 {
		rec := MustLoad("llama-server/lora-adapters-none")
		answer(w, rec.Status, rec.Header, rec.Body)
		return
	}
	rec := MustLoad("llama-server/lora-adapters")
	var entries []map[string]any
	if err := json.Unmarshal(rec.Body, &entries); err != nil || len(entries) != 1 {
		panic(fmt.Sprintf("wiretest: recorded lora-adapters is not one adapter: %v", err))
	}
	out := make([]map[string]any, len(l.LoRA))
	for i, path := range l.LoRA {
		e := map[string]any{}
		for k, v := range entries[0] {
			e[k] = v
		}
		e["id"], e["path"] = i, path
		out[i] = e
	}
	body, _ := json.Marshal(out)
	answer(w, rec.Status, rec.Header, body)
}

// patched replays a recording with the server's own n_ctx and n_ctx_train.
func (l *LlamaServer) patched(name string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		l.record(r)
		rec := MustLoad("llama-server/" + name)
		body := patchInt(rec.Body, "n_ctx", LlamaServerNCtx, l.NCtx)
		if bytes.Contains(body, []byte(`"n_ctx_train":`)) {
			body = patchInt(body, "n_ctx_train", LlamaServerNCtxTrain, l.NCtxTrain)
		}
		answer(w, rec.Status, rec.Header, body)
	}
}

func (l *LlamaServer) chat(w http.ResponseWriter, r *http.Request) {
	body := l.record(r)
	var req oaiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		l.fail(w, http.StatusBadRequest, err.Error(), nil)
		return
	}
	st, ok := l.peek()
	prompt := req.promptTokens()
	if !ok || st.generates() {
		// The server's own check, before any stream starts (streamed or
		// not, the same JSON: openai-stream-overflow).
		if prompt >= l.NCtx {
			rec := MustLoad("llama-server/openai-overflow")
			b := bytes.ReplaceAll(rec.Body, []byte("(3037 tokens)"), []byte(fmt.Sprintf("(%d tokens)", prompt)))
			b = bytes.ReplaceAll(b, []byte("(2048 tokens)"), []byte(fmt.Sprintf("(%d tokens)", l.NCtx)))
			b = patchInt(patchInt(b, "n_prompt_tokens", 3037, prompt), "n_ctx", LlamaServerNCtx, l.NCtx)
			answer(w, rec.Status, rec.Header, b)
			return
		}
	}
	if !ok {
		l.noStep(w, r)
		return
	}
	l.pop()
	errUnit := sseEvent(llamaError{Error: llamaErrorBody{Code: http.StatusInternalServerError, Message: st.errMsg, Type: "server_error"}})
	switch {
	case st.hang:
		l.hang(r)
	case st.recording != "":
		rec := MustLoad(st.recording)
		units := rec.Units()
		l.stream(w, r, st, rec.Status, rec.Header, units, finalIndex(units), errUnit)
	case st.status != 0:
		l.fail(w, st.status, st.message, st.header)
	default:
		rep := *st.reply
		if len(rep.ToolCalls) > 0 {
			// The recorded model never produced one: the shape was not
			// recorded, so it is not made up here.
			l.t.Errorf("wiretest: llama-server: tool calls were not recorded from this server")
		}
		g := l.generate(req, rep, prompt)
		id := fmt.Sprintf("chatcmpl-%d", 100+l.ids.Add(1))
		created := time.Now().Unix()
		h := http.Header{"Server": {"llama.cpp"}}
		if !req.Stream {
			h.Set("Content-Type", "application/json; charset=utf-8")
			answer(w, http.StatusOK, h, l.completion(id, created, g))
			return
		}
		h.Set("Content-Type", "text/event-stream")
		units := l.streamUnits(id, created, req, g)
		l.stream(w, r, st, http.StatusOK, h, units, finalIndex(units), errUnit)
	}
}

// generation is what the server made of one request.
type generation struct {
	// thinking is the reasoning, sent apart as reasoning_content (as
	// --reasoning-format deepseek does: openai-stream-reasoning).
	thinking []string
	pieces   []string
	reason   string
	usage    llamaUsage
	timings  llamaTimings
}

// generate cuts the reply where the server would stop it (max_tokens, or
// the window full) and works out the usage and timings, updating the
// prompt cache.
func (l *LlamaServer) generate(req oaiRequest, rep Reply, prompt int) generation {
	g := generation{reason: rep.DoneReason}
	if g.reason == "" {
		g.reason = "stop"
	}
	// The server stops as soon as max_tokens are out, or the window is
	// full, with "length" even when the reply would have ended there —
	// inside the reasoning too (openai-stream-reasoning-cut).
	full := func() bool {
		n := len(g.thinking) + len(g.pieces)
		return (req.MaxTokens > 0 && n >= req.MaxTokens) || prompt+n >= l.NCtx
	}
	stopped := false
	for _, p := range rep.thinkingChunks() {
		g.thinking = append(g.thinking, p)
		if stopped = full(); stopped {
			break
		}
	}
	for _, p := range rep.chunks() {
		if stopped {
			break
		}
		g.pieces = append(g.pieces, p)
		stopped = full()
	}
	if stopped {
		g.reason = "length"
	}
	if rep.PromptTokens > 0 {
		prompt = rep.PromptTokens
	}
	output := len(g.thinking) + len(g.pieces)
	if rep.OutputTokens > 0 {
		output = rep.OutputTokens
	}

	contents := req.contents()
	l.mu.Lock()
	cache := 0
	for i := 0; i < len(contents) && i < len(l.cached) && contents[i] == l.cached[i]; i++ {
		cache += CountTokens(contents[i]) + PerMessageTokens
	}
	l.cached = contents
	l.mu.Unlock()
	// The last token is always evaluated again (cache_n 36 of 37 for a
	// repeated prompt in the recordings).
	cache = max(min(cache, prompt-1), 0)
	g.usage = llamaUsage{CompletionTokens: output, PromptTokens: prompt, TotalTokens: prompt + output}
	g.usage.PromptTokensDetails.CachedTokens = cache
	pn := prompt - cache
	g.timings = llamaTimings{CacheN: cache, PromptN: pn, PredictedN: output,
		PromptMS: float64(pn) * l.promptMSPerToken, PredictedMS: float64(output) * l.predictedMSPerToken}
	g.timings.fill()
	return g
}

// The answer types mirror the recorded field order exactly.
type (
	llamaUsage struct {
		CompletionTokens    int `json:"completion_tokens"`
		PromptTokens        int `json:"prompt_tokens"`
		TotalTokens         int `json:"total_tokens"`
		PromptTokensDetails struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	}
	llamaTimings struct {
		CacheN              int     `json:"cache_n"`
		PromptN             int     `json:"prompt_n"`
		PromptMS            float64 `json:"prompt_ms"`
		PromptPerTokenMS    float64 `json:"prompt_per_token_ms"`
		PromptPerSecond     float64 `json:"prompt_per_second"`
		PredictedN          int     `json:"predicted_n"`
		PredictedMS         float64 `json:"predicted_ms"`
		PredictedPerTokenMS float64 `json:"predicted_per_token_ms"`
		PredictedPerSecond  float64 `json:"predicted_per_second"`
	}
	llamaChunkChoice struct {
		FinishReason *string `json:"finish_reason"`
		Index        int     `json:"index"`
		// Delta is written as recorded: the role chunk's content is
		// null, the finish chunk's delta empty.
		Delta json.RawMessage `json:"delta"`
	}
	llamaChunk struct {
		Choices           []llamaChunkChoice `json:"choices"`
		Created           int64              `json:"created"`
		ID                string             `json:"id"`
		Model             string             `json:"model"`
		SystemFingerprint string             `json:"system_fingerprint"`
		Object            string             `json:"object"`
		Usage             *llamaUsage        `json:"usage,omitempty"`
		Timings           *llamaTimings      `json:"timings,omitempty"`
	}
	llamaError struct {
		Error llamaErrorBody `json:"error"`
	}
	llamaErrorBody struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Type    string `json:"type"`
	}
)

func (t *llamaTimings) fill() {
	if t.PromptN > 0 && t.PromptMS > 0 {
		t.PromptPerTokenMS = t.PromptMS / float64(t.PromptN)
		t.PromptPerSecond = 1000 * float64(t.PromptN) / t.PromptMS
	}
	if t.PredictedN > 0 && t.PredictedMS > 0 {
		t.PredictedPerTokenMS = t.PredictedMS / float64(t.PredictedN)
		t.PredictedPerSecond = 1000 * float64(t.PredictedN) / t.PredictedMS
	}
}

// streamUnits renders a generation as llama-server streams it
// (openai-stream-usage, openai-stream-nousage): a role chunk with content
// null, one chunk per piece, the finish chunk — carrying the timings when
// no usage was asked for — then, when it was, a chunk with no choices and
// both usage and timings; then [DONE].
func (l *LlamaServer) streamUnits(id string, created int64, req oaiRequest, g generation) [][]byte {
	chunk := func(d string, finish *string) llamaChunk {
		return llamaChunk{Choices: []llamaChunkChoice{{FinishReason: finish, Delta: json.RawMessage(d)}}, Created: created, ID: id,
			Model: LlamaServerModelPath, SystemFingerprint: llamaFingerprint, Object: "chat.completion.chunk"}
	}
	units := [][]byte{sseEvent(chunk(`{"role":"assistant","content":null}`, nil))}
	for _, p := range g.thinking {
		reasoning, _ := json.Marshal(p)
		units = append(units, sseEvent(chunk(`{"reasoning_content":`+string(reasoning)+`}`, nil)))
	}
	for _, p := range g.pieces {
		content, _ := json.Marshal(p)
		units = append(units, sseEvent(chunk(`{"content":`+string(content)+`}`, nil)))
	}
	reason := g.reason
	finish := chunk(`{}`, &reason)
	if !req.StreamOptions.IncludeUsage {
		finish.Timings = &g.timings
	}
	units = append(units, sseEvent(finish))
	if req.StreamOptions.IncludeUsage {
		last := chunk(`{}`, nil)
		last.Choices = []llamaChunkChoice{}
		last.Usage, last.Timings = &g.usage, &g.timings
		units = append(units, sseEvent(last))
	}
	return append(units, []byte("data: [DONE]\n\n"))
}

// completion is the stream:false answer, as in openai-nostream.
func (l *LlamaServer) completion(id string, created int64, g generation) []byte {
	type message struct {
		Role      string `json:"role"`
		Reasoning string `json:"reasoning_content,omitempty"`
		Content   string `json:"content"`
	}
	type choice struct {
		FinishReason string  `json:"finish_reason"`
		Index        int     `json:"index"`
		Message      message `json:"message"`
	}
	b, _ := json.Marshal(struct {
		Choices           []choice     `json:"choices"`
		Created           int64        `json:"created"`
		Model             string       `json:"model"`
		SystemFingerprint string       `json:"system_fingerprint"`
		Object            string       `json:"object"`
		Usage             llamaUsage   `json:"usage"`
		ID                string       `json:"id"`
		Timings           llamaTimings `json:"timings"`
	}{[]choice{{FinishReason: g.reason, Message: message{Role: "assistant", Reasoning: strings.Join(g.thinking, ""), Content: strings.Join(g.pieces, "")}}},
		created, LlamaServerModelPath, llamaFingerprint, "chat.completion", g.usage, id, g.timings})
	return b
}

// fail answers in llama-server's error shape, with the Connection: close
// its recorded errors carry. The type of a 400, 404 and 500 is the
// recorded one; llama.cpp names 503's unavailable_error.
func (l *LlamaServer) fail(w http.ResponseWriter, status int, message string, extra http.Header) {
	typ := map[int]string{http.StatusBadRequest: "invalid_request_error", http.StatusNotFound: "not_found_error",
		http.StatusServiceUnavailable: "unavailable_error"}[status]
	if typ == "" {
		typ = "server_error"
	}
	h := http.Header{"Server": {"llama.cpp"}, "Content-Type": {"application/json; charset=utf-8"}, "Connection": {"close"}}
	for k, vs := range extra {
		h[k] = vs
	}
	body, _ := json.Marshal(llamaError{Error: llamaErrorBody{Code: status, Message: message, Type: typ}})
	answer(w, status, h, body)
}
