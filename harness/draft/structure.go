package draft

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
)

// Reading calls by their structure, for a reply in a wrapper no reader
// knows (a model whose template pyharness was not given). A call is a
// tool name of the lexicon followed, with nothing but tokens, tags and
// punctuation between, by its arguments in one of the encodings models
// write: a JSON object (or a relaxed one: single quotes, bare keys, a
// template's own quote token), a Python call's keywords, or elements, one
// per argument (<parameter name="k">v</…>, <parameter=k>v</…>, or
// alternating key and value tags). A JSON value anywhere in the reply
// that holds calls counts too ([{"NAME": {…}}], {"tool": {…}}). Nothing
// here is a list of wrappers: the wrapper is whatever lies around.

var (
	// siteRE finds names where a call's name may stand.
	siteRE = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*`)
	// betweenRE is one piece of what may stand between a name and its
	// arguments: whitespace, punctuation, an index, a special token, a tag,
	// a special token with the value it labels (<|constrain|>json,
	// [CALL_ID]a1b2).
	// An attribute of the tag the name stands in (index="1") is one too.
	betweenRE = regexp.MustCompile(`^(?:[ \t\r\n]+|[:"'=>\]|,]|[0-9]+|<\|[^<>\s]*\|>[A-Za-z_][\w-]*|<[^<>\s]*>|\[[A-Z_]+\][\w-]*|[A-Za-z_][\w-]*="[^"<>]*")`)
	// elemOpenRE opens an argument element: <TAG name="KEY" …>, <TAG=KEY>
	// or a bare <TAG>.
	elemOpenRE = regexp.MustCompile(`^<([^\s<>/="]+)(?:=([A-Za-z_][\w.-]*)|\s+(?:name|key)="([A-Za-z_][\w.-]*)"[^<>]*)?>`)
	// quoteTokenRE is a special token that stands for a quote (<|"|>).
	quoteTokenRE = regexp.MustCompile(`<\|["'][^<>]*\|>|<\|[^<>]*["']\|>`)
	// closingRunRE is a run of closing tags and special tokens.
	closingRunRE = regexp.MustCompile(`^(?:\s+|</[^<>]*>|<\|[^<>]*\|>|<｜[^<>]*｜>|<[^<>\s]*\|>|\[/?[A-Z_]+\])*`)
)

// structureCalls reads the calls text holds by structure. skip says
// whether a byte lies in a fence of code.
func structureCalls(text string, skip func(int) bool) []callCand {
	var out []callCand
	covered := func(i int) bool {
		for _, c := range out {
			if i >= c.start && i < c.end {
				return true
			}
		}
		return false
	}
	// A reply that is one tool block, a field a line.
	if c, ok := lineFieldCall(text); ok {
		c.start, c.end = 0, len(text)
		out = append(out, c)
	}
	// TOOL_NAME: / BEGIN_ARG: blocks.
	for _, c := range argBlockCalls(text) {
		if !skip(c.start) {
			out = append(out, c)
		}
	}
	// A tool's name, then its arguments: first, so that an object of
	// arguments after its tool's name ({"name": "locate"} of skill) is
	// read as the arguments, not as a call of its own.
	for _, m := range siteRE.FindAllStringIndex(text, -1) {
		if covered(m[0]) || skip(m[0]) {
			continue
		}
		name := text[m[0]:m[1]]
		if _, ok := lookupTool(name); !ok {
			continue
		}
		// The arguments open with a bracket or a tag, after nothing but
		// tokens and punctuation; a name followed by words is prose.
		c, ok := callAfter(text, name, m[0], m[1])
		if !ok {
			continue
		}
		// What stands right before the name on its line, tokens and
		// marks only, wraps the call.
		if w := wrapperStart(text, c.start); w < c.start {
			c.start = w
			if !slices.Contains(c.shapes, shapeCallTag) {
				c.shapes = append(c.shapes, shapeCallTag)
			}
		}
		out = append(out, c)
	}
	// JSON that holds calls, wherever it starts.
	for i := 0; i < len(text); i++ {
		if (text[i] != '{' && text[i] != '[') || covered(i) || skip(i) {
			continue
		}
		v, end, strict, ok := anyJSON(text, i)
		if !ok {
			continue
		}
		cands := structJSON(v)
		if !strict {
			// Relaxed notation is read only for a tool the lexicon knows:
			// {name: "locate", args: […]} inside a call is its arguments.
			cands = slices.DeleteFunc(cands, func(c callCand) bool { _, ok := lookupTool(c.name); return !ok })
		}
		start := i
		if w := wrapperStart(text, i); w < i {
			start = w
			for k := range cands {
				cands[k].shapes = append(cands[k].shapes, shapeCallTag)
			}
		}
		for k := range cands {
			cands[k].start, cands[k].end = start, end
		}
		if len(cands) > 0 {
			out = append(out, cands...)
			i = end - 1
		}
	}
	sortCands(out)
	return out
}

// wrapperStart is where the run of tokens (<…>, […]), the words between
// them and marks (>>>, ::) that ends at i, on i's line, starts: i when
// none does.
func wrapperStart(text string, i int) int {
	for i > 0 {
		switch c := text[i-1]; {
		case c == '>' || c == ']':
			open := byte('<')
			if c == ']' {
				open = '['
			}
			k := strings.LastIndexByte(text[:i-1], open)
			if k < 0 || strings.IndexByte(text[k:i], '\n') >= 0 || strings.IndexByte(text[k:i], ' ') >= 0 {
				if c == '>' {
					i--
					continue
				}
				return i
			}
			i = k
		case strings.IndexByte("|:=~@#$%^&*!", c) >= 0:
			i--
		case c == ' ' && i < len(text) && isIdentByte(text[i]):
			// A token's value and a space before a key
			// (<|channel|>commentary to=NAME).
			w := i - 1
			for w > 0 && isIdentByte(text[w-1]) {
				w--
			}
			if w == i-1 || w == 0 || (text[w-1] != '>' && text[w-1] != ']') {
				return i
			}
			i = w
		case isIdentByte(c):
			// A word between two tokens is the first one's value
			// (<|call|>function<|sep|>), a word at a line's start glued
			// to a token or a list is its marker (functools[…]), and a
			// key glued to the name names the call (to=NAME, call:NAME).
			w := i - 1
			for w > 0 && isIdentByte(text[w-1]) {
				w--
			}
			key := text[i] == '=' || text[i] == ':'
			marker := (w == 0 || text[w-1] == '>' || text[w-1] == ']' || text[w-1] == '\n') && (text[i] == '<' || text[i] == '[')
			if !key && !marker {
				return i
			}
			i = w
		default:
			return i
		}
	}
	return i
}

// callAfter reads the arguments of the call named at start..end: at the
// end of the name or after any of the tokens that follow it.
func callAfter(text, name string, start, end int) (callCand, bool) {
	if c, ok := emptyElement(text, name, start, end); ok {
		return c, true
	}
	j := end
	fence := ""
	for {
		if c, ok := argsAt(text, name, start, end, j); ok {
			// Arguments in a fence of their own: its close is the call's.
			if k := skipSpace(text, c.end); fence != "" && strings.HasPrefix(text[k:], fence) {
				c.end = k + len(fence)
			}
			return c, true
		}
		n := len(betweenRE.FindString(text[j:]))
		if n == 0 {
			// A fence that opens on the line after the name holds the
			// arguments (NAME then ```json and the object).
			f, ok := fenceOpenAt(text, j)
			if !ok || fence != "" {
				return callCand{}, false
			}
			fence, n = f, strings.IndexByte(text[j:], '\n')
		}
		j += n
	}
}

// fenceOpenAt reads a fence's opening line at j, after a line break: its
// backticks, when a line of only a fence and its info string starts there.
func fenceOpenAt(text string, j int) (string, bool) {
	if j == 0 || text[j-1] != '\n' || !strings.HasPrefix(text[j:], "```") {
		return "", false
	}
	line, _, ok := strings.Cut(text[j:], "\n")
	if !ok {
		return "", false
	}
	ticks := line[:len(line)-len(strings.TrimLeft(line, "`"))]
	info := strings.TrimSpace(line[len(ticks):])
	if leadingName(info) != info {
		return "", false
	}
	return ticks, true
}

// argsAt reads the arguments of the call named at start..end as they
// open at j.
func argsAt(text, name string, start, end, j int) (callCand, bool) {
	c := callCand{name: name, start: start}
	switch {
	case j < len(text) && text[j] == '{':
		args, n, ok := relaxedObject(text[j:])
		if !ok {
			return c, false
		}
		c.args, c.end, c.shapes = keyed(args), j+n, []string{shapeJSONCall}
	case j == end && j < len(text) && text[j] == '(':
		// A Python call only where a call opens (after a token, a
		// bracket or a line's start): html.replace(…) in code is none.
		if before := strings.TrimRight(text[:start], " \t"); before != "" && !strings.HasSuffix(before, "\n") && !tokenBefore(text, start) && !strings.HasSuffix(before, "[") {
			return c, false
		}
		args, n, reason := parseCall(text[j:])
		if reason != "" {
			// A call whose strings hold their quotes unescaped, as a
			// template that prints values raw writes them.
			if args, n, ok := unescapedCall(text[j:]); ok {
				c.args, c.end, c.shapes = args, j+n, []string{shapePythonCall}
				return c, true
			}
			return c, false
		}
		c.args, c.end, c.shapes = args, j+n, []string{shapePythonCall}
	case j < len(text) && text[j] == '<':
		args, n, ok := elementArgs(text[j:])
		if !ok {
			return c, false
		}
		c.args, c.end, c.shapes = keyed(args), j+n, []string{shapeParameterTags}
	case j > end && (strings.TrimSpace(text[j:]) == "" || closingRunRE.FindString(text[j:]) == text[j:]):
		// A call without arguments at the end of the reply: the name
		// alone between tokens (<tool_call>run_tests</tool_call>).
		if !tokenBefore(text, start) && !inAttribute(text, start) {
			return c, false
		}
		c.args, c.end, c.shapes = keyed(map[string]any{}), len(text), []string{shapeCallTag}
	default:
		return c, false
	}
	return c, true
}

// anyJSON reads the JSON value, or the relaxed one (single quotes, bare
// keys), that starts at i.
func anyJSON(text string, i int) (v any, end int, strict, ok bool) {
	dec := json.NewDecoder(strings.NewReader(text[i:]))
	dec.UseNumber()
	if dec.Decode(&v) == nil {
		return v, i + int(dec.InputOffset()), true, true
	}
	r := relaxed{s: text[i:], quote: quoteTokenRE.FindString(text[i:])}
	v, ok = r.value(0)
	return v, i + r.i, false, ok
}

// emptyElement reads a call whose name is an attribute of an element
// that closes at once (<call tool="run_tests" index="1"></call>): a call
// without arguments.
func emptyElement(text, name string, start, end int) (callCand, bool) {
	if !inAttribute(text, start) {
		return callCand{}, false
	}
	lt := strings.LastIndexByte(text[:start], '<')
	tag := text[lt+1 : lt+identEnd(text[lt+1:], 0)+1]
	gt := strings.IndexByte(text[end:], '>')
	if tag == "" || gt < 0 || strings.ContainsAny(text[end:end+gt], "<\n") {
		return callCand{}, false
	}
	k := skipSpace(text, end+gt+1)
	if !strings.HasPrefix(text[k:], "</"+tag+">") {
		return callCand{}, false
	}
	return callCand{name: name, args: keyed(map[string]any{}), start: start, end: k + len(tag) + 3, shapes: []string{shapeCallTag}}, true
}

// inAttribute reports whether the name at i is an attribute's value in
// an open tag (<invoke name="run_tests">).
func inAttribute(text string, i int) bool {
	t := text[:i]
	if !strings.HasSuffix(t, "=\"") {
		return false
	}
	lt := strings.LastIndexByte(t, '<')
	return lt >= 0 && lt > strings.LastIndexByte(t, '>') && !strings.Contains(t[lt:], "\n")
}

// tokenBefore reports whether a tag or special token ends right before
// i (spaces aside).
func tokenBefore(text string, i int) bool {
	t := strings.TrimRight(text[:i], " \t\r\n")
	return strings.HasSuffix(t, ">") || strings.HasSuffix(t, "]")
}

// structJSON reads the calls a JSON value holds: what jsonCalls reads,
// the tool's name as the key of its arguments ([{"read_file": {…}}]), and
// a call under a "tool" or "function_call" key.
func structJSON(v any) []callCand {
	switch v := v.(type) {
	case []any:
		var out []callCand
		for _, x := range v {
			out = append(out, structJSON(x)...)
		}
		return out
	case map[string]any:
		if c := jsonCalls(v); len(c) > 0 {
			return c
		}
		for _, k := range []string{"tool", "function_call", "call", "tool_call"} {
			if inner, ok := v[k].(map[string]any); ok {
				return structJSON(inner)
			}
		}
		if len(v) == 1 {
			for k, x := range v {
				args, ok := x.(map[string]any)
				if _, known := lookupTool(k); ok && known {
					return []callCand{{name: k, args: keyed(args), shapes: []string{shapeJSONCall}}}
				}
			}
		}
	}
	return nil
}

// relaxedObject reads an object in JSON or in the relaxed notations
// models and templates write: keys bare or in single quotes, strings in
// single quotes, or between a template's own quote token (<|"|>), whose
// content is raw. It returns the object and how many bytes it took.
func relaxedObject(s string) (map[string]any, int, bool) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var raw json.RawMessage
	if dec.Decode(&raw) == nil {
		args, ok := decodeArgs(raw)
		return args, int(dec.InputOffset()), ok
	}
	quote := quoteTokenRE.FindString(s)
	r := relaxed{s: s, quote: quote}
	v, ok := r.value(0)
	if !ok {
		// Strings that hold their quotes unescaped: a template that
		// prints values raw wrote the object, so every string is raw.
		r = relaxed{s: s, quote: quote, raw: true}
		v, ok = r.value(0)
	}
	m, isObj := v.(map[string]any)
	return m, r.i, ok && isObj
}

type relaxed struct {
	s     string
	i     int
	quote string
	// raw reads strings as written, each to the quote after which the
	// notation goes on (unescapedString).
	raw bool
	// tok and tokEnd are the token-quoted string tokenQuoted found.
	tok    string
	tokEnd int
}

// structuralAfterRE is what may follow the quote that ends a string
// written raw: the next key of an object or a call, or the closing
// brackets and nothing more but a token or a line's end.
var structuralAfterRE = regexp.MustCompile(`^[ \t]*(?:,[ \t\r\n]*['"]?[A-Za-z_]\w*['"]?[ \t]*[:=]|[}\])][\s}\])]*(?:<|$))`)

// unescapedString reads the string whose quote is at s[i] as written, no
// escape decoded, to the first same quote that structuralAfterRE follows.
func unescapedString(s string, i int) (string, int, bool) {
	q := s[i]
	for k := i + 1; k < len(s); k++ {
		if s[k] == q && structuralAfterRE.MatchString(s[k+1:]) {
			return s[i+1 : k], k + 1, true
		}
	}
	return "", 0, false
}

// unescapedCall reads a Python call's keyword arguments, their strings
// written raw (unescapedString): (key='…', key2='…').
func unescapedCall(s string) (callArgs, int, bool) {
	c := callArgs{kw: map[string]any{}}
	i := 1
	for {
		i = skipSpace(s, i)
		if i < len(s) && s[i] == ')' {
			return c, i + 1, len(c.kw) > 0
		}
		k := identEnd(s, i)
		j := skipSpace(s, k)
		if k == i || j >= len(s) || s[j] != '=' {
			return c, 0, false
		}
		key := s[i:k]
		j = skipSpace(s, j+1)
		var v any
		var next int
		if j < len(s) && (s[j] == '\'' || s[j] == '"') {
			str, n, ok := unescapedString(s, j)
			if !ok {
				return c, 0, false
			}
			v, next = str, n
		} else {
			x, n, reason := parseValue(s, j, 0)
			if reason != "" {
				return c, 0, false
			}
			v, next = x, n
		}
		c.kw[nameKey(key)] = v
		i = skipSpace(s, next)
		if i < len(s) && s[i] == ',' {
			i++
		}
	}
}

func (r *relaxed) space() {
	for r.i < len(r.s) && strings.IndexByte(" \t\r\n", r.s[r.i]) >= 0 {
		r.i++
	}
}

func (r *relaxed) value(depth int) (any, bool) {
	r.space()
	if depth > 8 || r.i >= len(r.s) {
		return nil, false
	}
	switch c := r.s[r.i]; {
	case c == '{':
		r.i++
		obj := map[string]any{}
		for {
			r.space()
			if r.i < len(r.s) && r.s[r.i] == '}' {
				r.i++
				return obj, true
			}
			k, ok := r.key()
			if !ok {
				return nil, false
			}
			r.space()
			if r.i >= len(r.s) || (r.s[r.i] != ':' && r.s[r.i] != '=') {
				return nil, false
			}
			r.i++
			v, ok := r.value(depth + 1)
			if !ok {
				return nil, false
			}
			obj[k] = v
			r.space()
			if r.i < len(r.s) && r.s[r.i] == ',' {
				r.i++
			}
		}
	case c == '[':
		r.i++
		var list []any
		for {
			r.space()
			if r.i < len(r.s) && r.s[r.i] == ']' {
				r.i++
				return list, true
			}
			v, ok := r.value(depth + 1)
			if !ok {
				return nil, false
			}
			list = append(list, v)
			r.space()
			if r.i < len(r.s) && r.s[r.i] == ',' {
				r.i++
			}
		}
	case r.quote != "" && strings.HasPrefix(r.s[r.i:], r.quote):
		start := r.i + len(r.quote)
		end := strings.Index(r.s[start:], r.quote)
		if end < 0 {
			return nil, false
		}
		r.i = start + end + len(r.quote)
		return r.s[start : start+end], true
	case c == '<' && r.tokenQuoted():
		v := r.s[r.i+len(r.tok) : r.i+len(r.tok)+r.tokEnd]
		r.i += 2*len(r.tok) + r.tokEnd
		return v, true
	case (c == '"' || c == '\'') && r.raw:
		v, next, ok := unescapedString(r.s, r.i)
		if !ok {
			return nil, false
		}
		r.i = next
		return v, true
	case c == '"' || c == '\'':
		v, next, reason := parseString(r.s, r.i, false)
		if reason != "" {
			return nil, false
		}
		r.i = next
		return v, true
	}
	// A number, true, false, null or a bare word.
	k := r.i
	for k < len(r.s) && strings.IndexByte(",}] \t\r\n", r.s[k]) < 0 {
		k++
	}
	w := r.s[r.i:k]
	r.i = k
	switch w {
	case "":
		return nil, false
	case "true", "True":
		return true, true
	case "false", "False":
		return false, true
	case "null", "None":
		return nil, true
	}
	if n := json.Number(w); n.String() != "" {
		if _, err := n.Float64(); err == nil {
			return n, true
		}
	}
	// A string between a model's own quote marks: «x», “x”, ‘x’, „x“.
	for _, q := range [][2]string{{"«", "»"}, {"“", "”"}, {"‘", "’"}, {"„", "“"}, {"「", "」"}} {
		if len(w) > len(q[0])+len(q[1]) && strings.HasPrefix(w, q[0]) && strings.HasSuffix(w, q[1]) {
			return w[len(q[0]) : len(w)-len(q[1])], true
		}
	}
	return w, true
}

// tokenQuoted reports whether a string between two of the same token,
// the model's own quote (<escape>x<escape>), starts at r.i, and notes
// the token and where its content ends (its content is raw).
func (r *relaxed) tokenQuoted() bool {
	e := strings.IndexByte(r.s[r.i:], '>')
	if e < 0 || strings.ContainsAny(r.s[r.i+1:r.i+e], "< \t\r\n") {
		return false
	}
	tok := r.s[r.i : r.i+e+1]
	end := strings.Index(r.s[r.i+len(tok):], tok)
	if end < 0 {
		return false
	}
	r.tok, r.tokEnd = tok, end
	return true
}

func (r *relaxed) key() (string, bool) {
	r.space()
	if r.i >= len(r.s) {
		return "", false
	}
	if r.quote != "" && strings.HasPrefix(r.s[r.i:], r.quote) {
		v, ok := r.value(1)
		s, isStr := v.(string)
		return s, ok && isStr
	}
	if c := r.s[r.i]; c == '"' || c == '\'' {
		v, next, reason := parseString(r.s, r.i, false)
		s, _ := v.(string)
		r.i = next
		return s, reason == ""
	}
	k := identEnd(r.s, r.i)
	if k == r.i {
		return "", false
	}
	key := r.s[r.i:k]
	r.i = k
	return key, true
}

// elementArgs reads arguments written as elements, one per argument: the
// key in the open tag (<parameter name="k">, <parameter=k>) or in an
// element of its own before the value's (<arg_key>k</arg_key>
// <arg_value>v</arg_value>). A value runs to the first close of its tag
// after which the next argument opens or the call ends.
func elementArgs(s string) (map[string]any, int, bool) {
	args := map[string]any{}
	i := 0
	keyTag, valTag := "", ""
	// bare is set for arguments as elements named for them
	// (<path>x</path>), which only the lexicon's argument names make.
	bare := false
	for {
		k := skipSpace(s, i)
		m := elemOpenRE.FindStringSubmatchIndex(s[k:])
		if m == nil {
			break
		}
		tag := s[k+m[2] : k+m[3]]
		key := ""
		switch {
		case m[4] >= 0:
			key = s[k+m[4] : k+m[5]]
		case m[6] >= 0:
			key = s[k+m[6] : k+m[7]]
		}
		body := k + m[1]
		if key == "" && keyTag == "" && (bare || len(args) == 0) && knownArg(tag) && !strings.Contains(s[k:k+m[1]], " ") {
			key, bare = tag, true
		} else if bare {
			break
		}
		if bare {
			// The key is the tag.
		} else if key == "" {
			// A key element, then its value's element.
			if keyTag != "" && tag != keyTag {
				break
			}
			closeTag := "</" + tag + ">"
			e := strings.Index(s[body:], closeTag)
			if e < 0 || e == 0 || len(leadingName(s[body:body+e])) != e {
				break
			}
			key = s[body : body+e]
			v := skipSpace(s, body+e+len(closeTag))
			vm := elemOpenRE.FindStringSubmatchIndex(s[v:])
			if vm == nil || vm[4] >= 0 || vm[6] >= 0 || s[v+vm[2]:v+vm[3]] == tag {
				break
			}
			keyTag, valTag = tag, s[v+vm[2]:v+vm[3]]
			tag, body = valTag, v+vm[1]
		} else if keyTag != "" {
			break
		}
		val, end, ok := elementValue(s, body, tag, func(rest string) bool {
			o := elemOpenRE.FindStringSubmatch(strings.TrimLeft(rest, " \t\r\n"))
			if o == nil {
				return false
			}
			if keyTag != "" {
				return o[1] == keyTag
			}
			if bare {
				return knownArg(o[1]) && o[2] == "" && o[3] == ""
			}
			return o[1] == tag && (o[2] != "" || o[3] != "")
		})
		if bare && ok {
			// An element named for its argument ends at its first close
			// that a close of the call follows: what comes after is
			// another call's.
			closeTag := "</" + tag + ">"
			for k := body; ; {
				e := strings.Index(s[k:], closeTag)
				if e < 0 || k+e+len(closeTag) >= end {
					break
				}
				e += k
				if strings.HasPrefix(strings.TrimLeft(s[e+len(closeTag):], " \t\r\n"), "</") {
					val, end = s[body:e], e+len(closeTag)
					break
				}
				k = e + 1
			}
		}
		if !ok {
			break
		}
		i = end
		// An element that holds argument elements wraps them
		// (<invoke name="read_file"><parameter name="path">…).
		if t := strings.TrimSpace(val); strings.HasPrefix(t, "<") && keyTag == "" {
			if items, ok := elementList(t); ok && bare {
				args[key] = items
				continue
			}
			if inner, _, ok := elementArgs(t); ok {
				for k, v := range inner {
					args[k] = v
				}
				continue
			}
		}
		args[key] = paramValue(val)
	}
	if len(args) == 0 {
		return nil, 0, false
	}
	return args, i, true
}

// elementList reads a value written as elements of one name, one an
// item (<item>a</item><item>b</item>).
func elementList(s string) ([]any, bool) {
	var out []any
	tag := ""
	rest := s
	for strings.TrimSpace(rest) != "" {
		m := childOpenRE.FindStringSubmatchIndex(rest)
		if m == nil || tag != "" && rest[m[2]:m[3]] != tag {
			return nil, false
		}
		tag = rest[m[2]:m[3]]
		e := strings.Index(rest[m[1]:], "</"+tag+">")
		if e < 0 {
			return nil, false
		}
		out = append(out, rest[m[1]:m[1]+e])
		rest = rest[m[1]+e+len(tag)+3:]
	}
	return out, len(out) > 0
}

// elementValue finds where the value that starts at body ends: at the
// first close of tag after which another argument opens (next), else at
// the last after which only closing tags and tokens follow (the call's
// end), else at the first after which a tag follows.
func elementValue(s string, body int, tag string, next func(string) bool) (string, int, bool) {
	closeTag := "</" + tag + ">"
	loose, last := -1, -1
	for k := body; ; {
		e := strings.Index(s[k:], closeTag)
		if e < 0 {
			break
		}
		e += k
		rest := s[e+len(closeTag):]
		if next(rest) {
			return s[body:e], e + len(closeTag), true
		}
		// Only closing tags left: the call may end here, or the value
		// may hold the closing tags itself; the last such close is the
		// value's.
		if closingRunRE.FindString(rest) == rest {
			last = e
		}
		if loose < 0 && strings.HasPrefix(strings.TrimLeft(rest, " \t\r\n"), "<") {
			loose = e
		}
		k = e + 1
	}
	for _, e := range []int{last, loose} {
		if e >= 0 {
			return s[body:e], e + len(closeTag), true
		}
	}
	return "", 0, false
}
