package wiretest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/pyharness/pyharness/schemas"
)

// DefaultNumCtx is the context the Ollama test server uses when a request
// sets none: Ollama's default on a CPU-only host.
const DefaultNumCtx = 4096

// Ollama is a test server for Ollama's native API (/api/chat, /api/show,
// /api/tags, /api/ps, /api/version). It has the models of the recorded
// /api/tags ("tiny:latest").
type Ollama struct {
	*server
	// URL is the server's base URL, for api.NewClient or OLLAMA_HOST.
	URL string
	// Tools says whether the model supports tools. The recorded model
	// does not, so by default tools are refused as it refused them.
	Tools bool
	// Thinking says whether the model has the thinking capability. The
	// recorded tiny does not, so by default think: true is refused as it
	// refused it (chat-think-unsupported); set, think is accepted and
	// /api/show answers as the recorded thinking model did (show-think:
	// capabilities "thinking", trained context 4096, or Trained). Either
	// way a generated reply puts Reply.Thinking in message.thinking
	// chunks before the content, as chat-think-closed-stream does.
	Thinking bool
	// Show, when set, names the recording /api/show answers with, as
	// recorded but for its trained context when Trained is set:
	// show-tools is a model whose Go template writes tool calls
	// (Mistral's, from Ollama's docs, on the tiny model).
	Show string
	// Trained, when positive, makes the server's model the second one
	// recorded (show-tiny, trained context 4096) with this trained
	// context, and the server does what the real one did with it: a
	// num_ctx above it is silently capped to it (ps-after-numctx-8192
	// reports the capped window), a prompt longer than the capped window
	// is refused with truncate false (chat-numctx-above-trained), and with
	// shift false generation stops with done_reason "length" when prompt
	// and output fill the window. 0 keeps the first recorded model (show,
	// trained context 512) and no cap. Set it before the first request.
	Trained int
	// Weights, when set, is the path Show's recording names as the
	// model's file (its Modelfile's FROM): a local Ollama's /api/show as
	// it names its file. Unset, the path names no file, as a remote
	// server's does (the recording machine's blob may be on this one).
	Weights string
	// Slots, when positive, is how many chat requests the server answers
	// at once, as OLLAMA_NUM_PARALLEL (llama-server's -np) sets it: a
	// request beyond them waits for a free slot, as Ollama queues it.
	// ReplyDelay is how long each answer holds its slot before the reply
	// is sent, a model's generation time. HoldUntil, when positive, holds
	// every chat request until that many have been in flight at once
	// (then never again), so that a test sees a scheduler fill its slots
	// whatever the machine's speed. Peak says what was counted. Set them
	// before the first request.
	Slots      int
	ReplyDelay time.Duration
	HoldUntil  int

	models   map[string]bool
	template api.ChatResponse // the recorded done:true chunk
	dropping atomic.Bool

	mu     sync.Mutex
	loaded int // the window of the last chat, for /api/ps in Trained mode
	// What /api/create and the per-model answers keep (create.go).
	blobs    map[string][]byte
	created  map[string]created
	defaults map[string]Step
	byModel  map[string][]Step
	// conversation is the script of Conversation.
	conversation []Step
	slots        slotState
}

// Trained4096 is the trained context of the model recorded in show-tiny.
const Trained4096 = 4096

// NewOllama starts an Ollama test server, closed when t ends.
func NewOllama(t testing.TB) *Ollama {
	o := &Ollama{models: map[string]bool{}, blobs: map[string][]byte{}, created: map[string]created{},
		defaults: map[string]Step{}, byModel: map[string][]Step{}}
	var tags api.ListResponse
	if err := json.Unmarshal(MustLoad("tags").Body, &tags); err != nil {
		panic(fmt.Sprintf("wiretest: recorded tags: %v", err))
	}
	for _, m := range tags.Models {
		o.models[fullName(m.Name)] = true
	}
	units := MustLoad("chat-stream").Units()
	if err := json.Unmarshal(units[len(units)-1], &o.template); err != nil || !o.template.Done {
		panic(fmt.Sprintf("wiretest: recorded chat-stream has no done:true last chunk: %v", err))
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/chat", o.chat)
	mux.HandleFunc("POST /api/show", o.show)
	mux.HandleFunc("GET /api/tags", o.replay("tags"))
	mux.HandleFunc("GET /api/ps", o.ps)
	mux.HandleFunc("GET /api/version", o.replay("version"))
	mux.HandleFunc("POST /api/blobs/{digest}", o.blob)
	mux.HandleFunc("HEAD /api/blobs/{digest}", o.blob)
	mux.HandleFunc("POST /api/create", o.create)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		o.record(r)
		http.NotFound(w, r)
	})
	o.server = newServer(t, mux)
	o.URL = o.http.URL
	return o
}

// Push queues steps for the next chat requests.
func (o *Ollama) Push(steps ...Step) { o.push(steps...) }

// Pending returns how many pushed steps are still unused.
func (o *Ollama) Pending() int { return o.pending() }

// Requests returns every request received, in order.
func (o *Ollama) Requests() []Request { return o.log("") }

// ChatRequests returns the /api/chat requests received, in order.
func (o *Ollama) ChatRequests() []Request { return o.log("/api/chat") }

// Wait blocks until n requests (of any path) have arrived.
func (o *Ollama) Wait(ctx context.Context, n int) error { return o.wait(ctx, n) }

// Close stops the server; it is also done when the test ends.
func (o *Ollama) Close() { o.close() }

// DropChats makes every chat request, while on, end with its connection
// closed unanswered, as when the server process dies under its requests:
// the pre-flight's /api/show still answers, so a job passes its
// pre-flight and then loses its runs. Pushed steps are left for later.
func (o *Ollama) DropChats(on bool) { o.dropping.Store(on) }

func (o *Ollama) replay(name string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		o.record(r)
		rec := MustLoad(name)
		answer(w, rec.Status, rec.Header, rec.Body)
	}
}

// showName is the model an /api/show request names: "model", or the older
// "name" field.
func showName(body []byte) string {
	var req api.ShowRequest
	json.Unmarshal(body, &req)
	if req.Model != "" {
		return req.Model
	}
	return req.Name
}

// fromLine is the FROM line of a recorded /api/show's Modelfile, in its
// JSON string: the blob's absolute path up to the line's end (\n).
var fromLine = regexp.MustCompile(`\\nFROM /[^\\"]*`)

func (o *Ollama) show(w http.ResponseWriter, r *http.Request) {
	name := showName(o.record(r))
	o.mu.Lock()
	known := o.models[fullName(name)]
	o.mu.Unlock()
	if !known {
		o.fail(w, http.StatusNotFound, fmt.Sprintf("model '%s' not found", name), nil)
		return
	}
	if o.showCreated(w, name) {
		return
	}
	if o.Show != "" {
		rec := MustLoad(o.Show)
		body := rec.Body
		if o.Trained > 0 {
			// The tiny model's trained context (512), as Trained sets it.
			body = patchInt(body, "llama.context_length", 512, o.Trained)
		}
		weights := o.Weights
		if weights == "" {
			weights = filepath.Join(o.t.TempDir(), "on-the-server", "sha256-model")
		}
		path, _ := json.Marshal(weights)
		body = fromLine.ReplaceAllLiteral(body, append([]byte(`\nFROM `), bytes.Trim(path, `"`)...))
		answer(w, rec.Status, rec.Header, body)
		return
	}
	if o.Thinking || o.Trained > 0 {
		name, trained := "show-tiny", o.Trained
		if o.Thinking {
			// The thinking model was recorded from the same GGUF.
			name = "show-think"
		}
		if trained <= 0 {
			trained = Trained4096
		}
		rec := MustLoad(name)
		answer(w, rec.Status, rec.Header, patchInt(rec.Body, "llama.context_length", Trained4096, trained))
		return
	}
	rec := MustLoad("show")
	answer(w, rec.Status, rec.Header, rec.Body)
}

// ps answers /api/ps: the first model's recording, or in Trained mode the
// one taken after a chat asked for num_ctx 8192, with the window the last
// chat was given (the trained context before any chat).
func (o *Ollama) ps(w http.ResponseWriter, r *http.Request) {
	o.record(r)
	if o.Trained <= 0 {
		rec := MustLoad("ps")
		answer(w, rec.Status, rec.Header, rec.Body)
		return
	}
	o.mu.Lock()
	loaded := o.loaded
	o.mu.Unlock()
	if loaded == 0 {
		loaded = o.Trained
	}
	rec := MustLoad("ps-after-numctx-8192")
	answer(w, rec.Status, rec.Header, patchInt(rec.Body, "context_length", Trained4096, loaded))
}

// window is the context a chat request gets: its num_ctx (the default
// when it sets none), capped in Trained mode to the trained context as
// the real server caps it, without a word.
func (o *Ollama) window(req chatRequest) (n int, capped bool) {
	n = numCtx(req)
	if o.Trained > 0 && n > o.Trained {
		return o.Trained, true
	}
	return n, false
}

// chatRequest is the part of a chat request the server looks at; Truncate
// and Shift are pointers because absent means true.
type chatRequest struct {
	Model    string          `json:"model"`
	Messages []api.Message   `json:"messages"`
	Stream   *bool           `json:"stream"`
	Tools    []any           `json:"tools"`
	Options  map[string]any  `json:"options"`
	Truncate *bool           `json:"truncate"`
	Shift    *bool           `json:"shift"`
	Think    *api.ThinkValue `json:"think"`
}

func (o *Ollama) chat(w http.ResponseWriter, r *http.Request) {
	body := o.record(r)
	if o.dropping.Load() {
		o.drop(w)
		return
	}
	release, taken := o.takeSlot(r)
	if !taken {
		return
	}
	defer release()
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		o.fail(w, http.StatusBadRequest, err.Error(), nil)
		return
	}
	st, ok := o.peek()
	own, ownOK := o.modelStep(req.Model)
	if ownOK {
		st, ok = own, true
	}
	if !ok {
		// A conversation's step is its own, not the shared queue's.
		if st, ok = o.conversationStep(req.Messages); ok {
			ownOK = true
		}
	}
	if !ok || st.generates() {
		// The server's own checks, in the order Ollama makes them.
		o.mu.Lock()
		known := o.models[fullName(req.Model)]
		o.mu.Unlock()
		if !known {
			o.fail(w, http.StatusNotFound, fmt.Sprintf("model '%s' not found", req.Model), nil)
			return
		}
		if o.refuseEmbedding(w, req.Model) {
			return
		}
		if req.Think != nil && req.Think.Bool() && !o.Thinking {
			// Checked before tools, as Ollama checks it
			// (chat-think-unsupported).
			o.fail(w, http.StatusBadRequest, fmt.Sprintf("%q does not support thinking", req.Model), nil)
			return
		}
		if len(req.Tools) > 0 && !o.Tools {
			o.fail(w, http.StatusBadRequest, fmt.Sprintf("registry.ollama.ai/library/%s does not support tools", fullName(req.Model)), nil)
			return
		}
		window, capped := o.window(req)
		if o.Trained > 0 {
			o.mu.Lock()
			o.loaded = window
			o.mu.Unlock()
		}
		if req.Truncate != nil && !*req.Truncate && o.promptTokens(req, false) > window {
			name := "chat-overflow-truncate-false"
			if capped {
				name = "chat-numctx-above-trained"
			}
			rec := MustLoad(name)
			answer(w, rec.Status, rec.Header, rec.Body)
			return
		}
	}
	if !ok {
		o.noStep(w, r)
		return
	}
	if !ownOK {
		o.pop()
	}
	switch {
	case st.hang:
		o.hang(r)
	case st.recording != "":
		rec := MustLoad(st.recording)
		o.stream(w, r, st, rec.Status, rec.Header, rec.Units(), len(rec.Units())-1, errorLine(st.errMsg))
	case st.status != 0:
		o.fail(w, st.status, st.message, st.header)
	default:
		units := o.chunks(req, *st.reply)
		if req.Stream != nil && !*req.Stream {
			answer(w, http.StatusOK, http.Header{"Content-Type": {"application/json; charset=utf-8"}}, joinChunks(units))
			return
		}
		h := http.Header{"Content-Type": {"application/x-ndjson"}}
		o.stream(w, r, st, http.StatusOK, h, units, len(units)-1, errorLine(st.errMsg))
	}
}

// fail answers in Ollama's error shape, as gin's c.JSON writes it.
func (o *Ollama) fail(w http.ResponseWriter, status int, message string, extra http.Header) {
	h := http.Header{"Content-Type": {"application/json; charset=utf-8"}}
	for k, vs := range extra {
		h[k] = vs
	}
	body, _ := json.Marshal(map[string]string{"error": message})
	answer(w, status, h, body)
}

// errorLine is the line Ollama sends when generation fails after the
// output started.
func errorLine(msg string) []byte {
	b, _ := json.Marshal(map[string]string{"error": msg})
	return append(b, '\n')
}

// chunks renders a reply as Ollama streams it: thinking, then content, a
// few bytes per chunk; tool calls in a chunk of their own with done:false;
// then the done:true chunk with the reason and the metrics (durations from
// the recording).
func (o *Ollama) chunks(req chatRequest, rep Reply) [][]byte {
	var out []api.ChatResponse
	msg := func(m api.Message) api.ChatResponse {
		m.Role = "assistant"
		return api.ChatResponse{Model: req.Model, CreatedAt: time.Now().UTC(), Message: m}
	}
	limit := numPredict(req)
	// In Trained mode with shift false, the runner stops when prompt and
	// output fill the window (chat-length-shift-false), with the reason a
	// num_predict stop has.
	room := -1 // no limit
	if window, _ := o.window(req); o.Trained > 0 && req.Shift != nil && !*req.Shift {
		room = max(window-o.promptTokens(req, true), 0)
	}
	reason := rep.DoneReason
	generated := 0
	emit := func(parts []string, thinking bool) {
		for _, p := range parts {
			if (limit > 0 && generated >= limit) || (room >= 0 && generated >= room) {
				reason = "length"
				return
			}
			generated++
			if thinking {
				out = append(out, msg(api.Message{Thinking: p}))
			} else {
				out = append(out, msg(api.Message{Content: p}))
			}
		}
	}
	emit(rep.thinkingChunks(), true)
	emit(rep.chunks(), false)
	if len(rep.ToolCalls) > 0 {
		var calls []api.ToolCall
		for i, tc := range rep.ToolCalls {
			calls = append(calls, toolCall(i, tc))
		}
		out = append(out, msg(api.Message{ToolCalls: calls}))
	}
	if reason == "" {
		reason = "stop"
	}
	last := msg(api.Message{})
	last.Done, last.DoneReason = true, reason
	last.Metrics = o.template.Metrics
	last.PromptEvalCount = o.promptTokens(req, true)
	if rep.PromptTokens > 0 {
		last.PromptEvalCount = rep.PromptTokens
	}
	last.EvalCount = generated
	if rep.OutputTokens > 0 {
		last.EvalCount = rep.OutputTokens
	}
	out = append(out, last)

	units := make([][]byte, len(out))
	for i, c := range out {
		b, err := json.Marshal(c)
		if err != nil {
			panic(fmt.Sprintf("wiretest: encode chunk: %v", err))
		}
		units[i] = append(b, '\n')
	}
	return units
}

func toolCall(i int, tc schemas.ToolCall) api.ToolCall {
	args := api.NewToolCallFunctionArguments()
	for k, v := range tc.Arguments {
		args.Set(k, v)
	}
	id := tc.ID
	if id == "" {
		id = fmt.Sprintf("call_%d", i)
	}
	return api.ToolCall{ID: id, Function: api.ToolCallFunction{Index: i, Name: tc.Name, Arguments: args}}
}

// joinChunks makes the stream:false answer: one object with the joined
// message and the last chunk's metrics.
func joinChunks(units [][]byte) []byte {
	var all api.ChatResponse
	var content, thinking strings.Builder
	for _, u := range units {
		var c api.ChatResponse
		json.Unmarshal(u, &c)
		content.WriteString(c.Message.Content)
		thinking.WriteString(c.Message.Thinking)
		all.Message.ToolCalls = append(all.Message.ToolCalls, c.Message.ToolCalls...)
		if c.Done {
			tc := all.Message.ToolCalls
			all = c
			all.Message.ToolCalls = tc
		}
	}
	all.Message.Content, all.Message.Thinking = content.String(), thinking.String()
	b, _ := json.Marshal(all)
	return bytes.TrimSpace(b)
}

// promptTokens counts the prompt as the server does. With truncate
// allowed, it drops whole old messages (never the system prompt or the
// last message) until the prompt fits, and a single message still too long
// is cut in the runner: the count is then num_ctx.
func (o *Ollama) promptTokens(req chatRequest, mayTruncate bool) int {
	var contents []string
	for _, m := range req.Messages {
		contents = append(contents, m.Content)
	}
	n := CountPrompt(contents)
	limit, _ := o.window(req)
	if !mayTruncate || n <= limit {
		return n
	}
	if req.Truncate != nil && !*req.Truncate {
		return n
	}
	kept := append([]api.Message(nil), req.Messages...)
	for n > limit {
		i := 0
		for i < len(kept)-1 && kept[i].Role == "system" {
			i++
		}
		if i >= len(kept)-1 {
			return limit
		}
		n -= CountTokens(kept[i].Content) + PerMessageTokens
		kept = append(kept[:i], kept[i+1:]...)
	}
	return n
}

func numCtx(req chatRequest) int {
	if n, ok := req.Options["num_ctx"].(float64); ok && n > 0 {
		return int(n)
	}
	return DefaultNumCtx
}

func numPredict(req chatRequest) int {
	if n, ok := req.Options["num_predict"].(float64); ok && n > 0 {
		return int(n)
	}
	return 0
}

// fullName adds the tag Ollama assumes when a name has none.
func fullName(name string) string {
	if i := strings.LastIndex(name, "/"); !strings.Contains(name[i+1:], ":") {
		return name + ":latest"
	}
	return name
}

// patchInt replaces "key":from with "key":to in a recorded body, so a
// server set to another figure sends the recorded bytes otherwise
// unchanged. It panics when the recording has no such field: the test
// server would otherwise answer with a figure it was not set to.
func patchInt(body []byte, key string, from, to int) []byte {
	old := []byte(`"` + key + `":` + strconv.Itoa(from))
	if !bytes.Contains(body, old) {
		panic(fmt.Sprintf("wiretest: recording has no %s", old))
	}
	if from == to {
		return body
	}
	return bytes.ReplaceAll(body, old, []byte(`"`+key+`":`+strconv.Itoa(to)))
}
