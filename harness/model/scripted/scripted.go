package scripted

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/pyharness/pyharness/harness/model"
	"github.com/pyharness/pyharness/schemas"
)

// ParseError is a script line that could not be read.
type ParseError struct {
	File  string
	Line  int
	Field string // the field at fault, when known
	Err   error
}

func (e *ParseError) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("%s:%d: field %q: %v", e.File, e.Line, e.Field, e.Err)
	}
	return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }

// faultCodes are the codes a script may inject: every fault a server can
// produce, so the harness's handling of each can be tested without one.
var faultCodes = []string{
	model.CodeStreamCut, model.CodeStreamError, model.CodeTimeout, model.CodeServerError, model.CodeServerBusy,
	model.CodeRateLimited, model.CodeConnectionRefused, model.CodeModelNotFound,
	model.CodeContextOverflow, model.CodeToolsUnsupported, model.CodeBadRequest, model.CodeBadResponse,
}

// Backend plays a script. It is safe for concurrent use: each call takes
// the next line.
type Backend struct {
	// Retry decides how injected faults are retried. Set it before the
	// first Chat. A nil Sleep means model.NoSleep.
	Retry model.Retry

	name  string
	turns []turn

	mu       sync.Mutex
	next     int
	requests []model.Request
}

// turn is one parsed script line.
type turn struct {
	line  int
	reply schemas.Reply
	// metrics is nil when the script gave none.
	metrics *schemas.Metrics
	fault   *model.Error
}

// Drafts is a script of replies whose contents are drafts, one line each,
// as New reads it: how a miner writes a task's reference fix, and a test
// its model's turns.
func Drafts(contents ...string) []byte {
	var b bytes.Buffer
	for _, c := range contents {
		line, _ := json.Marshal(struct {
			Content string `json:"content"`
		}{c}) // a struct of one string always marshals
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// New reads the script at path.
func New(path string) (*Backend, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open script: %w", err)
	}
	defer f.Close()
	return NewFromReader(f, path)
}

// NewFromReader reads a script from r; name is used in errors and Info.
// Every line is checked now, so a bad script fails before the run starts.
func NewFromReader(r io.Reader, name string) (*Backend, error) {
	b := &Backend{name: name}
	br := bufio.NewReader(r)
	for no := 1; ; no++ {
		raw, err := br.ReadBytes('\n')
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("read script %s: %w", name, err)
		}
		if body := bytes.TrimSpace(raw); len(body) > 0 {
			t, perr := parseLine(body)
			if perr != nil {
				perr.File, perr.Line = name, no
				return nil, perr
			}
			t.line = no
			b.turns = append(b.turns, t)
		}
		if err == io.EOF {
			return b, nil
		}
	}
}

// scriptLine is the JSON of one line.
type scriptLine struct {
	Content      string           `json:"content"`
	Thinking     string           `json:"thinking"`
	ToolCalls    []scriptToolCall `json:"tool_calls"`
	FinishReason string           `json:"finish_reason"`
	Metrics      *schemas.Metrics `json:"metrics"`
	Error        string           `json:"error"`
	Message      string           `json:"message"`
	Status       int              `json:"status"`
	RetryAfterMS int64            `json:"retry_after_ms"`
}

// scriptToolCall is a tool call in the OpenAI shape.
type scriptToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name string `json:"name"`
		// Arguments is a JSON string holding an object, as OpenAI sends
		// it; a plain object is accepted too.
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

func parseLine(body []byte) (turn, *ParseError) {
	var sl scriptLine
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sl); err != nil {
		return turn{}, jsonError(err)
	}
	if dec.More() {
		return turn{}, &ParseError{Err: errors.New("more than one JSON value on the line")}
	}
	if sl.Error != "" {
		if !isFault(sl.Error) {
			return turn{}, &ParseError{Field: "error", Err: fmt.Errorf("unknown fault %q (want one of %s)", sl.Error, strings.Join(faultCodes, ", "))}
		}
		e := model.NewError(sl.Error, sl.Message, nil)
		e.Status = sl.Status
		e.RetryAfter = time.Duration(sl.RetryAfterMS) * time.Millisecond
		return turn{fault: e}, nil
	}
	t := turn{metrics: sl.Metrics, reply: schemas.Reply{
		Content:      sl.Content,
		Thinking:     sl.Thinking,
		FinishReason: sl.FinishReason,
	}}
	if t.reply.FinishReason == "" {
		t.reply.FinishReason = "stop"
	}
	for i, tc := range sl.ToolCalls {
		field := fmt.Sprintf("tool_calls[%d]", i)
		if tc.Type != "" && tc.Type != "function" {
			return turn{}, &ParseError{Field: field + ".type", Err: fmt.Errorf("type %q is not function", tc.Type)}
		}
		if tc.Function.Name == "" {
			return turn{}, &ParseError{Field: field + ".function.name", Err: errors.New("missing")}
		}
		args, err := parseArguments(tc.Function.Arguments)
		if err != nil {
			return turn{}, &ParseError{Field: field + ".function.arguments", Err: err}
		}
		t.reply.ToolCalls = append(t.reply.ToolCalls, schemas.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: args})
	}
	return t, nil
}

func parseArguments(raw json.RawMessage) (map[string]any, error) {
	args := map[string]any{}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return args, nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		if strings.TrimSpace(s) == "" {
			return args, nil
		}
		raw = []byte(s)
	}
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	return args, nil
}

func jsonError(err error) *ParseError {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return &ParseError{Field: te.Field, Err: fmt.Errorf("got JSON %s, want %s", te.Value, te.Type)}
	}
	if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return &ParseError{Field: strings.Trim(f, `"`), Err: errors.New("unknown field")}
	}
	return &ParseError{Err: fmt.Errorf("invalid JSON: %w", err)}
}

func isFault(code string) bool {
	for _, c := range faultCodes {
		if c == code {
			return true
		}
	}
	return false
}

// Chat plays the next line of the script (and the ones after it while
// they are retryable faults).
func (b *Backend) Chat(ctx context.Context, req model.Request) (model.Reply, error) {
	b.mu.Lock()
	b.requests = append(b.requests, req)
	b.mu.Unlock()
	r := b.Retry
	if r.Sleep == nil {
		r.Sleep = model.NoSleep
	}
	return r.ForRequest(req).Do(ctx, func(ctx context.Context) (model.Reply, error) {
		return b.play(req)
	})
}

func (b *Backend) play(req model.Request) (model.Reply, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.next >= len(b.turns) {
		return model.Reply{}, model.NewError(model.CodeScriptExhausted, fmt.Sprintf("script %s: all %d turns played", b.name, len(b.turns)), nil)
	}
	t := b.turns[b.next]
	b.next++
	if t.fault != nil {
		e := *t.fault
		e.Err = fmt.Errorf("fault injected at %s:%d", b.name, t.line)
		if e.Message == "" {
			e.Message = e.Err.Error()
		}
		return model.Reply{}, &e
	}
	reply := model.Reply{Reply: t.reply}
	reply.ToolCalls = append([]schemas.ToolCall(nil), t.reply.ToolCalls...)
	if t.metrics != nil {
		reply.Metrics = *t.metrics
	} else {
		reply.Metrics = estimate(req, t.reply)
	}
	return reply, nil
}

// estimate counts tokens roughly, one per 4 bytes, so that a scripted run
// has plausible, deterministic metrics.
func estimate(req model.Request, r schemas.Reply) schemas.Metrics {
	tokens := func(s string) int { return (len(s) + 3) / 4 }
	prompt := 0
	for _, msg := range req.Messages {
		prompt += tokens(msg.Content) + 4
	}
	return schemas.Metrics{PromptTokens: new(prompt), OutputTokens: new(tokens(r.Content) + tokens(r.Thinking))}
}

// Info reports the backend as scripted, named after its script.
func (b *Backend) Info(ctx context.Context) (model.Info, error) {
	return model.Info{Backend: schemas.BackendScripted, Name: b.name}, nil
}

// Requests returns every request Chat received, in order.
func (b *Backend) Requests() []model.Request {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]model.Request(nil), b.requests...)
}

// Remaining returns how many script lines have not been played.
func (b *Backend) Remaining() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.turns) - b.next
}
