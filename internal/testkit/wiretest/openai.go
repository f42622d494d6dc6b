package wiretest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	ollamaopenai "github.com/ollama/ollama/openai"
)

// OpenAI is a test server for the OpenAI-compatible API as Ollama serves it
// (/v1/chat/completions, /v1/models, /v1/models/{model}), in the recorded
// shapes, with Ollama's own /api/show, /api/tags and /api/version beside
// it, as the real server has them: the model behind it is the one of
// show-tiny (trained context 4096).
type OpenAI struct {
	*server
	// URL is the base URL to give a client, ending in /v1.
	URL string
	// ContextLength, when positive, makes the server refuse a prompt whose
	// token count (CountPrompt) plus max_tokens exceeds it, as vLLM and the
	// OpenAI API do.
	ContextLength int
	// Window, when positive, is the context Ollama applies to /v1
	// requests (no num_ctx can be sent there): a longer prompt is cut
	// without a word, whole old messages dropped (never the system prompt
	// or the last message) until it fits, and usage.prompt_tokens counts
	// what was kept (openai-silent-truncation).
	Window int

	models map[string]bool
	ids    atomic.Int64
}

// NewOpenAI starts an OpenAI-compatible test server, closed when t ends.
// It knows the recorded model ("tiny").
func NewOpenAI(t testing.TB) *OpenAI {
	o := &OpenAI{models: map[string]bool{"tiny": true, "tiny:latest": true}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", o.chat)
	mux.HandleFunc("GET /v1/models/{model...}", o.model)
	mux.HandleFunc("GET /v1/models", o.list)
	mux.HandleFunc("POST /api/show", o.show)
	mux.HandleFunc("GET /api/tags", o.replay("tags"))
	mux.HandleFunc("GET /api/version", o.replay("version"))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		o.record(r)
		http.NotFound(w, r)
	})
	o.server = newServer(t, mux)
	o.URL = o.http.URL + "/v1"
	return o
}

// Push queues steps for the next chat requests.
func (o *OpenAI) Push(steps ...Step) { o.push(steps...) }

// Pending returns how many pushed steps are still unused.
func (o *OpenAI) Pending() int { return o.pending() }

// Requests returns every request received, in order.
func (o *OpenAI) Requests() []Request { return o.log("") }

// ChatRequests returns the /v1/chat/completions requests, in order.
func (o *OpenAI) ChatRequests() []Request { return o.log("/v1/chat/completions") }

// Wait blocks until n requests (of any path) have arrived.
func (o *OpenAI) Wait(ctx context.Context, n int) error { return o.wait(ctx, n) }

// Close stops the server; it is also done when the test ends.
func (o *OpenAI) Close() { o.close() }

func (o *OpenAI) model(w http.ResponseWriter, r *http.Request) {
	o.record(r)
	name := r.PathValue("model")
	if !o.models[name] {
		o.fail(w, http.StatusNotFound, fmt.Sprintf("model '%s' not found", name), "api_error", "", nil)
		return
	}
	body, _ := json.Marshal(map[string]any{"id": name, "object": "model", "created": 1795991369, "owned_by": "library"})
	answer(w, http.StatusOK, http.Header{"Content-Type": {"application/json"}}, body)
}

// list answers GET /v1/models as Ollama does: its /api/tags (the
// recording) turned into an OpenAI list by Ollama's own conversion.
func (o *OpenAI) list(w http.ResponseWriter, r *http.Request) {
	o.record(r)
	var tags api.ListResponse
	if err := json.Unmarshal(MustLoad("tags").Body, &tags); err != nil {
		panic(fmt.Sprintf("wiretest: recorded tags: %v", err))
	}
	body, _ := json.Marshal(ollamaopenai.ToListCompletion(tags))
	answer(w, http.StatusOK, http.Header{"Content-Type": {"application/json"}}, body)
}

// show answers Ollama's /api/show for the model behind /v1 (show-tiny).
func (o *OpenAI) show(w http.ResponseWriter, r *http.Request) {
	name := showName(o.record(r))
	if !o.models[name] {
		b, _ := json.Marshal(map[string]string{"error": fmt.Sprintf("model '%s' not found", name)})
		answer(w, http.StatusNotFound, http.Header{"Content-Type": {"application/json; charset=utf-8"}}, b)
		return
	}
	rec := MustLoad("show-tiny")
	answer(w, rec.Status, rec.Header, rec.Body)
}

func (o *OpenAI) replay(name string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		o.record(r)
		rec := MustLoad(name)
		answer(w, rec.Status, rec.Header, rec.Body)
	}
}

type oaiRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Stream        bool `json:"stream"`
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	MaxTokens int   `json:"max_tokens"`
	Tools     []any `json:"tools"`
}

func (req oaiRequest) promptTokens() int {
	return CountPrompt(req.contents())
}

func (req oaiRequest) contents() []string {
	var contents []string
	for _, m := range req.Messages {
		var s string
		if json.Unmarshal(m.Content, &s) != nil {
			s = string(m.Content) // content parts: count their JSON
		}
		contents = append(contents, s)
	}
	return contents
}

// keptTokens is the prompt Ollama evaluates in a window: whole old
// messages dropped, never the system prompt or the last message, until
// the rest fits (the count is the window when one message alone is too
// long: the runner cuts it).
func (req oaiRequest) keptTokens(window int) int {
	contents := req.contents()
	n := CountPrompt(contents)
	if window <= 0 || n <= window {
		return n
	}
	for i, m := range req.Messages {
		if i == len(req.Messages)-1 || n <= window {
			break
		}
		if m.Role == "system" {
			continue
		}
		n -= CountTokens(contents[i]) + PerMessageTokens
	}
	return min(n, window)
}

func (o *OpenAI) chat(w http.ResponseWriter, r *http.Request) {
	body := o.record(r)
	var req oaiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		o.fail(w, http.StatusBadRequest, err.Error(), "invalid_request_error", "", nil)
		return
	}
	st, ok := o.peek()
	if !ok || st.generates() {
		if !o.models[req.Model] {
			o.fail(w, http.StatusNotFound, fmt.Sprintf("model '%s' not found", req.Model), "api_error", "", nil)
			return
		}
		if n := req.promptTokens(); o.ContextLength > 0 && n+req.MaxTokens > o.ContextLength {
			o.fail(w, http.StatusBadRequest, fmt.Sprintf("This model's maximum context length is %d tokens. However, you requested %d tokens (%d in the messages, %d in the completion). Please reduce the length of the messages or completion.", o.ContextLength, n+req.MaxTokens, n, req.MaxTokens), "invalid_request_error", "context_length_exceeded", nil)
			return
		}
	}
	if !ok {
		o.noStep(w, r)
		return
	}
	o.pop()
	errUnit := sseEvent(map[string]any{"error": map[string]any{"message": st.errMsg, "type": "api_error", "param": nil, "code": nil}})
	switch {
	case st.hang:
		o.hang(r)
	case st.recording != "":
		rec := MustLoad(st.recording)
		units := rec.Units()
		o.stream(w, r, st, rec.Status, rec.Header, units, finalIndex(units), errUnit)
	case st.status != 0:
		o.fail(w, st.status, st.message, "api_error", "", st.header)
	default:
		id := fmt.Sprintf("chatcmpl-%d", 100+o.ids.Add(1))
		created := time.Now().Unix()
		rep := *st.reply
		if o.Window > 0 && rep.PromptTokens == 0 {
			rep.PromptTokens = req.keptTokens(o.Window)
		}
		if !req.Stream {
			body, _ := json.Marshal(completion(id, created, req, rep))
			answer(w, http.StatusOK, http.Header{"Content-Type": {"application/json"}}, body)
			return
		}
		units := streamUnits(id, created, req, rep)
		o.stream(w, r, st, http.StatusOK, http.Header{"Content-Type": {"text/event-stream"}}, units, finalIndex(units), errUnit)
	}
}

// finalIndex is the first unit WithoutDone leaves out: the chunk with the
// finish_reason, then usage and [DONE].
func finalIndex(units [][]byte) int {
	for i, u := range units {
		if strings.Contains(string(u), `"finish_reason":"`) {
			return i
		}
	}
	return len(units)
}

// fail answers in the OpenAI error shape Ollama uses.
func (o *OpenAI) fail(w http.ResponseWriter, status int, message, typ, code string, extra http.Header) {
	h := http.Header{"Content-Type": {"application/json"}}
	for k, vs := range extra {
		h[k] = vs
	}
	var c any
	if code != "" {
		c = code
	}
	body, _ := json.Marshal(map[string]any{"error": oaiError{Message: message, Type: typ, Param: nil, Code: c}})
	answer(w, status, h, append(body, '\n'))
}

type oaiError struct {
	Message string `json:"message"`
	Type    string `json:"type"`
	Param   any    `json:"param"`
	Code    any    `json:"code"`
}

// The chunk types mirror the recorded field order exactly.
type (
	oaiChunk struct {
		ID                string      `json:"id"`
		Object            string      `json:"object"`
		Created           int64       `json:"created"`
		Model             string      `json:"model"`
		SystemFingerprint string      `json:"system_fingerprint"`
		Choices           []oaiChoice `json:"choices"`
		Usage             *oaiUsage   `json:"usage,omitempty"`
	}
	oaiChoice struct {
		Index        int      `json:"index"`
		Delta        oaiDelta `json:"delta"`
		FinishReason *string  `json:"finish_reason"`
	}
	oaiDelta struct {
		Role      string        `json:"role"`
		Content   string        `json:"content"`
		Reasoning string        `json:"reasoning,omitempty"`
		ToolCalls []oaiToolCall `json:"tool_calls,omitempty"`
	}
	oaiToolCall struct {
		ID       string `json:"id,omitempty"`
		Index    int    `json:"index"`
		Type     string `json:"type,omitempty"`
		Function struct {
			Name      string `json:"name,omitempty"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	}
	oaiUsage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	}
)

func sseEvent(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("wiretest: encode event: %v", err))
	}
	return []byte("data: " + string(b) + "\n\n")
}

// streamUnits renders a reply as SSE events in the recorded shape: one
// delta per few bytes, tool calls with their arguments split over two
// deltas (as the OpenAI API streams them), the finish chunk, the usage
// chunk when asked for, and [DONE].
func streamUnits(id string, created int64, req oaiRequest, rep Reply) [][]byte {
	chunk := func(d oaiDelta, finish *string) oaiChunk {
		d.Role = "assistant"
		return oaiChunk{ID: id, Object: "chat.completion.chunk", Created: created, Model: req.Model, SystemFingerprint: "fp_ollama",
			Choices: []oaiChoice{{Delta: d, FinishReason: finish}}}
	}
	var units [][]byte
	generated, reason := 0, rep.DoneReason
	emit := func(parts []string, thinking bool) {
		for _, p := range parts {
			if req.MaxTokens > 0 && generated >= req.MaxTokens {
				reason = "length"
				return
			}
			generated++
			if thinking {
				units = append(units, sseEvent(chunk(oaiDelta{Reasoning: p}, nil)))
			} else {
				units = append(units, sseEvent(chunk(oaiDelta{Content: p}, nil)))
			}
		}
	}
	emit(rep.thinkingChunks(), true)
	emit(rep.chunks(), false)
	for i, tc := range rep.ToolCalls {
		args, _ := json.Marshal(tc.Arguments)
		half := len(args) / 2
		first := oaiToolCall{ID: tc.ID, Index: i, Type: "function"}
		if first.ID == "" {
			first.ID = fmt.Sprintf("call_%d", i)
		}
		first.Function.Name, first.Function.Arguments = tc.Name, string(args[:half])
		rest := oaiToolCall{Index: i}
		rest.Function.Arguments = string(args[half:])
		units = append(units, sseEvent(chunk(oaiDelta{ToolCalls: []oaiToolCall{first}}, nil)))
		units = append(units, sseEvent(chunk(oaiDelta{ToolCalls: []oaiToolCall{rest}}, nil)))
	}
	if reason == "" {
		reason = "stop"
		if len(rep.ToolCalls) > 0 {
			reason = "tool_calls"
		}
	}
	units = append(units, sseEvent(chunk(oaiDelta{}, &reason)))
	if req.StreamOptions.IncludeUsage {
		u := usage(req, rep, generated)
		units = append(units, sseEvent(oaiChunk{ID: id, Object: "chat.completion.chunk", Created: created, Model: req.Model,
			SystemFingerprint: "fp_ollama", Choices: []oaiChoice{}, Usage: &u}))
	}
	return append(units, []byte("data: [DONE]\n\n"))
}

func usage(req oaiRequest, rep Reply, generated int) oaiUsage {
	u := oaiUsage{PromptTokens: req.promptTokens(), CompletionTokens: generated}
	if rep.PromptTokens > 0 {
		u.PromptTokens = rep.PromptTokens
	}
	if rep.OutputTokens > 0 {
		u.CompletionTokens = rep.OutputTokens
	}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	return u
}

// completion is the stream:false answer, as in openai-nostream.
func completion(id string, created int64, req oaiRequest, rep Reply) any {
	type message struct {
		Role      string        `json:"role"`
		Content   string        `json:"content"`
		Reasoning string        `json:"reasoning,omitempty"`
		ToolCalls []oaiToolCall `json:"tool_calls,omitempty"`
	}
	type choice struct {
		Index        int     `json:"index"`
		Message      message `json:"message"`
		FinishReason string  `json:"finish_reason"`
	}
	units := streamUnits(id, created, oaiRequest{Model: req.Model, MaxTokens: req.MaxTokens, Messages: req.Messages}, rep)
	var m message
	m.Role = "assistant"
	reason := "stop"
	generated := 0
	for _, u := range units {
		var c oaiChunk
		if json.Unmarshal([]byte(strings.TrimPrefix(strings.TrimSpace(string(u)), "data: ")), &c) != nil || len(c.Choices) == 0 {
			continue
		}
		d := c.Choices[0].Delta
		if d.Content != "" || d.Reasoning != "" {
			generated++
		}
		m.Content += d.Content
		m.Reasoning += d.Reasoning
		for _, tc := range d.ToolCalls {
			if tc.ID != "" {
				m.ToolCalls = append(m.ToolCalls, tc)
			} else if n := len(m.ToolCalls); n > 0 {
				m.ToolCalls[n-1].Function.Arguments += tc.Function.Arguments
			}
		}
		if f := c.Choices[0].FinishReason; f != nil {
			reason = *f
		}
	}
	return struct {
		ID                string   `json:"id"`
		Object            string   `json:"object"`
		Created           int64    `json:"created"`
		Model             string   `json:"model"`
		SystemFingerprint string   `json:"system_fingerprint"`
		Choices           []choice `json:"choices"`
		Usage             oaiUsage `json:"usage"`
	}{id, "chat.completion", created, req.Model, "fp_ollama", []choice{{Message: m, FinishReason: reason}}, usage(req, rep, generated)}
}
