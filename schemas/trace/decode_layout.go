package trace

import (
	"bytes"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/pyharness/pyharness/internal/swar"
	"github.com/pyharness/pyharness/schemas"
)

// decodeTurnLine decodes a turn exactly as Writer writes it: every
// field in the struct's order, no whitespace, no field this build does not
// know, and no tool call (their arguments are maps of any, sonic's to
// decode). It reports false for anything else, and for anything in the
// values it does not decide the way encoding/json does: an escape of a
// surrogate, bytes that are not UTF-8, a control character, an integer of
// more than 18 digits, a null. The line is then sonic's, and the strict
// decoder's after it, so this decoder only ever decides successes, as
// FuzzDecodeRecord checks.
//
// Turns are nearly all of a trace's bytes, so this path is the one worth
// making cheap: the keys are compared where they must be, each string is
// scanned eight bytes at a time and copied once, a word of the trace's
// vocabulary is the constant, and a turn's metrics share one allocation.
func decodeTurnLine(line []byte) (*schemas.Turn, bool) {
	s := newScanner(line)
	defer s.release()
	t := new(schemas.Turn)
	s.lit(`{"type":"turn","run_id":`)
	t.Type = schemas.TypeTurn
	t.RunID = s.str()
	s.lit(`,"step":`)
	t.Step = int(s.integer())
	s.lit(`,"sent":{"kind":`)
	t.Sent.Kind = schemas.Kind(s.str())
	s.lit(`,"code":`)
	t.Sent.Code = schemas.Code(s.str())
	s.lit(`,"messages":`)
	t.Sent.Messages = s.messages()
	s.lit(`,"replaced":`)
	t.Sent.Replaced = s.boolean()
	s.lit(`,"prompt_hash":`)
	t.Sent.PromptHash = s.str()
	s.lit(`,"elided":`)
	t.Sent.Elided = s.elisions()
	if s.opt(`,"prompt_tokens_estimate":`) {
		t.Sent.PromptTokensEstimate = int(s.integer())
	}
	s.lit(`},"reply":{"content":`)
	t.Reply.Content = s.str()
	s.lit(`,"thinking":`)
	t.Reply.Thinking = s.str()
	s.lit(`,"tool_calls":[]`)
	t.Reply.ToolCalls = []schemas.ToolCall{}
	s.lit(`,"finish_reason":`)
	t.Reply.FinishReason = s.str()
	s.lit(`},"action":{"verb":`)
	t.Action.Verb = s.str()
	s.lit(`,"path":`)
	t.Action.Path = s.str()
	s.lit(`,"shape":`)
	t.Action.Shape = s.str()
	if s.opt(`,"via":`) {
		t.Action.Via = s.str()
	}
	s.lit(`,"repairs":`)
	t.Action.Repairs = s.strs()
	if s.opt(`,"reader":`) {
		t.Action.Reader = int(s.integer())
	}
	if s.opt(`,"stated":`) {
		t.Action.Stated = s.boolean()
	}
	if s.opt(`,"canonical":`) {
		t.Action.Canonical = s.str()
	}
	s.lit(`},"outcome":{"status":`)
	t.Outcome.Status = schemas.Status(s.str())
	s.lit(`,"code":`)
	t.Outcome.Code = schemas.Code(s.str())
	s.lit(`,"message":`)
	t.Outcome.Message = s.str()
	s.lit(`,"files_changed":`)
	t.Outcome.FilesChanged = s.strs()
	s.lit(`},"metrics":`)
	s.metrics(&t.Metrics)
	s.lit(`,"model_step":`)
	t.ModelStep = s.boolean()
	if s.opt(`,"reasoning":{"text":`) {
		r := new(schemas.Reasoning)
		r.Text = s.str()
		s.lit(`,"tokens":`)
		r.Tokens = int(s.integer())
		s.lit(`,"source":`)
		r.Source = s.str()
		if s.opt(`,"cut":`) {
			r.Cut = s.boolean()
		}
		s.lit(`}`)
		t.Reasoning = r
	}
	if s.opt(`,"attempts":`) {
		t.Attempts = s.attempts()
	}
	if s.opt(`,"warnings":`) {
		t.Warnings = s.strs()
	}
	s.lit(`,"started_at":`)
	t.StartedAt = s.time()
	s.lit(`,"ended_at":`)
	t.EndedAt = s.time()
	if !s.end() {
		return nil, false
	}
	return t, true
}

// turnScanner reads a line front to back. The first thing that is not as
// expected sets bad, after which every read returns a zero value, so that
// the decoder reads as the layout it expects and checks once at the end.
type turnScanner struct {
	b      []byte
	i      int
	bad    bool
	text   []byte // a string's text, unescaped (str)
	pooled *[]byte
}

// texts are the buffers escaped strings are unescaped in, kept from line
// to line.
var texts = sync.Pool{New: func() any { return new([]byte) }}

func newScanner(line []byte) turnScanner {
	t := texts.Get().(*[]byte)
	return turnScanner{b: line, text: (*t)[:0], pooled: t}
}

func (s *turnScanner) release() {
	*s.pooled = s.text[:0]
	texts.Put(s.pooled)
}

// lit consumes l, which must come next.
func (s *turnScanner) lit(l string) {
	if !s.opt(l) {
		s.bad = true
	}
}

// opt consumes l if it comes next, and reports whether it did.
func (s *turnScanner) opt(l string) bool {
	if s.bad || len(s.b)-s.i < len(l) || string(s.b[s.i:s.i+len(l)]) != l {
		return false
	}
	s.i += len(l)
	return true
}

// end consumes the record's closing brace and reports whether the line
// was read whole, as the layout it expects.
func (s *turnScanner) end() bool {
	s.lit(`}`)
	return !s.bad && s.i == len(s.b)
}

// next reports whether the byte c comes next, without consuming it.
func (s *turnScanner) next(c byte) bool {
	return !s.bad && s.i < len(s.b) && s.b[s.i] == c
}

func (s *turnScanner) boolean() bool {
	if s.opt("true") {
		return true
	}
	s.lit("false")
	return false
}

// integer reads -?(0|[1-9][0-9]*) of at most 18 digits, which no int64
// overflows. What follows a number is the next literal, so a fraction, an
// exponent or a leading zero fails there.
func (s *turnScanner) integer() int64 {
	if s.bad {
		return 0
	}
	neg := s.next('-')
	if neg {
		s.i++
	}
	start := s.i
	var v int64
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		v = v*10 + int64(s.b[s.i]-'0')
		s.i++
		if s.b[start] == '0' {
			break
		}
	}
	if n := s.i - start; n == 0 || n > 18 {
		s.bad = true
		return 0
	}
	if neg {
		return -v
	}
	return v
}

// stringEnd returns the index of the closing quote of the string whose
// opening quote is at s.i, and whether the string holds an escape. It
// leaves to the decoders after it what encoding/json would not take as it
// is: a control character (refused), and bytes that are not UTF-8
// (replaced).
func (s *turnScanner) stringEnd() (end int, escaped bool) {
	if !s.next('"') {
		s.bad = true
		return 0, false
	}
	b := s.b
	i := s.i + 1
	for {
		i = swar.SkipPlainJSON(b, i)
		if i >= len(b) {
			s.bad = true
			return 0, false
		}
		switch c := b[i]; {
		case c == '"':
			return i, escaped
		case c == '\\':
			escaped = true
			i += 2
		case c < 0x20:
			s.bad = true
			return 0, false
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && n == 1 {
				s.bad = true
				return 0, false
			}
			i += n
		default: // a plain byte among the last seven
			i++
		}
	}
}

// str reads a string into memory of its own, or the constant of a word of
// the trace's vocabulary. It scans as stringEnd does, and unescapes as it
// goes: the text between escapes is gathered in s.text, then copied once.
func (s *turnScanner) str() string {
	if !s.next('"') {
		s.bad = true
		return ""
	}
	b := s.b
	start := s.i + 1
	i, from := start, start // from: the first byte not yet in s.text
	s.text = s.text[:0]
	escaped := false
	for {
		i = swar.SkipPlainJSON(b, i)
		if i >= len(b) {
			s.bad = true
			return ""
		}
		switch c := b[i]; {
		case c == '"':
			s.i = i + 1
			if !escaped {
				if w, ok := vocabulary(b[start:i]); ok {
					return w
				}
				return string(b[start:i])
			}
			s.text = append(s.text, b[from:i]...)
			return string(s.text)
		case c == '\\':
			if i+1 >= len(b) {
				s.bad = true
				return ""
			}
			escaped = true
			s.text = append(s.text, b[from:i]...)
			switch e := b[i+1]; e {
			case '"', '\\', '/':
				s.text = append(s.text, e)
			case 'b':
				s.text = append(s.text, '\b')
			case 'f':
				s.text = append(s.text, '\f')
			case 'n':
				s.text = append(s.text, '\n')
			case 'r':
				s.text = append(s.text, '\r')
			case 't':
				s.text = append(s.text, '\t')
			case 'u':
				r, ok := hex4(b[i+2:])
				// A surrogate, paired or not, is encoding/json's to decide.
				if !ok || r >= 0xD800 && r < 0xE000 {
					s.bad = true
					return ""
				}
				s.text = utf8.AppendRune(s.text, r)
				i += 4
			default:
				s.bad = true
				return ""
			}
			i += 2
			from = i
		case c < 0x20:
			s.bad = true
			return ""
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && n == 1 {
				s.bad = true
				return ""
			}
			i += n
		default: // a plain byte among the last seven
			i++
		}
	}
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// vocabulary returns the constant for a word a turn holds over and over
// (roles, kinds, statuses, verbs, shapes): one string for all turns instead
// of an allocation each.
func vocabulary(b []byte) (string, bool) {
	if len(b) > 16 {
		return "", false
	}
	switch string(b) {
	case "":
		return "", true
	case "system":
		return "system", true
	case "user":
		return "user", true
	case "assistant":
		return "assistant", true
	case "tool":
		return "tool", true
	case string(schemas.KindOpening):
		return string(schemas.KindOpening), true
	case string(schemas.KindToolResult):
		return string(schemas.KindToolResult), true
	case string(schemas.KindRefusalOrNudge):
		return string(schemas.KindRefusalOrNudge), true
	case string(schemas.KindParseFailure):
		return string(schemas.KindParseFailure), true
	case string(schemas.StatusApplied):
		return string(schemas.StatusApplied), true
	case string(schemas.StatusRefused):
		return string(schemas.StatusRefused), true
	case string(schemas.StatusFailed):
		return string(schemas.StatusFailed), true
	case string(schemas.StatusStopped):
		return string(schemas.StatusStopped), true
	case "READ":
		return "READ", true
	case "WRITE":
		return "WRITE", true
	case "PATCH":
		return "PATCH", true
	case "RUN":
		return "RUN", true
	case "DONE":
		return "DONE", true
	case "canonical":
		return "canonical", true
	case "none":
		return "none", true
	case "text":
		return "text", true
	case "tool-call":
		return "tool-call", true
	case "stop":
		return "stop", true
	case "length":
		return "length", true
	}
	return "", false
}

// strs reads an array of strings; [] is an empty slice, as encoding/json
// makes it.
//
// The arrays of records are read by loops of this one's shape, one per
// element type: a generic reader taking each element's reader as a func
// value would make the scanner and every element escape to the heap.
func (s *turnScanner) strs() []string {
	s.lit("[")
	if s.opt("]") {
		return []string{}
	}
	var out []string
	for !s.bad {
		out = append(out, s.str())
		if !s.opt(",") {
			break
		}
	}
	s.lit("]")
	return out
}

func (s *turnScanner) messages() []schemas.Message {
	s.lit("[")
	if s.opt("]") {
		return []schemas.Message{}
	}
	var few [4]schemas.Message
	out := few[:0]
	for !s.bad {
		var m schemas.Message
		s.lit(`{"role":`)
		m.Role = s.str()
		s.lit(`,"content":`)
		if m.Role == "system" {
			m.Content = s.systemPrompt()
		} else {
			m.Content = s.str()
		}
		if s.opt(`,"tool_call_id":`) {
			m.ToolCallID = s.str()
		}
		s.lit("}")
		out = append(out, m)
		if !s.opt(",") {
			break
		}
	}
	s.lit("]")
	return append([]schemas.Message(nil), out...)
}

// lastSystemPrompt is the system prompt decoded last, as it is in the line
// and as decoded. Every run's first turn sends one, the same for every run
// a build of the harness records, and it is a large share of a corpus's
// bytes: met again, it is compared, not scanned, and shared, not copied
// (a string is never changed, so sharing it is invisible).
var lastSystemPrompt atomic.Pointer[quotedString]

type quotedString struct {
	raw  []byte // between the quotes, escapes and all
	text string
}

// systemPrompt reads a system message's content.
func (s *turnScanner) systemPrompt() string {
	if c := lastSystemPrompt.Load(); c != nil && s.next('"') {
		// The cached bytes were a whole string once, so followed by a
		// quote they are the same string again: an even number of
		// backslashes ends them, and the quote after ends the string.
		rest := s.b[s.i+1:]
		if len(rest) > len(c.raw) && rest[len(c.raw)] == '"' && string(rest[:len(c.raw)]) == string(c.raw) {
			s.i += len(c.raw) + 2
			return c.text
		}
	}
	start := s.i + 1
	text := s.str()
	if !s.bad {
		lastSystemPrompt.Store(&quotedString{raw: bytes.Clone(s.b[start : s.i-1]), text: text})
	}
	return text
}

func (s *turnScanner) elisions() []schemas.Elision {
	s.lit("[")
	if s.opt("]") {
		return []schemas.Elision{}
	}
	var out []schemas.Elision
	for !s.bad {
		var e schemas.Elision
		s.lit(`{"what":`)
		e.What = s.str()
		s.lit(`,"ref":`)
		e.Ref = s.str()
		s.lit(`,"tokens":`)
		e.Tokens = int(s.integer())
		s.lit("}")
		out = append(out, e)
		if !s.opt(",") {
			break
		}
	}
	s.lit("]")
	return out
}

func (s *turnScanner) attempts() []schemas.Attempt {
	s.lit("[")
	if s.opt("]") {
		return []schemas.Attempt{}
	}
	var few [2]schemas.Attempt
	out := few[:0]
	for !s.bad {
		var a schemas.Attempt
		s.lit(`{"n":`)
		a.N = int(s.integer())
		s.lit(`,"error":`)
		a.Error = s.str()
		if s.opt(`,"status":`) {
			a.Status = int(s.integer())
		}
		if s.opt(`,"wait_ms":`) {
			a.WaitMS = s.integer()
		}
		if s.opt(`,"prompt_tokens_estimate":`) {
			a.PromptTokensEstimate = int(s.integer())
		}
		if s.opt(`,"messages":`) {
			a.Messages = int(s.integer())
		}
		s.lit("}")
		out = append(out, a)
		if !s.opt(",") {
			break
		}
	}
	s.lit("]")
	return append([]schemas.Attempt(nil), out...)
}

// metrics reads a turn's figures; those present share one allocation.
func (s *turnScanner) metrics(m *schemas.Metrics) {
	var ints [4]int
	var longs [4]int64
	var has [8]bool
	s.lit("{")
	for i, key := range [4]string{`"prompt_tokens":`, `"output_tokens":`, `"prompt_eval_tokens":`, `"cached_tokens":`} {
		if s.opt(key) {
			ints[i], has[i] = int(s.integer()), true
			s.lit(",")
		}
	}
	s.lit(`"total_ms":`)
	m.TotalMS = s.integer()
	for i, key := range [4]string{`,"load_ms":`, `,"prompt_eval_ms":`, `,"eval_ms":`, `,"ttft_ms":`} {
		if s.opt(key) {
			longs[i], has[4+i] = s.integer(), true
		}
	}
	s.lit("}")
	if s.bad || has == [8]bool{} {
		return
	}
	fig := new(struct {
		ints  [4]int
		longs [4]int64
	})
	fig.ints, fig.longs = ints, longs
	for i, p := range [4]**int{&m.PromptTokens, &m.OutputTokens, &m.PromptEvalTokens, &m.CachedTokens} {
		if has[i] {
			*p = &fig.ints[i]
		}
	}
	for i, p := range [4]**int64{&m.LoadMS, &m.PromptEvalMS, &m.EvalMS, &m.TTFTMS} {
		if has[4+i] {
			*p = &fig.longs[i]
		}
	}
}

// time reads a timestamp as encoding/json does: the quoted text to
// time.Time's UnmarshalJSON.
func (s *turnScanner) time() time.Time {
	var t time.Time
	end, escaped := s.stringEnd()
	if s.bad || escaped {
		s.bad = true
		return t
	}
	if u, ok := utcTime(s.b[s.i+1 : end]); ok {
		s.i = end + 1
		return u
	}
	if err := t.UnmarshalJSON(s.b[s.i : end+1]); err != nil {
		s.bad = true
	}
	s.i = end + 1
	return t
}

// utcTime reads the form Writer gives a time (UTC, RFC 3339 with as
// many digits of the second as it needs, up to nine) to the same Time as
// UnmarshalJSON, whose parser ranges over more forms; any other form is
// left to it.
func utcTime(b []byte) (time.Time, bool) {
	const form = "2006-01-02T15:04:05"
	if len(b) < len(form)+1 || b[len(b)-1] != 'Z' ||
		b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' {
		return time.Time{}, false
	}
	ok := true
	num := func(b []byte, lo, hi int) int {
		n := 0
		for _, c := range b {
			if c < '0' || c > '9' {
				ok = false
			}
			n = n*10 + int(c-'0')
		}
		if n < lo || n > hi {
			ok = false
		}
		return n
	}
	year := num(b[0:4], 0, 9999)
	month := num(b[5:7], 1, 12)
	day := num(b[8:10], 1, 31)
	hour := num(b[11:13], 0, 23)
	minute := num(b[14:16], 0, 59)
	sec := num(b[17:19], 0, 59)
	nsec := 0
	if frac := b[19 : len(b)-1]; len(frac) > 0 {
		if len(frac) < 2 || len(frac) > 10 || frac[0] != '.' {
			return time.Time{}, false
		}
		nsec = num(frac[1:], 0, 999999999)
		for range 10 - len(frac) {
			nsec *= 10
		}
	}
	if !ok || day > daysIn(time.Month(month), year) {
		return time.Time{}, false
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC), true
}

func daysIn(m time.Month, year int) int {
	if m == time.February {
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	}
	return 30 + int((m+m/8)%2)
}

// decodeRunStartLine is decodeTurnLine for a run_start of the major
// version this build reads.
func decodeRunStartLine(line []byte) (*schemas.RunStart, bool) {
	s := newScanner(line)
	defer s.release()
	r := new(schemas.RunStart)
	r.Type = schemas.TypeRunStart
	s.lit(`{"type":"run_start","schema":`)
	r.Schema = s.str()
	s.lit(`,"schema_minor":`)
	r.SchemaMinor = int(s.integer())
	s.lit(`,"run_id":`)
	r.RunID = s.str()
	s.lit(`,"attempt":`)
	r.Attempt = int(s.integer())
	s.lit(`,"source":`)
	r.Source = s.str()
	s.lit(`,"case_id":`)
	r.CaseID = s.str()
	s.lit(`,"tier":`)
	r.Tier = int(s.integer())
	s.lit(`,"pass":`)
	r.Pass = int(s.integer())
	s.lit(`,"model":{"backend":`)
	m := &r.Model
	m.Backend = s.str()
	s.lit(`,"name":`)
	m.Name = s.str()
	s.lit(`,"digest":`)
	m.Digest = s.str()
	if s.opt(`,"host":`) {
		m.Host = s.str()
	}
	s.lit(`,"options":{"seed":`)
	m.Options.Seed = int(s.integer())
	s.lit(`,"temperature":`)
	m.Options.Temperature = s.float()
	s.lit(`,"num_ctx":`)
	m.Options.NumCtx = int(s.integer())
	s.lit(`,"num_predict":`)
	m.Options.NumPredict = int(s.integer())
	if s.opt(`,"think":`) {
		m.Options.Think = s.boolean()
	}
	s.lit(`}`)
	if s.opt(`,"context_length":`) {
		m.ContextLength = int(s.integer())
	}
	if s.opt(`,"context":{"requested":`) {
		c := new(schemas.ContextSizes)
		c.Requested = int(s.integer())
		s.lit(`,"sent":`)
		c.Sent = s.boolean()
		if s.opt(`,"trained":`) {
			c.Trained = int(s.integer())
		}
		if s.opt(`,"in_force":`) {
			c.InForce = int(s.integer())
		}
		s.lit(`,"effective":`)
		c.Effective = int(s.integer())
		s.lit(`,"source":`)
		c.Source = s.str()
		s.lit(`}`)
		m.Context = c
	}
	if s.opt(`,"chat_syntax":{`) {
		cs := new(schemas.ChatSyntax)
		sep := ""
		for _, f := range []struct {
			key string
			dst *string
		}{{"template", &cs.Template}, {"from", &cs.From}, {"calls", &cs.Calls}, {"reasoning", &cs.Reasoning}, {"none", &cs.None}} {
			if s.opt(sep + `"` + f.key + `":`) {
				*f.dst, sep = s.str(), ","
			}
		}
		s.lit(`}`)
		m.ChatSyntax = cs
	}
	s.lit(`},"harness":{"version":`)
	r.Harness.Version = s.str()
	s.lit(`,"commit":`)
	r.Harness.Commit = s.str()
	s.lit(`,"dirty":`)
	r.Harness.Dirty = s.boolean()
	s.lit(`},"task":`)
	r.Task = s.str()
	s.lit(`,"targets":`)
	r.Targets = s.strs()
	s.lit(`,"names":`)
	r.Names = s.strs()
	s.lit(`,"subject":`)
	r.Subject = s.str()
	s.lit(`,"scope":`)
	r.Scope = s.strs()
	s.lit(`,"suite":`)
	r.Suite = s.str()
	s.lit(`,"python":`)
	r.Python = s.str()
	s.lit(`,"repo":{"path":`)
	r.Repo.Path = s.str()
	s.lit(`,"commit":`)
	r.Repo.Commit = s.str()
	if s.opt(`,"url":`) {
		r.Repo.URL = s.str()
	}
	s.lit(`}`)
	if s.opt(`,"max_steps":`) {
		r.MaxSteps = int(s.integer())
	}
	if s.opt(`,"native_tools":`) {
		r.NativeTools = s.boolean()
	}
	if s.opt(`,"interactive":`) {
		r.Interactive = s.boolean()
	}
	if s.opt(`,"tags":`) {
		r.Tags = s.strs()
	}
	s.lit(`,"started_at":`)
	r.StartedAt = s.time()
	if !s.end() || schemas.CheckSchema(r.Schema) != nil {
		return nil, false
	}
	return r, true
}

// decodeRunEndLine is decodeTurnLine for a run_end.
func decodeRunEndLine(line []byte) (*schemas.RunEnd, bool) {
	s := newScanner(line)
	defer s.release()
	e := new(schemas.RunEnd)
	e.Type = schemas.TypeRunEnd
	s.lit(`{"type":"run_end","run_id":`)
	e.RunID = s.str()
	s.lit(`,"verdict":`)
	e.Verdict = schemas.Verdict(s.str())
	s.lit(`,"failure_class":`)
	e.FailureClass = schemas.FailureClass(s.str())
	s.lit(`,"checks":{"ran":`)
	e.Checks.Ran = s.boolean()
	s.lit(`,"passed":`)
	e.Checks.Passed = s.boolean()
	s.lit(`,"first_failure":`)
	e.Checks.FirstFailure = s.str()
	s.lit(`},"claimed_done":`)
	e.ClaimedDone = s.boolean()
	s.lit(`,"stop_reason":`)
	e.StopReason = schemas.StopReason(s.str())
	s.lit(`,"steps":`)
	e.Steps = int(s.integer())
	s.lit(`,"model_steps":`)
	e.ModelSteps = int(s.integer())
	s.lit(`,"writes":`)
	e.Writes = s.writes()
	s.lit(`,"suite_before":`)
	s.suiteCounts(&e.SuiteBefore)
	s.lit(`,"suite_after":`)
	s.suiteCounts(&e.SuiteAfter)
	s.lit(`,"patch":`)
	e.Patch = s.str()
	s.lit(`,"duration_ms":`)
	e.DurationMS = s.integer()
	if s.opt(`,"reason":`) {
		e.Reason = s.str()
	}
	if s.opt(`,"error":`) {
		e.Error = s.str()
	}
	if s.opt(`,"stuck":{"code":`) {
		st := &schemas.Stuck{Code: schemas.Code(s.str())}
		s.lit(`,"times":`)
		st.Times = int(s.integer())
		s.lit(`,"from_step":`)
		st.FromStep = int(s.integer())
		s.lit(`,"draft":`)
		st.Draft = s.str()
		s.lit(`}`)
		e.Stuck = st
	}
	if s.opt(`,"warnings":`) {
		e.Warnings = s.strs()
	}
	s.lit(`,"ended_at":`)
	e.EndedAt = s.time()
	if !s.end() {
		return nil, false
	}
	return e, true
}

func (s *turnScanner) writes() []schemas.Write {
	s.lit("[")
	if s.opt("]") {
		return []schemas.Write{}
	}
	var out []schemas.Write
	for !s.bad {
		var w schemas.Write
		s.lit(`{"path":`)
		w.Path = s.str()
		s.lit(`,"added":`)
		w.Added = int(s.integer())
		s.lit(`,"removed":`)
		w.Removed = int(s.integer())
		s.lit("}")
		out = append(out, w)
		if !s.opt(",") {
			break
		}
	}
	s.lit("]")
	return out
}

func (s *turnScanner) suiteCounts(c *schemas.SuiteCounts) {
	s.lit(`{"ran":`)
	c.Ran = int(s.integer())
	s.lit(`,"passed":`)
	c.Passed = int(s.integer())
	s.lit(`,"failed":`)
	c.Failed = int(s.integer())
	s.lit(`,"errors":`)
	c.Errors = int(s.integer())
	if s.opt(`,"skipped":`) {
		c.Skipped = int(s.integer())
	}
	s.lit(`,"import_error":`)
	c.ImportError = s.str()
	if s.opt(`,"no_tests":`) {
		c.NoTests = s.boolean()
	}
	if s.opt(`,"timed_out":`) {
		c.TimedOut = s.boolean()
	}
	if s.opt(`,"exit_code":`) {
		c.ExitCode = int(s.integer())
	}
	if s.opt(`,"exit_status_only":`) {
		c.ExitStatusOnly = s.boolean()
	}
	if s.opt(`,"not_run":`) {
		c.NotRun = s.boolean()
	}
	s.lit("}")
}

// float reads a JSON number and converts it as encoding/json does, with
// strconv.ParseFloat; a number out of range is left to encoding/json.
func (s *turnScanner) float() float64 {
	if s.bad {
		return 0
	}
	b, start := s.b, s.i
	i := start
	digits := func() int {
		n := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	if i < len(b) && b[i] == '0' {
		i++
	} else if digits() == 0 {
		s.bad = true
		return 0
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			s.bad = true
			return 0
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			s.bad = true
			return 0
		}
	}
	f, err := strconv.ParseFloat(string(b[start:i]), 64)
	if err != nil {
		s.bad = true
		return 0
	}
	s.i = i
	return f
}
