package wiretest

import (
	"net/http"

	"github.com/pyharness/pyharness/schemas"
)

// Step is what a test server does with one chat request. Build one with
// Text, Answer, Recorded, Fail, RateLimited or Hang, and shape its stream
// with the methods (CutAfter, CutInLine, WithoutDone, StallAfter,
// ErrorAfter). Steps are used in the order they were pushed, one per chat
// request.
type Step struct {
	reply     *Reply
	recording string
	status    int
	message   string
	hang      bool
	header    http.Header

	cut       int // > 0: drop the connection after this many units
	cutInLine bool
	cutFirst  bool // drop the connection before the status line
	noDone    bool
	stall     int // > 0: go silent after this many units
	errAt     int // > 0: send an error unit after this many units
	errMsg    string
}

// Reply is a generated reply, sent in the recorded chunk shape.
type Reply struct {
	Content string
	// Chunks, when set, are the content in exactly these pieces (Content
	// is then ignored); otherwise content goes a few bytes per chunk.
	Chunks   []string
	Thinking string
	// ThinkingChunks, when set, are the thinking in exactly these pieces
	// (Thinking is then ignored).
	ThinkingChunks []string
	ToolCalls      []schemas.ToolCall
	// DoneReason is Ollama's done_reason, or OpenAI's finish_reason:
	// "stop" by default ("tool_calls" on OpenAI when there are calls).
	DoneReason string
	// PromptTokens overrides the server's own count of the prompt.
	PromptTokens int
	// OutputTokens overrides the count of output chunks.
	OutputTokens int
}

// Text is a reply with this content, split over several chunks.
func Text(content string) Step { return Answer(Reply{Content: content}) }

// Answer is a generated reply.
func Answer(r Reply) Step { return Step{reply: &r} }

// Recorded replays the recording NAME: its status, Content-Type and body.
func Recorded(name string) Step { return Step{recording: name} }

// Fail answers with status and message in the server's own error shape.
func Fail(status int, message string) Step { return Step{status: status, message: message} }

// RateLimited answers 429 with a Retry-After header of retryAfter.
func RateLimited(retryAfter string) Step {
	return Fail(http.StatusTooManyRequests, "too many requests").WithHeader("Retry-After", retryAfter)
}

// Hang accepts the request and never sends a byte, until the client goes
// away or the server closes.
func Hang() Step { return Step{hang: true} }

// WithHeader adds a response header.
func (s Step) WithHeader(key, value string) Step {
	h := s.header.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Add(key, value)
	s.header = h
	return s
}

// CutAfter drops the connection after n units of the body (NDJSON lines or
// SSE events) without ending it properly, as when a server dies.
func (s Step) CutAfter(n int) Step { s.cut, s.cutInLine = n, false; return s }

// CutBeforeAnswer drops the connection after the request arrived and
// before the status line, as when the server process dies while the
// model loads or the prompt is evaluated: the client reads EOF where the
// answer should start.
func (s Step) CutBeforeAnswer() Step { s.cutFirst = true; return s }

// CutInLine drops the connection halfway through unit n+1.
func (s Step) CutInLine(n int) Step { s.cut, s.cutInLine = n, true; return s }

// WithoutDone ends the body properly but before its final units (Ollama's
// done:true chunk; OpenAI's finish chunk, usage and [DONE]).
func (s Step) WithoutDone() Step { s.noDone = true; return s }

// StallAfter sends n units, then goes silent with the connection open.
func (s Step) StallAfter(n int) Step { s.stall = n; return s }

// ErrorAfter sends n units, then an error in the stream (status 200, as
// servers report a failure after the output started) and ends the body.
func (s Step) ErrorAfter(n int, message string) Step { s.errAt, s.errMsg = n, message; return s }

// generates reports whether the step lets the server's own checks (model
// known, tools supported, prompt fits) decide first, as a real server's
// generation would.
func (s Step) generates() bool { return s.reply != nil }

func (r Reply) thinkingChunks() []string {
	if r.ThinkingChunks != nil {
		return r.ThinkingChunks
	}
	return pieces(r.Thinking)
}

func (r Reply) chunks() []string {
	if r.Chunks != nil {
		return r.Chunks
	}
	return pieces(r.Content)
}
