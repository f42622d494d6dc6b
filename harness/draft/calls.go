package draft

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
)

// The one structured-call reader. A call is found anywhere in a reply, in
// whatever wrapper a model or framework puts it: a call tag or token
// (callTags: <tool_call>, <|tool_call|>, [TOOL_CALLS], <|python_tag|>), a
// fence (```json, ```yaml, ```tool_code), marks before a tool's name at a
// line's start (>>>NAME), or nothing (a JSON object or list, a Python
// call). Its payload is a JSON object or list, a Python call, a
// <function=NAME> tag with a JSON body or <parameter=KEY> children, an XML
// element named for the tool with its arguments as child elements (Cline,
// Roo Code), or a tool block one field a line. Where these give no whole
// call, structure.go reads the calls by their structure; no reader here is
// named for a model family. Every call found is mapped through the one lexicon
// (lexicon.go); a reply that holds two different calls is refused, never
// guessed.

// callCand is one call found in a reply.
type callCand struct {
	name string
	args callArgs
	// line is a whole action line given as the call's value
	// ({"command": "RUN tests"}); final is LangChain's Final Answer.
	line  string
	final *string
	// shapes are the shape codes of the payload and its wrapper.
	shapes []string
	// start and end are the call's bytes in the reply, wrapper included.
	start, end int
	// bad says why a call that was found cannot be read.
	bad string
}

// callTags are the tags and special tokens that open and close calls, and
// the shape a call in each records. An empty close runs to the next open
// or the end of the reply.
var callTags = []struct {
	open   string
	closes []string
	shape  string
}{
	{"<tool_call>", []string{"</tool_call>"}, shapeCallTag},
	{"<|tool_call|>", []string{"<|/tool_call|>", "</|tool_call|>"}, shapeCallTag},
	{"<|tool_call_begin|>", []string{"<|tool_call_end|>"}, shapeCallTag},
	{"[TOOL_CALLS]", nil, shapeCallTag},
	// What follows <|python_tag|> is the call, what precedes it chatter.
	{"<|python_tag|>", nil, shapePythonTag},
}

// wrapperTokenRE matches the tokens that only wrap calls, so that they are
// not counted as chatter.
var wrapperTokenRE = regexp.MustCompile(`<\|[a-z_/]+\|>|</?tool_calls?>|\[TOOL_CALLS\]|(?m)^\s*assistant\s*$`)

// scanCalls finds every call in text, in the order written. d is the
// reply as lines, for its fences.
func scanCalls(text string, d *doc) []callCand {
	var out []callCand
	covered := func(i int) bool {
		for _, c := range out {
			if i >= c.start && i < c.end {
				return true
			}
		}
		return false
	}
	offs := d.offsets()
	codeFence := codeFenceAt(d)

	// Tags and special tokens.
	for _, tag := range callTags {
		from := 0
		for {
			k := strings.Index(text[from:], tag.open)
			if k < 0 {
				break
			}
			start := from + k
			body := start + len(tag.open)
			end, next := len(text), len(text)
			for _, cl := range tag.closes {
				if e := strings.Index(text[body:], cl); e >= 0 && body+e < end {
					end, next = body+e, body+e+len(cl)
				}
			}
			if len(tag.closes) == 0 {
				if e := strings.Index(text[body:], tag.open); e >= 0 {
					end, next = body+e, body+e
				}
			}
			from = next
			if covered(start) || codeFence(start) {
				continue
			}
			inner := innerCalls(text[body:end], true)
			if len(inner) == 0 {
				if c, ok := lineFieldCall(text[body:end]); ok {
					inner = []callCand{c}
				}
			}
			shape := tag.shape
			for i := range inner {
				inner[i].shapes = append(inner[i].shapes, shape)
				inner[i].start, inner[i].end = start, next
			}
			if len(inner) == 0 {
				inner = []callCand{{shapes: []string{shape}, start: start, end: next, bad: "the call after " + tag.open + " is neither a JSON object, a list of calls nor a Python call"}}
			}
			out = append(out, inner...)
		}
	}
	// Function tags and XML tool elements, outside fences of code.
	for _, c := range tagCalls(text) {
		if !covered(c.start) && !codeFence(c.start) {
			out = append(out, c)
		}
	}
	// Fences that hold calls.
	for _, b := range d.blocks {
		if !callFence(b.fence.info) || covered(offs[b.open]) {
			continue
		}
		// The lines inside the fence, joined: text is the lines joined.
		inner := ""
		if e := min(b.close, len(d.lines)); e > b.open+1 {
			inner = text[offs[b.open+1] : offs[e]-1]
		}
		tag := fenceTag(b.fence.info)
		// A tool's bare name is a call in a tool fence, and in a Python
		// one: a code agent's step is its code (smolagents).
		cands := innerCalls(inner, strings.HasPrefix(tag, "tool") || tag == "py" || tag == "python")
		if len(cands) == 0 {
			if c, ok := lineFieldCall(inner); ok {
				cands = []callCand{c}
			}
		}
		shape := shapeFencedAction
		if strings.TrimSpace(text[:offs[b.open]]) == "" && strings.TrimSpace(text[min(offs[min(b.close, len(d.lines)-1)+1], len(text)):]) == "" {
			shape = shapeWholeReplyFence
		}
		for i := range cands {
			cands[i].shapes = append(cands[i].shapes, shape)
			cands[i].start, cands[i].end = offs[b.open], min(offs[min(b.close, len(d.lines)-1)+1], len(text))
		}
		out = append(out, cands...)
	}
	// Bare JSON and Python calls at the start of a line.
	for i, l := range d.lines {
		t := strings.TrimLeft(l, " \t")
		at := offs[i] + len(l) - len(t)
		if t == "" || d.in[i] >= 0 || covered(at) {
			continue
		}
		// A tool's name behind marks at a line's start (>>>NAME), its
		// arguments after: the marks wrap the call.
		if k := len(t) - len(strings.TrimLeft(t, lineMarks)); k > 0 && k < len(t) {
			if name := leadingName(t[k:]); name != "" {
				if _, known := lookupTool(name); known {
					if c, ok := callAfter(text, name, at+k, at+k+len(name)); ok {
						c.start, c.shapes = at, append(c.shapes, shapeCallTag)
						out = append(out, c)
						continue
					}
				}
			}
		}
		if t[0] == '[' {
			if c, ok := bracketProseCall(l); ok {
				c.start, c.end = at, offs[i]+len(l)
				out = append(out, c)
				continue
			}
		}
		bare := false
		// A Python call opens with a name and holds its "(": neither
		// expression below can match a line without both.
		paren := mayBePyCall(t)
		if !paren && t[0] != '{' && t[0] != '[' {
			continue
		}
		if name := pyCallName(t); paren && name != "" {
			_, known := lookupTool(name)
			_, word := verbWords[strings.ToLower(name)]
			// The protocol's own names as calls are action lines
			// (callAction), which may take a block after them.
			bare = known && !word
		}
		if t[0] != '{' && t[0] != '[' && !bare && !(paren && pyCallStartRE.MatchString(t)) {
			continue
		}
		cands := innerCalls(text[at:], bare)
		if len(cands) == 0 {
			continue
		}
		n := cands[0].end
		for j := range cands {
			cands[j].start, cands[j].end = at, at+n
		}
		out = append(out, cands...)
	}
	sortCands(out)
	return out
}

// lineMarks are the marks a call may stand behind at a line's start.
const lineMarks = ">|:~@$%^&!"

// allBad reports whether no call among cands can be read (true for none).
func allBad(cands []callCand) bool {
	for _, c := range cands {
		if c.bad == "" {
			return false
		}
	}
	return true
}

// anyHead reports whether a line of d is an action line.
func (d *doc) anyHead() bool {
	for i := range d.lines {
		if _, ok := d.headAt(i); ok {
			return true
		}
	}
	return false
}

// codeFenceAt says whether a byte of d's text lies in a fence that holds
// code rather than calls.
func codeFenceAt(d *doc) func(int) bool {
	offs := d.offsets()
	lineAt := func(i int) int {
		lo, hi := 0, len(d.lines)
		for lo+1 < hi {
			m := (lo + hi) / 2
			if offs[m] <= i {
				lo = m
			} else {
				hi = m
			}
		}
		return lo
	}
	return func(i int) bool {
		bi := d.in[lineAt(i)]
		return bi >= 0 && !callFence(d.blocks[bi].fence.info)
	}
}

// allMatches is re.FindAllStringSubmatchIndex(text, -1), or none
// without looking when text lacks lit, a literal every match of re holds.
func allMatches(re *regexp.Regexp, text, lit string) [][]int {
	if !strings.Contains(text, lit) {
		return nil
	}
	return re.FindAllStringSubmatchIndex(text, -1)
}

// pyCallName is the name of the Python call s opens with (a name, then
// "(" after any spaces), "" when it opens with none.
func pyCallName(s string) string {
	n := identEnd(s, 0)
	if n == 0 {
		return ""
	}
	j := n
	for j < len(s) && strings.IndexByte(" \t\n\f\r", s[j]) >= 0 {
		j++
	}
	if j < len(s) && s[j] == '(' {
		return s[:n]
	}
	return ""
}

// mayBePyCall reports whether s can open with a Python call (pyCallName,
// pyCallStartRE): its first byte starts a name and it holds a "(".
func mayBePyCall(s string) bool {
	return s != "" && (s[0] == '_' || ('a' <= s[0]|0x20 && s[0]|0x20 <= 'z')) && strings.IndexByte(s, '(') >= 0
}

// mayHoldFunctionTag reports whether text holds the opening of a match of
// functionOpenRE.
func mayHoldFunctionTag(text string) bool {
	return strings.Contains(text, "<function=") || strings.Contains(text, "<invoke")
}

// matchIf is re.FindStringSubmatch(s), or nil without looking when may,
// a condition every match needs, is false.
func matchIf(may bool, re *regexp.Regexp, s string) []string {
	if !may {
		return nil
	}
	return re.FindStringSubmatch(s)
}

var (
	pyCallStartRE  = regexp.MustCompile(`^(?:print\(\s*)?[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+\s*\(`)
	functionOpenRE = regexp.MustCompile(`<function=([A-Za-z_][\w.-]*)>|<invoke\s+name="([A-Za-z_][\w.-]*)"\s*>`)
	paramRE        = regexp.MustCompile(`<parameter=([A-Za-z_][\w.-]*)>|<parameter\s+name="([A-Za-z_][\w.-]*)"\s*>`)
	xmlOpenRE      = regexp.MustCompile(`<([A-Za-z_][\w-]*)>`)
)

func sortCands(c []callCand) {
	for i := 1; i < len(c); i++ {
		for j := i; j > 0 && c[j].start < c[j-1].start; j-- {
			c[j], c[j-1] = c[j-1], c[j]
		}
	}
}

// callFence reports whether a fence's info string is one a call is put
// in: none, JSON, YAML, a tool-call tag, XML, or Python.
func callFence(info string) bool {
	switch fenceTag(info) {
	case "", "json", "jsonc", "json5", "yaml", "yml", "tool_code", "tool_call", "tool_use", "tool", "xml", "python", "py":
		return true
	}
	return false
}

func fenceTag(info string) string {
	f := strings.Fields(info)
	if len(f) == 0 {
		return ""
	}
	return strings.ToLower(f[0])
}

// innerCalls reads the calls a wrapper holds: JSON, a function tag, an XML
// element, DeepSeek's name<|tool_sep|>arguments, or Python calls (bare
// names only when pyBare is set: a tool_code fence, a tag; elsewhere only
// a dotted name such as default_api.read_file is surely a call). The
// first candidate's end is how much of s the calls took.
func innerCalls(s string, pyBare bool) []callCand {
	t := strings.TrimLeft(s, " \t\r\n")
	lead := len(s) - len(t)
	switch {
	case strings.HasPrefix(t, "{") || (strings.HasPrefix(t, "[") && strings.HasPrefix(strings.TrimLeft(t[1:], " \t\r\n"), "{")):
		dec := json.NewDecoder(strings.NewReader(t))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) != nil {
			return nil
		}
		cands := jsonCalls(v)
		for i := range cands {
			cands[i].end = lead + int(dec.InputOffset())
		}
		return cands
	case strings.HasPrefix(t, "<"):
		cands := tagCalls(t)
		if len(cands) > 0 && strings.TrimSpace(t[:cands[0].start]) == "" {
			for i := range cands {
				cands[i].start += lead
				cands[i].end += lead
			}
			return cands
		}
		return nil
	}
	cands, n := pyCalls(t, pyBare)
	for i := range cands {
		cands[i].end = lead + n
	}
	return cands
}

// stripFenceLines takes a fence off text that is one fenced block.
func stripFenceLines(s string) string {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "```") {
		if _, rest, ok := strings.Cut(t, "\n"); ok {
			t = rest
		}
		t = strings.TrimSuffix(strings.TrimSpace(t), "```")
	}
	return t
}

// leadingJSONArgs reads the JSON object that s starts with (an empty s
// is no arguments).
func leadingJSONArgs(s string) (map[string]any, bool) {
	t := strings.TrimSpace(stripFenceLines(s))
	if t == "" {
		return map[string]any{}, true
	}
	dec := json.NewDecoder(strings.NewReader(t))
	dec.UseNumber()
	var raw json.RawMessage
	if dec.Decode(&raw) != nil {
		return nil, false
	}
	return decodeArgs(raw)
}

// Keys that name the call in a JSON object, and keys that hold its
// arguments.
var (
	nameKeys = []string{"name", "tool_name", "tool", "action", "function", "recipient_name", "command"}
	argKeys  = []string{"arguments", "parameters", "args", "input", "action_input", "tool_input", "params"}
)

// jsonCalls reads the calls a JSON value holds: a call object, a list of
// them, an object with tool_calls, OpenAI's {"function": {...}}.
func jsonCalls(v any) []callCand {
	switch v := v.(type) {
	case []any:
		var out []callCand
		for _, x := range v {
			out = append(out, jsonCalls(x)...)
		}
		return out
	case map[string]any:
		if tc, ok := v["tool_calls"].([]any); ok {
			return jsonCalls(tc)
		}
		if f, ok := v["function"].(map[string]any); ok {
			return jsonCalls(f)
		}
		return jsonCall(v)
	}
	return nil
}

// shellArgs reads a shell tool's arguments written alone, as agent CLIs
// send them ({"command": ["bash", "-lc", "pytest -q"], "workdir": "."}):
// an argv list under "command", beside nothing but a shell call's options,
// is a call of the shell tool. Anything else is data.
func shellArgs(obj map[string]any) []callCand {
	argv, ok := obj["command"].([]any)
	if !ok || len(argv) == 0 {
		return nil
	}
	for _, a := range argv {
		if _, ok := a.(string); !ok {
			return nil
		}
	}
	for k := range obj {
		switch k {
		case "command", "workdir", "cwd", "timeout", "timeout_ms", "justification", "with_escalated_permissions":
		default:
			return nil
		}
	}
	return jsonCall(map[string]any{"name": "shell", "arguments": map[string]any{"command": argv}})
}

// jsonCall reads one call object: the name under a name key, the
// arguments under an argument key or as the object's other keys.
func jsonCall(obj map[string]any) []callCand {
	name, key := "", ""
	for _, k := range nameKeys {
		if s, ok := obj[k].(string); ok && strings.TrimSpace(s) != "" {
			name, key = strings.TrimSpace(s), k
			break
		}
	}
	if name == "" {
		return shellArgs(obj)
	}
	var input any
	argKey := ""
	for _, k := range argKeys {
		if x, ok := obj[k]; ok && k != key {
			input, argKey = x, k
			break
		}
	}
	c := callCand{name: name, shapes: []string{shapeJSONAction}}
	if key == "name" && (argKey == "arguments" || argKey == "parameters") {
		c.shapes = []string{shapeJSONCall}
	}
	// LangChain's way to finish.
	if strings.EqualFold(name, "Final Answer") {
		s, _ := input.(string)
		s = strings.TrimSpace(s)
		c.final = &s
		return []callCand{c}
	}
	// The whole action as one value: {"command": "RUN tests"}.
	if strings.ContainsAny(name, " \t") {
		if h, ok := matchHead(name); ok && !h.call {
			c.line = name
			return []callCand{c}
		}
		return nil
	}
	if _, known := lookupTool(name); !known && (key != "name" || argKey == "") {
		// An object that names no tool this lexicon knows and is not
		// shaped as a call ({"name": "greet", "version": 1}) is data.
		return nil
	}
	if key == "command" {
		if _, known := lookupTool(name); !known {
			return nil
		}
	}
	args := map[string]any{}
	switch in := input.(type) {
	case map[string]any:
		args = in
	case string:
		if a, ok := decodeArgs(json.RawMessage(strconvQuote(in))); ok && strings.HasPrefix(strings.TrimSpace(in), "{") {
			args = a
		} else {
			// One input: what the tool takes first.
			args[primaryArg(name)] = in
		}
	case nil:
		for k, x := range obj {
			if k == key || k == "type" || k == "id" {
				continue
			}
			// Every other key must be an argument name: a data file
			// ({"name": "test", "version": "1.0"}) is not a call.
			if !knownArg(k) {
				return nil
			}
			args[k] = x
		}
	default:
		c.bad = "the input of " + quote(name) + " must be an object or a string"
	}
	c.args = keyed(args)
	return []callCand{c}
}

// strconvQuote makes s a JSON string, for decodeArgs, which reads an
// object given as a string.
func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// primaryArg is the argument a single string input stands for.
func primaryArg(name string) string {
	t, _ := lookupTool(name)
	switch {
	case t.kind == kindShell:
		return "command"
	case t.verb == VerbRun:
		return "target"
	case t.verb == VerbSkill:
		return "name"
	case t.verb == VerbAsk:
		return "question"
	case t.verb == VerbDone:
		return "summary"
	}
	return "path"
}

// tagCalls reads <function=NAME>…</function> (its body JSON or
// <parameter=KEY>value</parameter> children; Anthropic's <invoke name=…>
// with <parameter name=…> alike) and XML elements named for a tool with
// their arguments as child elements (<read_file><path>x</path></read_file>).
func tagCalls(text string) []callCand {
	var out []callCand
	var opens [][]int
	if mayHoldFunctionTag(text) {
		opens = functionOpenRE.FindAllStringSubmatchIndex(text, -1)
	}
	for _, m := range opens {
		name, closeTag := "", "</function>"
		if m[2] >= 0 {
			name = text[m[2]:m[3]]
		} else {
			name, closeTag = text[m[4]:m[5]], "</invoke>"
		}
		if len(out) > 0 && m[0] < out[len(out)-1].end {
			continue
		}
		body, end := text[m[1]:], len(text)
		if e := strings.Index(body, closeTag); e >= 0 {
			body, end = body[:e], m[1]+e+len(closeTag)
		}
		c := callCand{name: name, start: m[0], end: end}
		if params := paramRE.FindAllStringSubmatchIndex(body, -1); len(params) > 0 {
			c.shapes = []string{shapeParameterTags}
			args := map[string]any{}
			for i, pm := range params {
				key := ""
				if pm[2] >= 0 {
					key = body[pm[2]:pm[3]]
				} else {
					key = body[pm[4]:pm[5]]
				}
				stop := len(body)
				if i+1 < len(params) {
					stop = params[i+1][0]
				}
				v := body[pm[1]:stop]
				if e := strings.LastIndex(v, "</parameter>"); e >= 0 {
					v = v[:e]
				}
				args[key] = paramValue(v)
			}
			c.args = keyed(args)
		} else {
			c.shapes = []string{shapeFunctionTag}
			args, ok := leadingJSONArgs(body)
			if !ok {
				c.bad = "<function=" + name + "> must be followed by its arguments as one JSON object or <parameter=NAME> tags"
			}
			c.args = keyed(args)
		}
		out = append(out, c)
	}
	// XML elements named for a tool.
	for _, m := range allMatches(xmlOpenRE, text, "<") {
		name := text[m[2]:m[3]]
		if _, ok := lookupTool(name); !ok {
			continue
		}
		inside := false
		for _, c := range out {
			inside = inside || (m[0] >= c.start && m[0] < c.end)
		}
		if inside {
			continue
		}
		closeTag := "</" + name + ">"
		e := strings.LastIndex(text[m[1]:], closeTag)
		if next := strings.Index(text[m[1]:], closeTag); next >= 0 && (e < 0 || !strings.Contains(text[m[1]:m[1]+next], "<"+name+">")) {
			e = next
		}
		body, end := text[m[1]:], len(text)
		if e >= 0 {
			body, end = body[:e], m[1]+e+len(closeTag)
		}
		args, ok := xmlChildren(body, 0)
		if !ok {
			continue
		}
		out = append(out, callCand{name: name, args: keyed(args), shapes: []string{shapeXMLTool}, start: m[0], end: end})
	}
	sortCands(out)
	return out
}

// paramValue is a parameter's text: Qwen3-Coder puts the value on lines of
// its own, so one newline after the tag and one before the close are the
// format's, not the value's.
func paramValue(v string) string {
	v = strings.TrimPrefix(v, "\n")
	v = strings.TrimSuffix(v, "\n")
	// A value in a CDATA section is its content, read raw.
	if t := strings.TrimSpace(v); strings.HasPrefix(t, "<![CDATA[") && strings.HasSuffix(t, "]]>") && !strings.Contains(t[9:len(t)-3], "]]>") {
		return t[9 : len(t)-3]
	}
	return v
}

// childOpenRE opens an element with a bare tag, spaces before it.
var childOpenRE = regexp.MustCompile(`^\s*<([A-Za-z_][\w-]*)>`)

// xmlChildren reads an element's body as child elements, each an
// argument; a child that is itself only elements (Roo Code's
// <args><file><path>…) is flattened into the arguments. ok is false when
// the body is not child elements (then it is no call).
func xmlChildren(body string, depth int) (map[string]any, bool) {
	args := map[string]any{}
	rest := body
	for strings.TrimSpace(rest) != "" {
		m := childOpenRE.FindStringSubmatchIndex(rest)
		if m == nil || depth > 3 {
			return nil, false
		}
		key := rest[m[2]:m[3]]
		closeTag := "</" + key + ">"
		e := strings.Index(rest[m[1]:], closeTag)
		if e < 0 {
			return nil, false
		}
		v := rest[m[1] : m[1]+e]
		rest = rest[m[1]+e+len(closeTag):]
		if strings.HasPrefix(strings.TrimSpace(v), "<") {
			if inner, ok := xmlChildren(v, depth+1); ok {
				for k, x := range inner {
					if _, dup := args[k]; !dup {
						args[k] = x
					}
				}
				continue
			}
		}
		args[key] = paramValue(v)
	}
	return args, len(args) > 0 || depth == 0
}

// pyCalls reads Python calls at the start of s: a list of calls
// ([read_file(path="x.py")], Llama 3.2), or calls one a line, each maybe
// inside print() (Gemma's tool_code) or its result kept in a variable (a
// code agent's content = read_file(…)). bare allows names without a dotted
// prefix. It returns the calls and how many bytes they took.
func pyCalls(s string, bare bool) ([]callCand, int) {
	var out []callCand
	i := 0
	list := strings.HasPrefix(s, "[")
	if list {
		i = skipSpace(s, 1)
	}
	// bound are the names a code agent's block gave values (x = …, with
	// … as x): x.read() is a method of that value, not a tool.
	bound := map[string]bool{}
	for i < len(s) {
		k := i
		with := false
		if !list && len(out) == 0 {
			// A code agent's imports come before its first statement.
			for strings.HasPrefix(s[k:], "import ") || strings.HasPrefix(s[k:], "from ") && strings.Contains(lineAt(s, k), " import ") {
				k = skipSpace(s, k+len(lineAt(s, k)))
			}
		}
		if !list {
			// A code agent keeps a call's result: content = read_file(…),
			// or opens a file in a with statement.
			if a := identEnd(s, k); a > k {
				if e := skipSpace(s, a); e < len(s) && s[e] == '=' && !strings.HasPrefix(s[e:], "==") {
					bound[s[k:a]] = true
					k = skipSpace(s, e+1)
				}
			}
			if strings.HasPrefix(s[k:], "with ") {
				with, k = true, skipSpace(s, k+len("with "))
			}
		}
		printed := false
		if strings.HasPrefix(s[k:], "print(") {
			printed, k = true, skipSpace(s, k+len("print("))
		}
		n := identEnd(s, k)
		dotted := false
		for n > k && n < len(s) && s[n] == '.' {
			n, dotted = identEnd(s, n+1), true
		}
		name := s[k:n]
		j := skipSpace(s, n)
		if name == "" || j >= len(s) || s[j] != '(' || !(bare || list || dotted) {
			break
		}
		if dot := strings.LastIndexByte(name, '.'); dot > 0 && bound[name[:dot]] {
			break
		}
		// Outside a list, only a tool's name makes a call: os.path.join(…)
		// in prose is not one. A path object whose file is read at once
		// (Path("x.py").read_text()) reads the file as open() does.
		if _, known := lookupTool(name); !known && !list {
			if !readsPathObject(s[j:]) {
				break
			}
			name = "open"
		}
		c := callCand{name: name, shapes: []string{shapePythonCall}}
		if list {
			c.shapes = []string{shapePythonicList}
		}
		args, used, reason := parseCall(s[j:])
		if reason != "" {
			c.bad = name + "(...): " + reason
			out = append(out, c)
			return out, len(s)
		}
		if nameKey(name) == "open" {
			if mode, ok, _ := args.str([]string{"mode"}, 1, false); ok && strings.ContainsAny(mode, "wax+") {
				c.bad = "open(…, " + quote(mode) + ") writes the file: send WRITE and the whole file, or PATCH"
			}
		}
		c.args = args.lendNested()
		out = append(out, c)
		i = j + used
		// A method of what the call returned (open("x.py").read()) is
		// part of the statement, and so is a with statement's "as f:".
		for i < len(s) && s[i] == '.' {
			e := identEnd(s, i+1)
			if e == i+1 || e >= len(s) || s[e] != '(' {
				break
			}
			_, m, reason := parseCall(s[e:])
			if reason != "" {
				break
			}
			i = e + m
		}
		if with {
			rest := skipSpace(s, i)
			if strings.HasPrefix(s[rest:], "as ") {
				a := skipSpace(s, rest+3)
				e := identEnd(s, a)
				bound[s[a:e]] = true
				i = skipSpace(s, e)
				if i < len(s) && s[i] == ':' {
					i++
				}
			}
		}
		if printed {
			i = skipSpace(s, i)
			if i < len(s) && s[i] == ')' {
				i++
			}
		}
		// The next call: after a comma in a list, on the next line
		// otherwise.
		i = skipSpace(s, i)
		if list {
			if i < len(s) && s[i] == ',' {
				i = skipSpace(s, i+1)
				continue
			}
			if i < len(s) && s[i] == ']' {
				i++
			}
			break
		}
		if i < len(s) && s[i] == ';' {
			i = skipSpace(s, i+1)
		}
	}
	return out, i
}

// lineAt is the line of s that starts at k, without its newline.
func lineAt(s string, k int) string {
	l, _, _ := strings.Cut(s[k:], "\n")
	return l
}

// readsPathObject reports whether s, a call's arguments from its "(",
// is followed by a method that reads the file the call named
// (.read_text(), .read_bytes(), .open() with no mode that writes).
func readsPathObject(s string) bool {
	if line, _, _ := strings.Cut(s, "\n"); !strings.Contains(line, ").read_") && !strings.Contains(line, ").open(") {
		return false
	}
	_, n, reason := parseCall(s)
	if reason != "" {
		return false
	}
	for _, m := range []string{".read_text(", ".read_bytes(", ".open("} {
		if !strings.HasPrefix(s[n:], m) {
			continue
		}
		args, _, reason := parseCall(s[n+len(m)-1:])
		mode, ok, _ := args.str([]string{"mode"}, 0, false)
		return reason == "" && !(ok && strings.ContainsAny(mode, "wax+"))
	}
	return false
}

// structuredCalls reads the action from the calls a reply holds, when it
// holds any before its first action line (a canonical draft is never read
// another way). Two different calls are refused as ambiguous.
//
// The calls come from two sources, each run once: the wrappers models and
// frameworks document (scanCalls) and, where they give no whole call and
// no line is an action line, the calls' structure (detokenedCalls). Each
// source's calls are read on a parser of their own (sourceParser) and the
// reading kept is adopted: nothing is undone.
func (p *parser) structuredCalls(d *doc) (Action, bool, error) {
	text := d.joined()
	if c, ok := nameLineCall(text); ok {
		return p.readCands(d, text, []callCand{c})
	}
	cands := scanCalls(text, d)
	var wrapped *parser
	var a Action
	var ok bool
	var err error
	if !allBad(cands) {
		wrapped = p.sourceParser()
		a, ok, err = wrapped.readCands(d, text, cands)
		if e, isErr := err.(*Error); !isErr || e.Code != "" {
			return p.adopt(wrapped, a, ok, err)
		}
	}
	if d.anyHead() {
		if wrapped == nil {
			return p.readCands(d, text, cands)
		}
		return p.adopt(wrapped, a, ok, err)
	}
	// No wrapper the reader knows, one whose payload it cannot read, or
	// one whose call does not read (to=NAME followed by elements, not
	// JSON): the calls' structure, whose whole reading beats it.
	nt, found := detokenedCalls(text, d)
	switch {
	case len(found) == 0 && wrapped == nil:
		return p.readCands(d, text, cands)
	case len(found) == 0:
		return p.adopt(wrapped, a, ok, err)
	case wrapped == nil:
		return p.readCands(d, nt, found)
	}
	structural := p.sourceParser()
	if a2, ok2, err2 := structural.readCands(d, nt, found); err2 == nil {
		return p.adopt(structural, a2, ok2, nil)
	}
	return p.adopt(wrapped, a, ok, err)
}

// sourceParser is a parser of its own for one source of calls: it starts
// from nothing this parser learned, so that a reading not kept leaves no
// trace.
func (p *parser) sourceParser() *parser {
	return newParser(p.draft, p.via)
}

// adopt keeps the reading made on q, a sourceParser of p: what q learned
// is added to what p learned before, and the action or failure is
// stamped with both.
func (p *parser) adopt(q *parser, a Action, ok bool, err error) (Action, bool, error) {
	p.shapes |= q.shapes
	p.otherShape = p.otherShape || q.otherShape
	p.repairs |= q.repairs
	p.verb, p.cands = q.verb, q.cands
	if e, isErr := err.(*Error); isErr {
		f := p.fail(e.Reason)
		f.Code = e.Code
		return Action{}, ok, f
	}
	if err != nil || !ok {
		return a, ok, err
	}
	return p.done(a), ok, nil
}

// readCands reads the action from the calls found in a reply.
func (p *parser) readCands(d *doc, text string, cands []callCand) (Action, bool, error) {
	if len(cands) == 0 {
		return Action{}, false, nil
	}
	off := 0
	for i, l := range d.lines {
		if off >= cands[0].start {
			break
		}
		if _, ok := d.headAt(i); ok {
			return Action{}, false, nil
		}
		off += len(l) + 1
	}
	var (
		acts  []Action
		seen  = map[string]bool{}
		verbs []string
	)
	for _, c := range cands {
		p.shape(c.shapes...)
		if c.bad != "" {
			return Action{}, true, p.fail(c.bad)
		}
		var (
			a   Action
			err *Error
		)
		switch {
		case c.final != nil:
			p.verb = VerbDone
			a = Action{Verb: VerbDone, Text: *c.final}
		case c.line != "":
			h, _ := matchHead(c.line)
			line, lerr := p.action(newDoc([]string{c.line}), 0, h)
			if lerr != nil {
				return Action{}, true, lerr
			}
			a = line
		default:
			a, err = p.callToAction(c.name, c.args)
		}
		if err != nil {
			return Action{}, true, err
		}
		a.Shape, a.Via, a.Repairs = "", "", nil
		key, _ := json.Marshal(a)
		if !seen[string(key)] {
			seen[string(key)] = true
			acts = append(acts, a)
			verbs = append(verbs, Canonical(a))
		}
	}
	if len(acts) > 1 {
		p.verb = acts[0].Verb
		return Action{}, true, p.refuse(codeAmbiguous, "it holds "+strconv.Itoa(len(acts))+" different calls ("+strings.Join(verbs, "; ")+"), and which one you meant is not for the harness to guess")
	}
	// What lies outside the calls, their wrappers' tokens aside, is chatter.
	outside := []byte(text)
	for _, c := range cands {
		for i := c.start; i < c.end && i < len(outside); i++ {
			outside[i] = ' '
		}
	}
	if strings.TrimSpace(wrapperTokenRE.ReplaceAllString(string(outside), "")) != "" {
		p.shape(shapeChatter)
	}
	p.verb = acts[0].Verb
	return p.done(acts[0]), true, nil
}

// knownArg reports whether k is an argument name of the lexicon.
func knownArg(k string) bool {
	key := nameKey(k)
	for _, names := range [][]string{argPath, argContent, argFind, argReplace, argDiff, argCommand, argStart, argEnd, argRange, argLimit, argName, argArgs, argTarget, argAsk, argDone} {
		for _, n := range names {
			if nameKey(n) == key {
				return true
			}
		}
	}
	return false
}

// nameLineCall reads a reply that is a tool's name on a line of its own
// and then its arguments as one object, nothing else (functionary's
// "NAME\n{…}"): the name line is no action line of its own then.
func nameLineCall(text string) (callCand, bool) {
	t := strings.TrimSpace(text)
	name, rest, ok := strings.Cut(t, "\n")
	name, rest = strings.TrimSpace(name), strings.TrimSpace(rest)
	if !ok || !strings.HasPrefix(rest, "{") || identEnd(name, 0) != len(name) {
		return callCand{}, false
	}
	if _, known := lookupTool(name); !known {
		return callCand{}, false
	}
	args, n, ok := relaxedObject(rest)
	if !ok || strings.TrimSpace(rest[n:]) != "" {
		return callCand{}, false
	}
	for k := range args {
		if !knownArg(k) {
			return callCand{}, false
		}
	}
	start := strings.Index(text, name)
	return callCand{name: name, args: keyed(args), shapes: []string{shapeJSONCall}, start: start, end: len(text)}, true
}
