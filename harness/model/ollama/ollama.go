package ollama

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/envconfig"

	"github.com/pyharness/pyharness/harness/model"
	"github.com/pyharness/pyharness/harness/model/internal/httpwatch"
	"github.com/pyharness/pyharness/schemas"
)

// defaultIdleTimeout is how long a request may go without a byte from the
// server. It is long because Ollama sends nothing while it loads a model,
// which can take minutes on a slow disk.
const defaultIdleTimeout = 5 * time.Minute

// Config configures a Client.
type Config struct {
	// Host is the server's base URL; empty means OLLAMA_HOST, read the way
	// the ollama CLI reads it (default http://127.0.0.1:11434).
	Host string
	// Model is the model name, e.g. "llama3.1:8b".
	Model string
	// HTTPClient is the client whose transport is used; its Timeout is
	// ignored (see IdleTimeout). Nil means http.DefaultTransport.
	HTTPClient *http.Client
	// IdleTimeout ends an attempt that received no byte for this long;
	// defaultIdleTimeout when 0.
	IdleTimeout time.Duration
	// Retry decides how transport faults are retried.
	Retry model.Retry
}

// Client is the Ollama backend.
type Client struct {
	api   *api.Client
	base  *url.URL
	model string
	idle  time.Duration
	retry model.Retry
}

// New returns a backend for cfg.Model on cfg.Host.
func New(cfg Config) (*Client, error) {
	if cfg.Model == "" {
		return nil, errors.New("new ollama backend: no model name")
	}
	base, err := parseHost(cfg.Host)
	if err != nil {
		return nil, fmt.Errorf("new ollama backend: %w", err)
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = defaultIdleTimeout
	}
	return &Client{
		api:   api.NewClient(base, httpwatch.Client(cfg.HTTPClient)),
		base:  base,
		model: cfg.Model,
		idle:  cfg.IdleTimeout,
		retry: cfg.Retry,
	}, nil
}

func parseHost(host string) (*url.URL, error) {
	if strings.TrimSpace(host) == "" {
		return envconfig.Host(), nil
	}
	if !strings.Contains(host, "://") {
		host = "http://" + host
	}
	u, err := url.Parse(host)
	if err != nil {
		return nil, fmt.Errorf("parse host %q: %w", host, err)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("parse host %q: no host", host)
	}
	return u, nil
}

// Host returns the base URL the client talks to.
func (c *Client) Host() string { return c.base.String() }

// API returns the Ollama API client underneath, for the calls a backend
// does not make (creating a model from a file, `pyharness loop`'s import).
func (c *Client) API() *api.Client { return c.api }

// Chat sends req and gathers the streamed reply, retrying transport faults.
func (c *Client) Chat(ctx context.Context, req model.Request) (model.Reply, error) {
	creq, err := c.chatRequest(req)
	if err != nil {
		return model.Reply{}, err
	}
	return c.retry.ForRequest(req).Do(ctx, func(ctx context.Context) (model.Reply, error) {
		return c.attempt(ctx, creq, req.Options.NumCtx)
	})
}

// chatRequest builds the request once; every attempt sends the same bytes.
func (c *Client) chatRequest(req model.Request) (*api.ChatRequest, error) {
	stream, off := true, false
	creq := &api.ChatRequest{
		Model:    c.model,
		Messages: toMessages(req.Messages),
		Stream:   &stream,
		// A map, not api.Options: its omitempty tags would drop 0.
		Options: map[string]any{
			"seed":        req.Options.Seed,
			"temperature": req.Options.Temperature,
			"num_ctx":     req.Options.NumCtx,
			"num_predict": req.Options.NumPredict,
		},
		Truncate: &off,
		Shift:    &off,
	}
	if req.Options.Think {
		// Only when asked: left out, Ollama decides (a thinking-capable
		// model thinks), and a model without the capability is not
		// refused as it is when think is sent.
		creq.Think = &api.ThinkValue{Value: true}
	}
	for _, t := range req.Tools {
		tool, err := toTool(t)
		if err != nil {
			return nil, model.NewError(model.CodeBadRequest, err.Error(), err)
		}
		creq.Tools = append(creq.Tools, tool)
	}
	return creq, nil
}

// attempt is one call to /api/chat.
func (c *Client) attempt(ctx context.Context, creq *api.ChatRequest, numCtx int) (model.Reply, error) {
	actx, ex, stop := httpwatch.Start(ctx, c.idle)
	defer stop()

	start := time.Now()
	var (
		reply   model.Reply
		content strings.Builder
		think   strings.Builder
		done    bool
		first   bool
		last    api.ChatResponse
	)
	err := c.api.Chat(actx, creq, func(r api.ChatResponse) error {
		m := r.Message
		if !first && (m.Content != "" || m.Thinking != "" || len(m.ToolCalls) > 0) {
			first = true
			reply.Metrics.TTFTMS = new(time.Since(start).Milliseconds())
		}
		content.WriteString(m.Content)
		think.WriteString(m.Thinking)
		for _, tc := range m.ToolCalls {
			reply.ToolCalls = append(reply.ToolCalls, fromToolCall(tc))
		}
		if r.Done {
			done, last = true, r
		}
		return nil
	})
	if err != nil || !done {
		return model.Reply{}, classify(ctx, actx, ex, err)
	}
	reply.Content = content.String()
	reply.Thinking = think.String()
	reply.FinishReason = last.DoneReason
	// Ollama's final chunk always carries its counts and durations.
	reply.Metrics.PromptTokens = new(last.PromptEvalCount)
	reply.Metrics.OutputTokens = new(last.EvalCount)
	reply.Metrics.TotalMS = last.TotalDuration.Milliseconds()
	reply.Metrics.LoadMS = new(last.LoadDuration.Milliseconds())
	reply.Metrics.PromptEvalMS = new(last.PromptEvalDuration.Milliseconds())
	reply.Metrics.EvalMS = new(last.EvalDuration.Milliseconds())
	if numCtx > 0 && last.PromptEvalCount == numCtx {
		// With truncate=false an over-long history is refused, but a single
		// message longer than the context is still cut in the runner, and
		// this count is the only trace of it.
		reply.Truncated = true
		reply.Warnings = append(reply.Warnings, fmt.Sprintf("%s: the server counted %d prompt tokens, exactly num_ctx: the runner cut the prompt", model.WarnPromptTruncated, last.PromptEvalCount))
	}
	return reply, nil
}

// classify turns how an attempt ended into an *Error. ctx is the caller's,
// actx the attempt's.
func classify(ctx, actx context.Context, ex *httpwatch.Exchange, err error) *model.Error {
	if e := httpwatch.Interrupted(ctx, actx, err); e != nil {
		return e
	}
	var se api.StatusError
	if errors.As(err, &se) {
		e := model.FromStatus(se.StatusCode, se.ErrorMessage, ex.Header())
		e.Err = err
		return e
	}
	if st := ex.Status(); st >= http.StatusBadRequest {
		// An error status with an empty body: the client library reads no
		// line and reports success.
		e := model.FromStatus(st, "", ex.Header())
		e.Err = err
		return e
	}
	// The client library ignores a read error between lines and returns a
	// partial line as text: the transport saw the cut.
	if e := httpwatch.Dropped(ex, err); e != nil {
		return e
	}
	if err == nil {
		return model.NewError(model.CodeStreamCut, "the stream ended without a done:true chunk", nil)
	}
	if e := httpwatch.Unreachable(err); e != nil {
		return e
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if errors.As(err, &syn) || errors.As(err, &typ) {
		return model.NewError(model.CodeBadResponse, "a chunk that is not a chat response: "+err.Error(), err)
	}
	if msg := err.Error(); strings.HasPrefix(msg, "{") && !json.Valid([]byte(msg)) {
		// The client library hands back a partial last line as the error.
		return model.NewError(model.CodeStreamCut, "the stream ended inside a line", err)
	}
	if strings.HasPrefix(err.Error(), "<") {
		// The client library hands back a line that is not JSON as the
		// error: an HTML page from a proxy in front of the server.
		return model.NewError(model.CodeServerError, err.Error(), err)
	}
	// An {"error": …} line after the output started (status 200): the
	// server gave up mid-reply, and the partial reply is not one.
	return model.NewError(model.CodeStreamError, "an error line mid-stream: "+err.Error(), err)
}

func toMessages(msgs []schemas.Message) []api.Message {
	names := map[string]string{} // tool-call id → tool name, for tool results
	out := make([]api.Message, 0, len(msgs))
	for _, m := range msgs {
		am := api.Message{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID}
		for i, tc := range m.ToolCalls {
			am.ToolCalls = append(am.ToolCalls, toToolCall(i, tc))
			if tc.ID != "" {
				names[tc.ID] = tc.Name
			}
		}
		if m.Role == "tool" && m.ToolCallID != "" {
			am.ToolName = names[m.ToolCallID]
		}
		out = append(out, am)
	}
	return out
}

func toToolCall(i int, tc schemas.ToolCall) api.ToolCall {
	args := api.NewToolCallFunctionArguments()
	keys := make([]string, 0, len(tc.Arguments))
	for k := range tc.Arguments {
		keys = append(keys, k)
	}
	sort.Strings(keys) // maps have no order; keep the bytes sent stable
	for _, k := range keys {
		args.Set(k, tc.Arguments[k])
	}
	return api.ToolCall{ID: tc.ID, Function: api.ToolCallFunction{Index: i, Name: tc.Name, Arguments: args}}
}

func fromToolCall(tc api.ToolCall) schemas.ToolCall {
	args := tc.Function.Arguments.ToMap()
	if args == nil {
		args = map[string]any{}
	}
	return schemas.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: args}
}

func toTool(t model.Tool) (api.Tool, error) {
	tool := api.Tool{Type: "function", Function: api.ToolFunction{Name: t.Name, Description: t.Description}}
	params := t.Parameters
	if params == nil {
		params = map[string]any{"type": "object", "properties": map[string]any{}}
	}
	b, err := json.Marshal(params)
	if err != nil {
		return api.Tool{}, fmt.Errorf("encode parameters of tool %s: %w", t.Name, err)
	}
	if err := json.Unmarshal(b, &tool.Function.Parameters); err != nil {
		return api.Tool{}, fmt.Errorf("decode parameters of tool %s: %w", t.Name, err)
	}
	return tool, nil
}

// weightsFile is the path the FROM line of /api/show's Modelfile names,
// when it is a file's (Ollama writes its blob's absolute path there; a
// FROM in a comment names the model).
func weightsFile(modelfile string) string {
	for line := range strings.Lines(modelfile) {
		if path, ok := strings.CutPrefix(strings.TrimSpace(line), "FROM "); ok && filepath.IsAbs(strings.TrimSpace(path)) {
			return strings.TrimSpace(path)
		}
	}
	return ""
}

// Info asks the server about the model: /api/show for the template, the
// trained context and the capabilities, /api/tags for the digest, /api/ps
// for the context in force if the model is loaded.
func (c *Client) Info(ctx context.Context) (model.Info, error) {
	info := model.Info{Backend: schemas.BackendOllama, Name: c.model, Host: c.base.String(), SendsNumCtx: true}
	actx, ex, stop := httpwatch.Start(ctx, c.idle)
	defer stop()
	show, err := c.api.Show(actx, &api.ShowRequest{Model: c.model})
	if err != nil {
		return info, fmt.Errorf("show model %s: %w", c.model, classify(ctx, actx, ex, err))
	}
	info.Template = show.Template
	info.WeightsFile = weightsFile(show.Modelfile)
	if arch, ok := show.ModelInfo["general.architecture"].(string); ok {
		if n, ok := show.ModelInfo[arch+".context_length"].(float64); ok {
			info.ContextLength = int(n)
		}
	}
	for _, capability := range show.Capabilities {
		info.Capabilities = append(info.Capabilities, string(capability))
	}

	want := fullName(c.model)
	tags, err := c.api.List(actx)
	if err != nil {
		return info, fmt.Errorf("list models: %w", classify(ctx, actx, ex, err))
	}
	for _, m := range tags.Models {
		if fullName(m.Name) == want || fullName(m.Model) == want {
			info.Digest = m.Digest
		}
	}
	ps, err := c.api.ListRunning(actx)
	if err != nil {
		return info, fmt.Errorf("list running models: %w", classify(ctx, actx, ex, err))
	}
	for _, m := range ps.Models {
		if fullName(m.Name) == want || fullName(m.Model) == want {
			info.ContextInForce = m.ContextLength
			if info.Digest == "" {
				info.Digest = m.Digest
			}
		}
	}
	return info, nil
}

// fullName adds the tag Ollama assumes when a name has none.
func fullName(name string) string {
	if i := strings.LastIndex(name, "/"); !strings.Contains(name[i+1:], ":") {
		return name + ":latest"
	}
	return name
}
