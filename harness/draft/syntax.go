package draft

import (
	"encoding/json"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/pyharness/pyharness/schemas"
)

// Syntax is how one model writes its tool calls and its reasoning, as its
// own chat template writes them (package draft/learn learns it by
// rendering probe conversations). A reply that matches it is read
// exactly, before any of the parser's general readers; a reply cut
// inside its reasoning block is refused.
//
// The strings are literal text with two kinds of holes: HoleNumber
// stands for a call's index (digits), HoleID for the call id the caller
// gave. Whitespace between tokens is read loosely (any run, or none);
// around an argument's value it is read exactly, since it may be the
// value's own.
type Syntax struct {
	// Template is the digest of the template the syntax was learned from
	// ("sha256:…") and Name where it came from.
	Template string `json:"template"`
	Name     string `json:"name,omitempty"`
	// Calls is nil when the template renders no tool call.
	Calls *CallSyntax `json:"calls,omitempty"`
	// Reasoning is nil when the template renders no reasoning.
	Reasoning *ReasoningSyntax `json:"reasoning,omitempty"`

	once     sync.Once
	compiled *compiledSyntax
}

// CallSyntax is how a template writes the tool calls of one assistant
// turn: Open, then each call (CallOpen, the name and the arguments in
// their order with Between between them, CallClose) with Separator
// between calls, then Close.
type CallSyntax struct {
	Open      string `json:"open,omitempty"`
	CallOpen  string `json:"call_open,omitempty"`
	Between   string `json:"between,omitempty"`
	CallClose string `json:"call_close,omitempty"`
	Separator string `json:"separator,omitempty"`
	Close     string `json:"close,omitempty"`
	// NameLast: the arguments come before the name.
	NameLast bool `json:"name_last,omitempty"`
	// Args is how the arguments are written: ArgsJSON (one JSON object),
	// ArgsJSONString (a JSON string holding the object) or ArgsFields (one
	// field per argument, as Fields says).
	Args   string       `json:"args"`
	Fields *FieldSyntax `json:"fields,omitempty"`
}

// FieldSyntax is how a template writes arguments one by one (key and
// value tags, parameter elements, a Python call's keywords, the
// template's own notation): Open, then each field (FieldOpen, the key,
// KeyEnd, the value, FieldClose) with Separator between fields, then
// Close.
type FieldSyntax struct {
	Open       string `json:"open,omitempty"`
	FieldOpen  string `json:"field_open,omitempty"`
	KeyEnd     string `json:"key_end"`
	FieldClose string `json:"field_close,omitempty"`
	Separator  string `json:"separator,omitempty"`
	Close      string `json:"close,omitempty"`
	// Values is how a string value is written: ValuesRaw (as it is) or
	// ValuesJSON (escaped as inside a JSON string).
	Values string `json:"values"`
	// Quote is the template's string quote when KeyEnd ends with it and
	// FieldClose starts with it ("'", `<|"|>`): a value written without
	// it is a number or a list.
	Quote string `json:"quote,omitempty"`
	// ValueOpen and ValueClose wrap a value that needs it (CDATA).
	ValueOpen  string `json:"value_open,omitempty"`
	ValueClose string `json:"value_close,omitempty"`
}

// ReasoningSyntax is how a template marks reasoning.
type ReasoningSyntax struct {
	Open  string `json:"open"`
	Close string `json:"close"`
	// Field is the message field the template renders it from.
	Field string `json:"field,omitempty"`
	// PromptOpens: the generation prompt ends with Open, so a reply
	// begins inside its reasoning and one without Close never left it.
	PromptOpens bool `json:"prompt_opens,omitempty"`
	// OpensWhenThinking: the generation prompt opens it when thinking is
	// switched on (enable_thinking); see Syntax.Thinking.
	OpensWhenThinking bool `json:"prompt_opens_when_thinking,omitempty"`
	// AnswerOpen is what the template writes between the close mark and
	// the answer (<|START_RESPONSE|>), taken off the answer.
	AnswerOpen string `json:"answer_open,omitempty"`
}

// WithoutReasoning is the syntax for content a server already took the
// reasoning out of.
func (s *Syntax) WithoutReasoning() *Syntax {
	if s == nil || s.Reasoning == nil {
		return s
	}
	return &Syntax{Template: s.Template, Name: s.Name, Calls: s.Calls}
}

// ForReply is the syntax to read one reply with: without its reasoning
// when the server took the reasoning apart (the reply's thinking field is
// set) or the content shows none of the marks and was not cut short, so
// that the content is the answer.
func (s *Syntax) ForReply(rep schemas.Reply) *Syntax {
	if s == nil {
		return nil
	}
	if rs := s.Reasoning; rs != nil && (rep.Thinking != "" || rep.FinishReason != "length" && !strings.Contains(rep.Content, rs.Close) && (rs.Open == "" || !strings.Contains(rep.Content, rs.Open))) {
		return s.WithoutReasoning()
	}
	return s
}

// Thinking is the syntax of a run that switches thinking on: the prompt
// then opens the reasoning wherever the template opens it for thinking.
func (s *Syntax) Thinking() *Syntax {
	if s == nil || s.Reasoning == nil || !s.Reasoning.OpensWhenThinking {
		return s
	}
	r := *s.Reasoning
	r.PromptOpens = true
	return &Syntax{Template: s.Template, Name: s.Name, Calls: s.Calls, Reasoning: &r}
}

// How a learned syntax writes arguments.
const (
	ArgsJSON       = "json"
	ArgsJSONString = "json-string"
	ArgsFields     = "fields"
	ValuesRaw      = "raw"
	ValuesJSON     = "json"
)

// The holes of a syntax's strings.
const (
	HoleNumber = "⟨n⟩"
	HoleID     = "⟨id⟩"
	// HoleName is the call's name written again (an element named for
	// the tool closes with it), HoleKey an argument's key in its close.
	HoleName = "⟨name⟩"
	HoleKey  = "⟨key⟩"
	// HoleAny is an attribute's value that changes with the argument's
	// type (type="string", string="true").
	HoleAny = "⟨any⟩"
)

// sourceTemplate is the reasoning source recorded for a block read by
// a learned syntax: schemas' enum has no other name for a marked block.
const sourceTemplate = schemas.ReasoningThinkTag

// learnedCall is one call read by a learned syntax.
type learnedCall struct {
	name string
	args map[string]any
}

type compiledSyntax struct {
	open      []*regexp.Regexp // Open, then Open without leading tokens
	callOpen  *regexp.Regexp
	between   *regexp.Regexp
	callClose *regexp.Regexp
	sep       *regexp.Regexp
	close     *regexp.Regexp
	f         *compiledFields
}

type compiledFields struct {
	open, fieldOpen, sep, close *regexp.Regexp
	keyEnd, keyEndBare          *regexp.Regexp
	fieldClose, fieldCloseBare  string
}

var (
	holeRE   = regexp.MustCompile(`⟨n⟩|⟨id⟩|⟨name⟩|⟨any⟩|\s+`)
	tokenRun = regexp.MustCompile(`<[^<>]*>|\[[^\[\]]*\]|[^\s<\[]+`)
)

// pattern compiles a syntax string to an expression anchored at its
// start: holes become what they stand for, whitespace loose unless exact.
func pattern(s string, exact bool) *regexp.Regexp {
	var b strings.Builder
	b.WriteString(`^`)
	if !exact {
		b.WriteString(`\s*`)
		s = strings.TrimLeft(s, " \t\r\n")
	}
	last := 0
	for _, m := range holeRE.FindAllStringIndex(s, -1) {
		b.WriteString(regexp.QuoteMeta(s[last:m[0]]))
		switch h := s[m[0]:m[1]]; {
		case h == HoleNumber:
			b.WriteString(`\d+`)
		case h == HoleID:
			b.WriteString(`[A-Za-z0-9_\-]+`)
		case h == HoleAny:
			b.WriteString(`[^"<>]*`)
		case h == HoleName:
			b.WriteString(`[A-Za-z_][A-Za-z0-9_.\-]*`)
		case exact:
			b.WriteString(regexp.QuoteMeta(h))
		default:
			b.WriteString(`\s*`)
		}
		last = m[1]
	}
	b.WriteString(regexp.QuoteMeta(s[last:]))
	return regexp.MustCompile(b.String())
}

func (s *Syntax) compile() *compiledSyntax {
	s.once.Do(func() {
		c := s.Calls
		if c == nil {
			return
		}
		cs := &compiledSyntax{
			callOpen: pattern(strings.TrimLeft(c.CallOpen, " \t\r\n"), false), between: pattern(c.Between, false),
			callClose: pattern(c.CallClose, false), sep: pattern(c.Separator, false), close: pattern(c.Close, false),
		}
		// Open may begin with tokens the template writes but a model does
		// not (an empty thinking block, a role header): each shorter
		// suffix of whole tokens is tried after it.
		open := strings.TrimSpace(c.Open)
		for {
			cs.open = append(cs.open, pattern(open, false))
			loc := tokenRun.FindStringIndex(open)
			if loc == nil || loc[1] >= len(open) {
				break
			}
			open = strings.TrimSpace(open[loc[1]:])
		}
		if f := c.Fields; f != nil {
			cf := &compiledFields{
				open: pattern(f.Open, false), fieldOpen: pattern(f.FieldOpen, false), sep: pattern(f.Separator, false),
				close: pattern(f.Close, false), keyEnd: pattern(f.KeyEnd, true), fieldClose: f.FieldClose, fieldCloseBare: f.FieldClose,
			}
			if f.Quote != "" {
				cf.keyEndBare = pattern(strings.TrimSuffix(f.KeyEnd, f.Quote), true)
				cf.fieldCloseBare = strings.TrimPrefix(f.FieldClose, f.Quote)
			}
			cs.f = cf
		}
		s.compiled = cs
	})
	return s.compiled
}

// readCalls finds the calls written in the syntax in text: the first place
// the calls open, and every call after it. ok is false when text holds
// none in this syntax; bad says why calls that open in it do not read.
func (s *Syntax) readCalls(text string) (calls []learnedCall, start, end int, bad string, ok bool) {
	cs := s.compile()
	if cs == nil {
		return nil, 0, 0, "", false
	}
	if strings.TrimSpace(s.Calls.Open) == "" && strings.TrimSpace(s.Calls.CallOpen) == "" {
		// Nothing opens the calls: they are the reply itself.
		i := len(text) - len(strings.TrimLeft(text, " \t\r\n"))
		calls, end, bad := s.readFrom(text, i)
		return calls, i, end, bad, len(calls) > 0
	}
	for _, open := range cs.open {
		for from := 0; from < len(text); {
			i, j, found := findOpen(text, from, open, cs.callOpen)
			if !found {
				break
			}
			calls, end, bad := s.readFrom(text, j)
			if len(calls) > 0 {
				return calls, i, end, bad, true
			}
			from = i + 1
		}
	}
	return nil, 0, 0, "", false
}

// findOpen finds where open followed by callOpen matches in text at or
// after from, returning the match's start and the end of callOpen.
func findOpen(text string, from int, open, callOpen *regexp.Regexp) (int, int, bool) {
	for i := from; i < len(text); i++ {
		if i > 0 && !boundary(text, i) {
			continue
		}
		t := text[i:]
		m := open.FindStringIndex(t)
		if m == nil {
			continue
		}
		k := i + m[1]
		n := callOpen.FindStringIndex(text[k:])
		if n == nil || (m[1] == 0 && n[1] == 0) {
			continue
		}
		return i, k + n[1], true
	}
	return 0, 0, false
}

// boundary: a call may open at i only where a token or a word may start.
func boundary(text string, i int) bool {
	c := text[i-1]
	return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '>' || c == ']' || c == '}' || c == '|' || c == '.' || c == ':' || c == '`' || text[i] == '<' || text[i] == '['
}

// readFrom reads calls from i, just after the first CallOpen.
func (s *Syntax) readFrom(text string, i int) ([]learnedCall, int, string) {
	c, cs := s.Calls, s.compiled
	var calls []learnedCall
	for {
		var call learnedCall
		var bad string
		if !c.NameLast {
			call.name, i, bad = readName(text, i)
			if bad == "" {
				i, bad = expect(text, i, cs.between, "between the name and the arguments")
			}
			if bad == "" {
				call.args, i, bad = s.readArgs(text, i)
			}
		} else {
			call.args, i, bad = s.readArgs(text, i)
			if bad == "" {
				i, bad = expect(text, i, cs.between, "between the arguments and the name")
			}
			if bad == "" {
				call.name, i, bad = readName(text, i)
			}
		}
		if bad != "" {
			return calls, i, bad
		}
		calls = append(calls, call)
		// The last call's close and the calls' close may be stop tokens
		// the server did not pass on.
		if m := cs.callClose.FindStringIndex(text[i:]); m != nil {
			i += m[1]
		} else if strings.TrimSpace(text[i:]) != "" {
			return calls, i, "the call to " + call.name + " is not closed"
		}
		if m := cs.sep.FindStringIndex(text[i:]); m != nil {
			if n := cs.callOpen.FindStringIndex(text[i+m[1]:]); n != nil && m[1]+n[1] > 0 {
				i += m[1] + n[1]
				continue
			}
		}
		if m := cs.close.FindStringIndex(text[i:]); m != nil {
			i += m[1]
		}
		return calls, i, ""
	}
}

func readName(text string, i int) (string, int, string) {
	m := leadingName(text[i:])
	if m == "" {
		return "", i, "no tool name where the template puts it"
	}
	return m, i + len(m), ""
}

func expect(text string, i int, re *regexp.Regexp, what string) (int, string) {
	m := re.FindStringIndex(text[i:])
	if m == nil {
		return i, "the text " + what + " is not the template's"
	}
	return i + m[1], ""
}

// readArgs reads a call's arguments at i.
func (s *Syntax) readArgs(text string, i int) (map[string]any, int, string) {
	switch s.Calls.Args {
	case ArgsJSON, ArgsJSONString:
		dec := json.NewDecoder(strings.NewReader(text[i:]))
		dec.UseNumber()
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, i, "the arguments are not the JSON the template writes"
		}
		end := i + int(dec.InputOffset())
		if s.Calls.Args == ArgsJSONString {
			var str string
			if json.Unmarshal(raw, &str) != nil {
				return nil, i, "the arguments are not a JSON string holding an object, as the template writes them"
			}
			raw = json.RawMessage(str)
		}
		args, ok := decodeArgs(raw)
		if !ok {
			return nil, i, "the arguments are not one JSON object"
		}
		return args, end, ""
	}
	return s.readFields(text, i)
}

// readFields reads arguments written one field at a time.
func (s *Syntax) readFields(text string, i int) (map[string]any, int, string) {
	cf := s.compiled.f
	args := map[string]any{}
	var bad string
	if i, bad = expect(text, i, cf.open, "that opens the arguments"); bad != "" {
		return nil, i, bad
	}
	// No fields at all: the arguments close at once.
	if m := cf.fieldOpen.FindStringIndex(text[i:]); m == nil || leadingName(text[i+m[1]:]) == "" {
		i, bad = expect(text, i, cf.close, "that closes the arguments")
		return args, i, bad
	}
	for {
		if i, bad = expect(text, i, cf.fieldOpen, "before an argument's name"); bad != "" {
			return nil, i, bad
		}
		key := leadingName(text[i:])
		if key == "" {
			return nil, i, "no argument name where the template puts it"
		}
		i += len(key)
		closing, bare := strings.ReplaceAll(cf.fieldClose, HoleKey, key), false
		if m := cf.keyEnd.FindStringIndex(text[i:]); m != nil {
			i += m[1]
		} else if cf.keyEndBare != nil && cf.keyEndBare.MatchString(text[i:]) {
			m := cf.keyEndBare.FindStringIndex(text[i:])
			i += m[1]
			closing, bare = strings.ReplaceAll(cf.fieldCloseBare, HoleKey, key), true
		} else {
			return nil, i, "the text after argument " + key + " is not the template's"
		}
		// The value runs to the first close after which the next field or
		// the end of the arguments follows.
		var v any
		found, more := false, false
		for _, strict := range []bool{true, false} {
			for k := i; k <= len(text) && !found; {
				j := strings.Index(text[k:], closing)
				if j < 0 {
					break
				}
				j += k
				after := j + len(closing)
				next, last := s.fieldsGoOn(text, after, strict)
				if next || last {
					if val, ok := s.fieldValue(text[i:j], bare); ok {
						v, found, more, i = val, true, next, after
						if next {
							m := cf.sep.FindStringIndex(text[i:])
							i += m[1]
						}
					}
				}
				k = j + 1
			}
			if found {
				break
			}
		}
		if !found {
			return nil, i, "argument " + key + " has no value closed as the template closes it"
		}
		args[key] = v
		if more {
			continue
		}
		i, bad = expect(text, i, cf.close, "that closes the arguments")
		return args, i, bad
	}
}

// fieldsGoOn says whether, at i just after a field's close, another field
// follows (next) or the arguments end (last). strict asks that the end
// be followed by the call's close and then the end of the calls, so that
// a value holding the close tags is not cut short.
func (s *Syntax) fieldsGoOn(text string, i int, strict bool) (next, last bool) {
	cf, cs := s.compiled.f, s.compiled
	if m := cf.sep.FindStringIndex(text[i:]); m != nil {
		if g := cf.fieldOpen.FindStringIndex(text[i+m[1]:]); g != nil {
			k := i + m[1] + g[1]
			if key := leadingName(text[k:]); key != "" {
				rest := text[k+len(key):]
				if cf.keyEnd.MatchString(rest) || (cf.keyEndBare != nil && cf.keyEndBare.MatchString(rest)) {
					return true, false
				}
			}
		}
	}
	m := cf.close.FindStringIndex(text[i:])
	if m == nil {
		return false, false
	}
	k := i + m[1]
	if s.Calls.NameLast {
		return false, cs.between.MatchString(text[k:])
	}
	rest := text[k:]
	if strings.TrimSpace(rest) == "" {
		return false, true
	}
	if c := cs.callClose.FindStringIndex(rest); c != nil && (s.Calls.CallClose != "" || !strict) {
		if !strict {
			return false, true
		}
		return false, s.callsEnd(rest[c[1]:])
	}
	return false, !strict && s.Calls.CallClose == "" && (cs.sep.MatchString(rest) || cs.close.MatchString(rest))
}

// callsEnd reports whether text, just after a call's close, is where the
// calls end or the next call opens.
func (s *Syntax) callsEnd(text string) bool {
	cs := s.compiled
	if strings.TrimSpace(text) == "" {
		return true
	}
	if m := cs.sep.FindStringIndex(text); m != nil && cs.callOpen.MatchString(text[m[1]:]) && strings.TrimSpace(s.Calls.CallOpen) != "" {
		return true
	}
	return strings.TrimSpace(s.Calls.Close) != "" && cs.close.MatchString(text)
}

// fieldValue decodes one value as the template writes it; bare is a value
// written without the template's quote (a number, a list).
func (s *Syntax) fieldValue(v string, bare bool) (any, bool) {
	f := s.Calls.Fields
	if f.ValueOpen != "" {
		if inner, ok := strings.CutPrefix(v, f.ValueOpen); ok {
			inner, ok = strings.CutSuffix(inner, f.ValueClose)
			if !ok {
				return nil, false
			}
			return inner, true
		}
	}
	if bare {
		t := strings.TrimSpace(v)
		if f.Quote != "" {
			t = strings.ReplaceAll(t, f.Quote, `"`)
		}
		dec := json.NewDecoder(strings.NewReader(t))
		dec.UseNumber()
		var x any
		if dec.Decode(&x) == nil && dec.InputOffset() == int64(len(t)) {
			return x, true
		}
		return strings.TrimSpace(v), true
	}
	if f.Values == ValuesJSON {
		var str string
		if json.Unmarshal([]byte(`"`+v+`"`), &str) != nil {
			return nil, false
		}
		return str, true
	}
	if list, ok := s.elementList(v); ok {
		return list, true
	}
	// A raw value that is a JSON list or object is one (templates write
	// non-string values with tojson), and so is a list as Python prints
	// it (a template that prints a list as a string).
	if t := strings.TrimSpace(v); strings.HasPrefix(t, "[") || strings.HasPrefix(t, "{") {
		dec := json.NewDecoder(strings.NewReader(t))
		dec.UseNumber()
		var x any
		if dec.Decode(&x) == nil && dec.InputOffset() == int64(len(t)) {
			return x, true
		}
		if strings.HasPrefix(t, "[") {
			if x, n, bad := parseValue(t, 0, 0); bad == "" && n == len(t) {
				return x, true
			}
		}
	}
	return v, true
}

// elementList reads a list the template writes as elements, each item in
// a tag of its own (<item>a</item><item>b</item>), between the same glue
// its fields open with.
func (s *Syntax) elementList(v string) ([]any, bool) {
	f := s.Calls.Fields
	if glue := f.FieldOpen[:max(strings.LastIndex(f.FieldOpen, "<"), 0)]; strings.TrimSpace(glue) != "" {
		v = strings.ReplaceAll(v, glue, "")
	}
	m := childOpenRE.FindStringSubmatch(v)
	if m == nil {
		return nil, false
	}
	open, closeTag := "<"+m[1]+">", "</"+m[1]+">"
	var out []any
	rest := v
	for strings.TrimSpace(rest) != "" {
		t := strings.TrimLeft(rest, " \t\r\n")
		body, ok := strings.CutPrefix(t, open)
		if !ok {
			return nil, false
		}
		item, after, ok := strings.Cut(body, closeTag)
		if !ok {
			return nil, false
		}
		out = append(out, item)
		rest = after
	}
	return out, len(out) > 0
}

// splitLearned reads content's reasoning by the learned markers. ok is
// false when the content holds none of them.
func (r *ReasoningSyntax) split(content string) (split, bool) {
	if r == nil || r.Close == "" {
		return split{}, false
	}
	t := strings.TrimLeft(content, " \t\r\n")
	opened := r.Open != "" && strings.HasPrefix(t, r.Open)
	if opened {
		t = t[len(r.Open):]
	}
	// A close mark with no opening counts for a block that begins the
	// reply: the prompt opened it, or the template has no open mark.
	mayOpen := opened || r.PromptOpens || r.OpensWhenThinking || r.Open == ""
	end := strings.Index(t, r.Close)
	switch {
	case end >= 0 && mayOpen && (opened || !insideFence(t[:end])) && (r.Open == "" || opened || !strings.Contains(t[:end], r.Open)):
		answer := strings.TrimLeft(t[end+len(r.Close):], " \t\r\n")
		if r.AnswerOpen != "" {
			answer = strings.TrimPrefix(answer, r.AnswerOpen)
		}
		return split{Answer: answer, Reasoning: strings.TrimSpace(t[:end]), Source: sourceTemplate}, true
	case end < 0 && (opened || r.PromptOpens):
		return split{Reasoning: strings.TrimSpace(t), Source: sourceTemplate, Cut: true}, true
	}
	return split{}, false
}

// ParseWith reads one action from a reply as Parse does, with the syntax
// learned from the model's own template as the first source of calls: its
// reasoning marks come off first, then the template's reading and the
// general readers' are weighed by one rule. A whole call beats a partial
// one, whatever its source, so the template never makes a reading worse;
// where both are whole and differ, the template's stands for the text it
// read, and a different whole call in the rest of the reply makes the
// reply ambiguous, so that no source hides another's reading. A nil
// syntax is Parse.
func ParseWith(syn *Syntax, content string, calls []schemas.ToolCall) (Action, error) {
	if syn == nil || len(calls) > 0 {
		return Parse(content, calls)
	}
	text := strings.ReplaceAll(content, "\r\n", "\n")
	p := newParser(content, viaText)
	if s, ok := syn.Reasoning.split(text); ok {
		p.shape(shapeThinkBlock)
		if s.Cut {
			return Action{}, p.refuse(CodeReasoningCut, "your reply ended inside its reasoning, before any action, and nothing in the reasoning is acted on")
		}
		text = s.Answer
	}
	general, gerr := Parse(text, nil)
	if gerr == nil && p.shapes&shapeBit[shapeThinkBlock] != 0 {
		p.shapes |= parseShapes(general.Shape)
		general.Shape = p.shapeString()
	}
	learned, start, end, lerr, found := p.readLearned(syn, text)
	switch {
	case !found:
		return general, gerr
	case lerr != nil:
		// A partial reading (a verb without its path) or an unreadable
		// one: a whole reading by the general readers beats it.
		if lerr.Code == "" && (gerr == nil || codeOf(gerr) != "") {
			return general, gerr
		}
		return Action{}, lerr
	case gerr == nil && !sameEffect(general, learned):
		// Two whole readings: the template's of its own calls, and the
		// general readers' of something else in the reply, or of the
		// same calls read another way. Only the rest of the reply can
		// say which.
		rest := text[:start] + strings.Repeat(" ", end-start) + text[end:]
		if other, err := Parse(rest, nil); err == nil && !sameEffect(other, learned) {
			return Action{}, p.refuse(codeAmbiguous, "it holds 2 different calls ("+Canonical(learned)+"; "+Canonical(other)+"), and which one you meant is not for the harness to guess")
		}
	}
	if e := p.notActedOn(text, learned, nil); e != nil {
		return Action{}, e
	}
	return learned, nil
}

// sameEffect reports whether two actions do the same, however each was
// read.
func sameEffect(a, b Action) bool {
	a.Shape, a.Via, a.Repairs, b.Shape, b.Via, b.Repairs = "", "", nil, "", "", nil
	return reflect.DeepEqual(a, b)
}

// codeOf is the code of a refused draft's error, "" for any other.
func codeOf(err error) schemas.Code {
	if e, ok := err.(*Error); ok {
		return e.Code
	}
	return ""
}

// readLearned reads the calls written in the template's syntax: found is
// false when the reply holds none, and start and end are where they lie.
// Two different calls are refused; a call that does not make an action is
// a partial reading (err).
func (p *parser) readLearned(syn *Syntax, text string) (a Action, start, end int, err *Error, found bool) {
	calls, start, end, _, ok := syn.readCalls(text)
	if !ok {
		return Action{}, 0, 0, nil, false
	}
	var acts []Action
	seen := map[string]bool{}
	var read []string
	for _, c := range calls {
		a, err := p.callToAction(c.name, keyed(c.args))
		if err != nil {
			return Action{}, start, end, err, true
		}
		a.Shape, a.Via, a.Repairs = "", "", nil
		key, _ := json.Marshal(a)
		if !seen[string(key)] {
			seen[string(key)] = true
			acts = append(acts, a)
			read = append(read, Canonical(a))
		}
	}
	if len(acts) > 1 {
		p.verb = acts[0].Verb
		return Action{}, start, end, p.refuse(codeAmbiguous, "it holds "+strconv.Itoa(len(acts))+" different calls ("+strings.Join(read, "; ")+"), and which one you meant is not for the harness to guess"), true
	}
	if strings.TrimSpace(text[:start]) != "" || strings.TrimSpace(text[end:]) != "" {
		p.shape(shapeChatter)
	}
	if len(calls) > 1 {
		p.repair(repairExtraActionsIgnored)
	}
	p.verb = acts[0].Verb
	a = p.done(acts[0])
	a.Shape = withTemplateSyntax(a.Shape)
	return a, start, end, nil, true
}

// withTemplateSyntax adds ShapeTemplateSyntax to a shape string.
func withTemplateSyntax(shape string) string {
	if shape == ShapeCanonical {
		return ShapeTemplateSyntax
	}
	return shape + "+" + ShapeTemplateSyntax
}

// parseShapes turns a shape string back into the parser's bits.
func parseShapes(shape string) uint64 {
	var bits uint64
	for _, c := range strings.Split(shape, "+") {
		bits |= shapeBit[c]
	}
	return bits
}
