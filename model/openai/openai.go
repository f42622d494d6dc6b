package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/shared"

	"github.com/pyharness/pyharness/model"
	"github.com/pyharness/pyharness/model/internal/httpwatch"
	"github.com/pyharness/pyharness/schemas"
)

// DefaultIdleTimeout is how long a request may go without a byte from the
// server; generous, since a local server may load the model first.
const DefaultIdleTimeout = 5 * time.Minute

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
	// DefaultIdleTimeout when 0.
	IdleTimeout time.Duration
	Retry       model.Retry
}

// Client is the OpenAI-compatible backend.
type Client struct {
	client oai.Client
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
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	opts := []option.RequestOption{
		option.WithBaseURL(cfg.BaseURL),
		option.WithHTTPClient(httpwatch.Client(cfg.HTTPClient)),
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
	return c.retry.Do(ctx, func(ctx context.Context) (model.Reply, error) {
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
	)
	stream := c.client.Chat.Completions.NewStreaming(actx, params)
	defer stream.Close()
	for stream.Next() {
		chunk := stream.Current()
		if !acc.AddChunk(chunk) {
			// Dropping the chunk would hand back a reply with a hole in it.
			return model.Reply{}, model.NewError(model.CodeBadResponse, fmt.Sprintf("the stream sent a chunk that does not belong to it (id %q)", chunk.ID), nil)
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
	// The accumulator keeps no trace of whether a usage chunk came; a
	// prompt always has at least one token, so 0 means none did.
	if acc.Usage.PromptTokens > 0 {
		reply.Metrics.PromptTokens = new(int(acc.Usage.PromptTokens))
		reply.Metrics.OutputTokens = new(int(acc.Usage.CompletionTokens))
	}
	// The API reports no durations: the total is measured here, the rest
	// stay absent rather than guessed.
	reply.Metrics.TotalMS = time.Since(start).Milliseconds()
	return reply, nil
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
		// An error event after the output started (status 200).
		return model.NewError(model.CodeServerError, se.Message, err)
	}
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return model.NewError(model.CodeBadResponse, "a chunk that is not a chat completion chunk: "+err.Error(), err)
	}
	return model.NewError(model.CodeServerError, err.Error(), err)
}

// Info checks that the endpoint knows the model (GET /models/{model}).
// OpenAI-compatible servers report neither digest nor context length.
func (c *Client) Info(ctx context.Context) (model.Info, error) {
	info := model.Info{Backend: model.BackendOpenAI, Name: c.model, Host: c.base}
	actx, ex, stop := httpwatch.Start(ctx, c.idle)
	defer stop()
	m, err := c.client.Models.Get(actx, c.model)
	if err != nil {
		return info, fmt.Errorf("get model %s: %w", c.model, classify(ctx, actx, ex, err))
	}
	if m.ID != "" {
		info.Name = m.ID
	}
	return info, nil
}
