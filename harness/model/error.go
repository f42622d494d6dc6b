package model

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/pyharness/pyharness/schemas"
)

// Error codes. They are stable: records and reports classify failures by
// them.
const (
	CodeModelNotFound    = "model-not-found"
	CodeContextOverflow  = "context-overflow"
	CodeToolsUnsupported = "tools-unsupported"
	CodeBadRequest       = "bad-request"
	CodeStreamCut        = "stream-cut"
	// CodeStreamError is an error the server sent inside a stream that
	// had started with 200 (an SSE error event, an NDJSON error line):
	// the reply so far is not a reply.
	CodeStreamError       = "stream-error"
	CodeTimeout           = "timeout"
	CodeServerError       = "server-error"
	CodeServerBusy        = "server-busy"
	CodeRateLimited       = "rate-limited"
	CodeConnectionRefused = "connection-refused"
	CodeBadResponse       = "bad-response"
	// codeEmptyReply is for callers that refuse a reply with nothing in it;
	// backends return such replies as they are, so the record keeps their
	// finish reason and metrics.
	codeEmptyReply      = "empty-reply"
	CodeScriptExhausted = "script-exhausted"
	CodeCancelled       = "cancelled"
)

// Retryable reports whether a fault with this code is worth another
// attempt: transport faults are, answers about the request itself are not.
func retryable(code string) bool {
	switch code {
	case CodeStreamCut, CodeStreamError, CodeTimeout, CodeServerError, CodeServerBusy, CodeRateLimited, CodeConnectionRefused:
		return true
	}
	return false
}

// Error is why a call to a model failed.
type Error struct {
	Code string
	// Status is the HTTP status, 0 when none was received.
	Status int
	// Message is the server's own words where it gave any.
	Message   string
	Retryable bool
	// RetryAfter is the wait the server asked for (Retry-After), 0 if none.
	RetryAfter time.Duration
	// Attempts lists every call made before giving up, this one last.
	Attempts []schemas.Attempt
	// ContextInForce and PromptTokens are what an overflow answer says of
	// the server's window and of the prompt it counted (llama-server's
	// n_ctx and n_prompt_tokens), 0 when it says nothing.
	ContextInForce int
	PromptTokens   int
	Err            error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Code)
	if e.Status != 0 {
		fmt.Fprintf(&b, ": HTTP %d", e.Status)
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	if n := len(e.Attempts); n > 1 {
		fmt.Fprintf(&b, " (after %d attempts)", n)
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// NewError returns an *Error with the code's default retryability.
func NewError(code, message string, err error) *Error {
	return &Error{Code: code, Message: message, Retryable: retryable(code), Err: err}
}

// FromStatus classifies an HTTP error answer by its status and the server's
// message. The message decides between the 400s, since servers use one
// status for an overflow, a tool-less model and a malformed request.
func FromStatus(status int, message string, header http.Header) *Error {
	if message == "" {
		message = http.StatusText(status)
	}
	code := CodeBadRequest
	switch {
	case status == http.StatusNotFound:
		code = CodeModelNotFound
	case status == http.StatusTooManyRequests:
		code = CodeRateLimited
	case status == http.StatusServiceUnavailable:
		code = CodeServerBusy
	case status == http.StatusRequestTimeout || status == http.StatusGatewayTimeout:
		code = CodeTimeout
	case status >= 500:
		code = CodeServerError
	case isOverflow(message):
		code = CodeContextOverflow
	case isToolsUnsupported(message):
		code = CodeToolsUnsupported
	}
	e := &Error{Code: code, Status: status, Message: message, Retryable: retryable(code)}
	if header != nil {
		e.RetryAfter = parseRetryAfter(header, time.Now())
	}
	return e
}

// isOverflow recognises the context-overflow answers of Ollama ("the input
// length exceeds the context length"), OpenAI and vLLM ("maximum context
// length", code context_length_exceeded) and llama.cpp ("exceeds the
// available context size").
func isOverflow(msg string) bool {
	m := strings.ToLower(msg)
	for _, s := range []string{"exceeds the context length", "context_length_exceeded", "maximum context length", "context size", "context window"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

// isToolsUnsupported recognises Ollama's "<model> does not support tools",
// which its OpenAI-compatible endpoint passes on unchanged.
func isToolsUnsupported(msg string) bool {
	return strings.Contains(strings.ToLower(msg), "does not support tools")
}

// parseRetryAfter reads the wait a server asked for: Retry-After in seconds
// or as an HTTP date, or the retry-after-ms some OpenAI-compatible servers
// send. It returns 0 when there is none or it cannot be read.
func parseRetryAfter(h http.Header, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}
