package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/respjson"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/shared"

	"github.com/pyharness/pyharness/harness/model"
	"github.com/pyharness/pyharness/harness/model/internal/httpwatch"
	"github.com/pyharness/pyharness/schemas"
)

// defaultIdleTimeout is how long a request may go without a byte from the
// server; generous, since a local server may load the model first.
const defaultIdleTimeout = 5 * time.Minute

// Config configures a Client.
type Config struct {
	// BaseURL is the endpoint's base, ending in /v1
	// (e.g. http://127.0.0.1:11434/v1).
	BaseURL string
	// APIKey is the key's value; the caller reads it from the environment
	// variable the user named. Empty sends no key.
	APIKey string
	Model  string
	// HTTPClient is the client whose transport is used; its Timeout is
	// ignored (see IdleTimeout). Nil means http.DefaultTransport.
	HTTPClient *http.Client
	// IdleTimeout ends an attempt that received no byte for this long;
	// defaultIdleTimeout when 0.
	IdleTimeout time.Duration
	Retry       model.Retry
}

// Client is the OpenAI-compatible backend.
type Client struct {
	client oai.Client
	http   *http.Client
	apiKey string
	base   string
	model  string
	idle   time.Duration
	retry  model.Retry
}

// New returns a backend for cfg.Model at cfg.BaseURL.
func New(cfg Config) (*Client, error) {
	if cfg.Model == "" {
		return nil, errors.New("new openai backend: no model name")
	}
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("new openai backend: base URL %q is not an absolute URL", cfg.BaseURL)
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = defaultIdleTimeout
	}
	httpc := httpwatch.Client(cfg.HTTPClient)
	opts := []option.RequestOption{
		option.WithBaseURL(cfg.BaseURL),
		option.WithHTTPClient(httpc),
		option.WithMaxRetries(0),
		// Set even when empty, so a stray OPENAI_API_KEY in the
		// environment is never sent to a server the user did not mean.
		option.WithAPIKey(cfg.APIKey),
	}
	if cfg.APIKey == "" {
		opts = append(opts, option.WithHeaderDel("Authorization"))
	}
	return &Client{
		client: oai.NewClient(opts...),
		http:   httpc,
		apiKey: cfg.APIKey,
		base:   cfg.BaseURL,
		model:  cfg.Model,
		idle:   cfg.IdleTimeout,
		retry:  cfg.Retry,
	}, nil
}

// Chat sends req and gathers the streamed reply, retrying transport faults.
func (c *Client) Chat(ctx context.Context, req model.Request) (model.Reply, error) {
	params, err := c.params(req)
	if err != nil {
		return model.Reply{}, err
	}
	return c.retry.ForRequest(req).Do(ctx, func(ctx context.Context) (model.Reply, error) {
		return c.attempt(ctx, params)
	})
}

func (c *Client) params(req model.Request) (oai.ChatCompletionNewParams, error) {
	p := oai.ChatCompletionNewParams{
		Model:       shared.ChatModel(c.model),
		Seed:        oai.Int(int64(req.Options.Seed)),
		Temperature: oai.Float(req.Options.Temperature),
		StreamOptions: oai.ChatCompletionStreamOptionsParam{
			IncludeUsage: oai.Bool(true),
		},
	}
	if req.Options.Think {
		// The OpenAI API has no switch for thinking. llama-server (b5929)
		// and vLLM hand chat_template_kwargs to the chat template, whose
		// enable_thinking (Qwen3's, for one) decides whether the prompt
		// leaves the model room to think; a template without it, and
		// Ollama's /v1, ignore it. Whether the thinking comes back apart
		// (reasoning_content) is the server's own setting
		// (llama-server's --reasoning-format).
		p.SetExtraFields(map[string]any{"chat_template_kwargs": map[string]any{"enable_thinking": true}})
	}
	if req.Options.NumPredict > 0 {
		// 0 and -1 mean "no limit" to Ollama but are invalid here.
		p.MaxTokens = oai.Int(int64(req.Options.NumPredict))
	}
	for _, m := range req.Messages {
		msg, err := toMessage(m)
		if err != nil {
			return p, model.NewError(model.CodeBadRequest, err.Error(), err)
		}
		p.Messages = append(p.Messages, msg)
	}
	for _, t := range req.Tools {
		fn := shared.FunctionDefinitionParam{Name: t.Name, Parameters: shared.FunctionParameters(t.Parameters)}
		if t.Description != "" {
			fn.Description = oai.String(t.Description)
		}
		p.Tools = append(p.Tools, oai.ChatCompletionToolUnionParam{OfFunction: &oai.ChatCompletionFunctionToolParam{Function: fn}})
	}
	return p, nil
}

func toMessage(m schemas.Message) (oai.ChatCompletionMessageParamUnion, error) {
	switch m.Role {
	case "system":
		return oai.SystemMessage(m.Content), nil
	case "user":
		return oai.UserMessage(m.Content), nil
	case "tool":
		return oai.ToolMessage(m.Content, m.ToolCallID), nil
	case "assistant":
		msg := oai.AssistantMessage(m.Content)
		for _, tc := range m.ToolCalls {
			args, err := json.Marshal(tc.Arguments)
			if err != nil {
				return msg, fmt.Errorf("encode arguments of tool call %s: %w", tc.Name, err)
			}
			msg.OfAssistant.ToolCalls = append(msg.OfAssistant.ToolCalls, oai.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &oai.ChatCompletionMessageFunctionToolCallParam{
					ID:       tc.ID,
					Function: oai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: string(args)},
				},
			})
		}
		return msg, nil
	}
	return oai.ChatCompletionMessageParamUnion{}, fmt.Errorf("message role %q is not system, user, assistant or tool", m.Role)
}

// attempt is one streamed call to /chat/completions.
func (c *Client) attempt(ctx context.Context, params oai.ChatCompletionNewParams) (model.Reply, error) {
	actx, ex, stop := httpwatch.Start(ctx, c.idle)
	defer stop()

	start := time.Now()
	var (
		reply    model.Reply
		acc      oai.ChatCompletionAccumulator
		thinking strings.Builder
		first    bool
		usage    *oai.CompletionUsage // the last usage sent, nil if none
		timings  *serverTimings       // llama-server's, nil if none
	)
	stream := c.client.Chat.Completions.NewStreaming(actx, params)
	defer stream.Close()
	for stream.Next() {
		chunk := stream.Current()
		if !acc.AddChunk(chunk) {
			// Dropping the chunk would hand back a reply with a hole in it.
			return model.Reply{}, model.NewError(model.CodeBadResponse, fmt.Sprintf("the stream sent a chunk that does not belong to it (id %q)", chunk.ID), nil)
		}
		// Servers differ in where they put the figures: Ollama and
		// llama-server send usage in a chunk of its own (choices: []),
		// llama-server its timings there or, without include_usage, on
		// the finish chunk. Whichever chunk has them, they are kept.
		if chunk.JSON.Usage.Valid() {
			u := chunk.Usage
			usage = &u
		}
		if t := readTimings(chunk.JSON.ExtraFields); t != nil {
			timings = t
		}
		for _, ch := range chunk.Choices {
			if ch.Index != 0 {
				continue
			}
			r := reasoning(ch.Delta)
			thinking.WriteString(r)
			if !first && (ch.Delta.Content != "" || r != "" || len(ch.Delta.ToolCalls) > 0) {
				first = true
				reply.Metrics.TTFTMS = new(time.Since(start).Milliseconds())
			}
		}
	}
	if err := stream.Err(); err != nil {
		return model.Reply{}, classify(ctx, actx, ex, err)
	}
	if len(acc.Choices) == 0 || acc.Choices[0].FinishReason == "" {
		// The SDK reports a stream that closed before [DONE] as a clean
		// end; without a finish_reason the reply cannot be whole.
		if e := classify(ctx, actx, ex, nil); e != nil {
			return model.Reply{}, e
		}
		return model.Reply{}, model.NewError(model.CodeStreamCut, "the stream ended without a finish_reason", nil)
	}
	choice := acc.Choices[0]
	reply.Content = choice.Message.Content
	reply.Thinking = thinking.String()
	reply.FinishReason = choice.FinishReason
	for _, tc := range choice.Message.ToolCalls {
		call, err := fromToolCall(tc)
		if err != nil {
			return model.Reply{}, model.NewError(model.CodeBadResponse, err.Error(), err)
		}
		reply.ToolCalls = append(reply.ToolCalls, call)
	}
	recordFigures(&reply.Metrics, usage, timings)
	// The total is measured here; durations the server did not send (the
	// OpenAI API has none; llama-server sends its timings) stay absent.
	reply.Metrics.TotalMS = time.Since(start).Milliseconds()
	return reply, nil
}

// serverTimings is the part of llama-server's timings object kept: the
// prompt it evaluated (prompt_n, the cached prefix cache_n left out) and
// the output it predicted, with their durations in milliseconds.
type serverTimings struct {
	CacheN      *int     `json:"cache_n"`
	PromptN     *int     `json:"prompt_n"`
	PromptMS    *float64 `json:"prompt_ms"`
	PredictedN  *int     `json:"predicted_n"`
	PredictedMS *float64 `json:"predicted_ms"`
}

// readTimings reads a timings object from a chunk's fields the SDK does
// not know; nil when there is none.
func readTimings(extra map[string]respjson.Field) *serverTimings {
	f, ok := extra["timings"]
	if !ok {
		return nil
	}
	var t serverTimings
	if json.Unmarshal([]byte(f.Raw()), &t) != nil {
		return nil
	}
	return &t
}

// recordFigures puts what the server reported into m, and nothing it did
// not: usage's prompt_tokens is the whole prompt, timings' prompt_n the
// part evaluated for this request, cache_n (or usage's cached_tokens) the
// part reused from the prompt cache.
func recordFigures(m *schemas.Metrics, u *oai.CompletionUsage, t *serverTimings) {
	if u != nil && u.JSON.PromptTokens.Valid() {
		m.PromptTokens = new(int(u.PromptTokens))
	}
	if u != nil && u.JSON.CompletionTokens.Valid() {
		m.OutputTokens = new(int(u.CompletionTokens))
	}
	if u != nil && u.PromptTokensDetails.JSON.CachedTokens.Valid() {
		m.CachedTokens = new(int(u.PromptTokensDetails.CachedTokens))
	}
	if t == nil {
		return
	}
	ms := func(f *float64) *int64 {
		if f == nil {
			return nil
		}
		return new(int64(math.Round(*f)))
	}
	m.PromptEvalTokens = t.PromptN
	if t.CacheN != nil {
		m.CachedTokens = t.CacheN
	}
	m.PromptEvalMS, m.EvalMS = ms(t.PromptMS), ms(t.PredictedMS)
	if m.OutputTokens == nil {
		m.OutputTokens = t.PredictedN
	}
}

// reasoning returns the thinking text of a delta: OpenAI-compatible servers
// put it in a field the official API does not have ("reasoning" in Ollama,
// "reasoning_content" in vLLM and llama.cpp).
func reasoning(d oai.ChatCompletionChunkChoiceDelta) string {
	for _, name := range []string{"reasoning", "reasoning_content"} {
		// Extra fields are never Valid (the SDK has no type for them), so
		// the raw JSON is all there is.
		f, ok := d.JSON.ExtraFields[name]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal([]byte(f.Raw()), &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

func fromToolCall(tc oai.ChatCompletionMessageToolCallUnion) (schemas.ToolCall, error) {
	args := map[string]any{}
	if raw := strings.TrimSpace(tc.Function.Arguments); raw != "" {
		if err := json.Unmarshal([]byte(raw), &args); err != nil {
			return schemas.ToolCall{}, fmt.Errorf("arguments of tool call %s are not a JSON object: %w", tc.Function.Name, err)
		}
	}
	return schemas.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: args}, nil
}

// classify turns how an attempt ended into an *Error; nil when err is nil
// and nothing else went wrong. ctx is the caller's, actx the attempt's.
func classify(ctx, actx context.Context, ex *httpwatch.Exchange, err error) *model.Error {
	if e := httpwatch.Interrupted(ctx, actx, err); e != nil {
		return e
	}
	var ae *oai.Error
	if errors.As(err, &ae) {
		msg := ae.Message
		if ae.Code == "context_length_exceeded" && !strings.Contains(msg, "context") {
			msg = ae.Code + ": " + msg
		}
		var h http.Header
		if ae.Response != nil {
			h = ae.Response.Header
		}
		e := model.FromStatus(ae.StatusCode, msg, h)
		e.Err = err
		// llama-server says what it counted and what its window is
		// (exceed_context_size_error); Ollama's message says neither.
		e.PromptTokens = extraInt(ae.JSON.ExtraFields, "n_prompt_tokens")
		e.ContextInForce = extraInt(ae.JSON.ExtraFields, "n_ctx")
		return e
	}
	if e := httpwatch.Dropped(ex, err); e != nil {
		return e
	}
	if err == nil {
		return nil
	}
	if e := httpwatch.Unreachable(err); e != nil {
		return e
	}
	var se *ssestream.StreamError
	if errors.As(err, &se) {
		// An error event in a stream that started with 200: the server
		// gave up mid-reply (llama-server sends no finish_reason, usage
		// or [DONE] after it). The partial reply is not one.
		return model.NewError(model.CodeStreamError, streamErrorMessage(se), err)
	}
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return model.NewError(model.CodeBadResponse, "a chunk that is not a chat completion chunk: "+err.Error(), err)
	}
	return model.NewError(model.CodeServerError, err.Error(), err)
}

// errorMessage reads an error body in the OpenAI shape ({"error":
// {"message": …}}) or Ollama's ({"error": "…"}); the body itself
// otherwise.
func errorMessage(b []byte) string {
	var v struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(b, &v) == nil && len(v.Error) > 0 {
		var s string
		if json.Unmarshal(v.Error, &s) == nil {
			return s
		}
		var o struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(v.Error, &o) == nil && o.Message != "" {
			return o.Message
		}
	}
	return strings.TrimSpace(string(b))
}

// extraInt reads an integer field the SDK does not know; 0 when absent.
func extraInt(extra map[string]respjson.Field, key string) int {
	f, ok := extra[key]
	if !ok {
		return 0
	}
	var n int
	json.Unmarshal([]byte(f.Raw()), &n)
	return n
}

// streamErrorMessage is the server's own message of an error event, with
// the code it gave (llama-server's {"error": {"code": 500, "message": …}},
// Ollama's {"error": {"message": …}}).
func streamErrorMessage(se *ssestream.StreamError) string {
	var ev struct {
		Error struct {
			Code    any    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(se.Event.Data, &ev) != nil || ev.Error.Message == "" {
		return "an error event mid-stream: " + string(se.Event.Data)
	}
	if ev.Error.Code != nil {
		return fmt.Sprintf("an error event mid-stream (code %v): %s", ev.Error.Code, ev.Error.Message)
	}
	return "an error event mid-stream: " + ev.Error.Message
}
