package learn

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/pyharness/pyharness/harness/chattemplate"
	"github.com/pyharness/pyharness/harness/draft"
	"github.com/pyharness/pyharness/schemas"
)

// Renderer renders a conversation as a chat template does: a Jinja
// template (chattemplate.Template) or an Ollama Go template.
type Renderer interface {
	Render(c chattemplate.Conversation) (string, error)
}

// Probe names and values: words no template writes on its own, without
// digits (digits in a rendering are read as a call's index).
const (
	probeUser    = "PROBE-USER-question"
	probeMark    = "PROBEanswerMARK"
	probeAnswer  = "PROBE-ANSWER-text"
	probeReason  = "PROBE-REASONING-text"
	probeNameA   = "probe_alpha_tool"
	probeNameB   = "probe_beta_tool"
	probeKeyA    = "probe_where"
	probeKeyB    = "probe_what"
	probeValueA  = "probe/plain-value.py"
	probeValueB  = "probe-second-value"
	probeValueC  = "probe-third-value"
	probeIDA     = "PrbCallAa"
	probeIDB     = "PrbCallBb"
	probeHardKey = probeKeyB
)

// probeHard is a value with what breaks naive readers: quotes of both
// kinds, a newline, a tab, a backslash, text outside ASCII and a closing
// tag.
const probeHard = "say \"hi\" and 'bye'\n\tback\\slash é 中 </probe_end> done"

var (
	cacheMu sync.Mutex
	cache   = map[string]*draft.Syntax{}
)

// Digest is a template source's digest, the key syntaxes are cached and
// recorded by.
func Digest(source string) string {
	sum := sha256.Sum256([]byte(source))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Template learns the syntax of a Jinja chat template, cached by the
// digest of its source.
func Template(t *chattemplate.Template) *draft.Syntax {
	return Cached(Digest(t.Source), t.Name, t)
}

// Cached learns the syntax r renders, once per digest.
func Cached(digest, name string, r Renderer) *draft.Syntax {
	cacheMu.Lock()
	defer cacheMu.Unlock()
	if s, ok := cache[digest]; ok {
		return s
	}
	s := learnSyntax(r)
	s.Template, s.Name = digest, name
	cache[digest] = s
	return s
}

func obj(kv ...any) *chattemplate.Object { return chattemplate.NewObject(kv...) }

// probeTools declares the probe tools, their arguments strings.
func probeTools() []any {
	params := obj("type", "object", "properties", obj(probeKeyA, obj("type", "string", "description", "a path"), probeKeyB, obj("type", "string", "description", "a text")), "required", []any{probeKeyA, probeKeyB})
	var out []any
	for _, n := range []string{probeNameA, probeNameB} {
		out = append(out, obj("type", "function", "function", obj("name", n, "description", "a probe", "parameters", params)))
	}
	return out
}

func call(id, name string, args *chattemplate.Object) *chattemplate.Object {
	return obj("id", id, "type", "function", "function", obj("name", name, "arguments", args))
}

// learnSyntax renders probe conversations through r and reads from the
// differences how it writes calls and reasoning. What it cannot learn is
// left nil: a template that renders no call has no call syntax.
func learnSyntax(r Renderer) *draft.Syntax {
	s := &draft.Syntax{}
	s.Reasoning = learnReasoning(r)
	s.Calls = learnCalls(r, s.Reasoning)
	return s
}

// render renders the user's probe and one assistant message, with or
// without the probe tools.
func render(r Renderer, vars map[string]any, assistant *chattemplate.Object) (string, error) {
	return r.Render(chattemplate.Conversation{Tools: probeTools(), Vars: vars,
		Messages: []any{obj("role", "user", "content", probeUser), assistant}})
}

// assistantWith renders an assistant turn of calls: with an empty content
// or, for templates that refuse one beside calls, none.
func assistantWith(r Renderer, calls ...any) (string, error) {
	out, err := render(r, nil, obj("role", "assistant", "content", "", "tool_calls", calls))
	if err != nil {
		out, err = render(r, nil, obj("role", "assistant", "tool_calls", calls))
	}
	return out, err
}

// section is the part of with that differs from without, widened to whole
// tokens: a diff of two renderings can start or end inside a special
// token both share a part of.
func section(with, without string) string {
	n := 0
	for n < len(with) && n < len(without) && with[n] == without[n] {
		n++
	}
	m := 0
	for m < len(with)-n && m < len(without)-n && with[len(with)-1-m] == without[len(without)-1-m] {
		m++
	}
	start, end := n, len(with)-m
	for k := 0; k < 32 && start > 0 && !strings.ContainsRune(" \t\n>]}", rune(with[start-1])); k++ {
		start--
	}
	for k := 0; k < 32 && end < len(with) && !strings.ContainsRune(">]", rune(with[end-1])) && !strings.ContainsRune(" \t\n<[", rune(with[end])); k++ {
		end++
	}
	// Widening may run into bytes of a multi-byte rune; stay on runes.
	for start > 0 && start < len(with) && !utf8Start(with[start]) {
		start--
	}
	for end < len(with) && !utf8Start(with[end]) {
		end++
	}
	return with[start:end]
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

var (
	attrRE = regexp.MustCompile(`="[^"<>]*"`)
)

// holes writes a piece of a rendering with its holes: the probe's call
// ids and any digits (a call's index).
func holes(s string) string {
	s = strings.ReplaceAll(s, probeIDA, "\x00")
	s = strings.ReplaceAll(s, probeIDB, "\x00")
	s = digitsToHoles(s)
	return strings.ReplaceAll(s, "\x00", draft.HoleID)
}

// digitsToHoles writes every run of digits in s as draft.HoleNumber.
func digitsToHoles(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if '0' <= s[i] && s[i] <= '9' {
			for i < len(s) && '0' <= s[i] && s[i] <= '9' {
				i++
			}
			b.WriteString(draft.HoleNumber)
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

func commonPrefix(a, b string) string {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	for n > 0 && n < len(a) && !utf8Start(a[n]) {
		n--
	}
	return a[:n]
}

func commonSuffix(a, b string) string {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	for n > 0 && n < len(a) && !utf8Start(a[len(a)-n]) {
		n--
	}
	return a[len(a)-n:]
}

// shape is one rendered call cut around its name and arguments.
type shape struct {
	before, between, after string
	nameLast               bool
	args                   string
	fields                 *draft.FieldSyntax
	keyEnd                 string // KeyEnd as rendered, holes not made
	// argsStart and argsEnd are the arguments' bytes in the section, and
	// nameStart, nameEnd the name's.
	argsStart, argsEnd, nameStart, nameEnd int
}

// cut finds the name and the arguments of one call in a section.
func cut(sec, name string, args map[string]string, keys []string) (shape, bool) {
	var sh shape
	sh.nameStart = strings.Index(sec, name)
	if sh.nameStart < 0 {
		return sh, false
	}
	sh.nameEnd = sh.nameStart + len(name)
	// JSON: an object (or a string holding one) that decodes to the
	// arguments.
	for i := 0; i < len(sec); i++ {
		if sec[i] != '{' && sec[i] != '"' {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(sec[i:]))
		var v any
		if dec.Decode(&v) != nil {
			continue
		}
		kind := draft.ArgsJSON
		if str, ok := v.(string); ok {
			if json.Unmarshal([]byte(str), &v) != nil {
				continue
			}
			kind = draft.ArgsJSONString
		}
		if m, ok := v.(map[string]any); ok && sameArgs(m, args) {
			sh.args, sh.argsStart, sh.argsEnd = kind, i, i+int(dec.InputOffset())
			if sh.nameStart >= sh.argsStart && sh.nameStart < sh.argsEnd {
				// The name inside the object: {"name": …} is a field of
				// the call, not of the arguments, so this is not it.
				continue
			}
			return sh.split(sec), true
		}
	}
	// Fields: each key then its value, in the order written.
	type pos = span
	var ps []pos
	for _, k := range keys {
		v := args[k]
		vs := strings.Index(sec[sh.nameEnd:], v)
		if vs < 0 {
			// Name last: the fields come before it.
			vs = strings.Index(sec, v)
			if vs < 0 {
				return sh, false
			}
		} else {
			vs += sh.nameEnd
		}
		ks := strings.LastIndex(sec[:vs], k)
		if ks < 0 {
			return sh, false
		}
		ps = append(ps, pos{ks, ks + len(k), vs, vs + len(v)})
	}
	if len(ps) != 2 {
		return sh, false
	}
	if ps[1].ks < ps[0].ks {
		ps[0], ps[1] = ps[1], ps[0]
	}
	a, b := ps[0], ps[1]
	if a.ve > b.ks {
		return sh, false
	}
	sh.args = draft.ArgsFields
	sh.nameLast = sh.nameStart > b.ve
	lead := sec[:a.ks]
	if !sh.nameLast {
		lead = sec[sh.nameEnd:a.ks]
	}
	mid := sec[a.ve:b.ks]
	tail := sec[b.ve:]
	if sh.nameLast {
		tail = sec[b.ve:sh.nameStart]
	}
	// A field's close may repeat its key (<path>…</path>).
	mid = strings.Replace(mid, keyOf(sec, a), draft.HoleKey, 1)
	tail = strings.Replace(tail, keyOf(sec, b), draft.HoleKey, 1)
	f := &draft.FieldSyntax{Values: draft.ValuesRaw}
	f.FieldOpen = tokenStart(lead, commonSuffix(lead, mid))
	f.FieldClose = commonPrefix(strings.TrimSuffix(mid, f.FieldOpen), tail)
	f.Separator = strings.TrimSuffix(strings.TrimPrefix(mid, f.FieldClose), f.FieldOpen)
	ke1, ke2 := sec[a.ke:a.vs], sec[b.ke:b.vs]
	if ke1 != ke2 {
		return sh, false
	}
	// Attributes after the key say the value's type, which changes with
	// the argument.
	f.KeyEnd = attrRE.ReplaceAllString(ke1, `="`+draft.HoleAny+`"`)
	// The template's quote: what ends KeyEnd and starts FieldClose.
	for n := min(len(f.KeyEnd), len(f.FieldClose), 8); n > 0; n-- {
		q := f.KeyEnd[len(f.KeyEnd)-n:]
		if strings.HasPrefix(f.FieldClose, q) && strings.TrimSpace(q) != "" && utf8Start(q[0]) {
			f.Quote = q
			break
		}
	}
	sh.fields, sh.keyEnd = f, ke1
	sh.argsStart = a.ks - len(f.FieldOpen)
	sh.argsEnd = b.ve + len(strings.Replace(f.FieldClose, draft.HoleKey, keyOf(sec, b), 1))
	if sh.nameLast {
		sh.before, sh.between, sh.after = sec[:sh.argsStart], sec[sh.argsEnd:sh.nameStart], sec[sh.nameEnd:]
	} else {
		sh.before, sh.between, sh.after = sec[:sh.nameStart], sec[sh.nameEnd:sh.argsStart], sec[sh.argsEnd:]
	}
	return sh, true
}

// span is where one field's key and value lie in a section.
type span struct{ ks, ke, vs, ve int }

func keyOf(sec string, p span) string { return sec[p.ks:p.ke] }

// tokenStart shrinks suffix, a common suffix of s, until it starts where
// a token may: a split inside "<|tool_call_begin|>" is no split.
func tokenStart(s, suffix string) string {
	for suffix != "" {
		i := len(s) - len(suffix)
		if i == 0 || strings.ContainsRune(" \t\n<[{", rune(suffix[0])) || strings.ContainsRune(" \t\n>]}{[(,", rune(s[i-1])) {
			return suffix
		}
		_, n := utf8.DecodeRuneInString(suffix)
		suffix = suffix[n:]
	}
	return suffix
}

// split cuts the section around a JSON call's name and arguments.
func (sh shape) split(sec string) shape {
	if sh.nameStart > sh.argsStart {
		sh.nameLast = true
		sh.before, sh.between, sh.after = sec[:sh.argsStart], sec[sh.argsEnd:sh.nameStart], sec[sh.nameEnd:]
	} else {
		sh.before, sh.between, sh.after = sec[:sh.nameStart], sec[sh.nameEnd:sh.argsStart], sec[sh.argsEnd:]
	}
	return sh
}

func sameArgs(m map[string]any, args map[string]string) bool {
	if len(m) != len(args) {
		return false
	}
	for k, v := range args {
		if s, ok := m[k].(string); !ok || s != v {
			return false
		}
	}
	return true
}

// learnCalls renders an assistant turn with one call, with two, and with
// none, and reads the call syntax from the differences.
func learnCalls(r Renderer, rs *draft.ReasoningSyntax) *draft.CallSyntax {
	none, err := render(r, nil, obj("role", "assistant", "content", probeMark))
	if err != nil {
		return nil
	}
	keys := []string{probeKeyA, probeKeyB}
	plain := map[string]string{probeKeyA: probeValueA, probeKeyB: probeValueB}
	one, err := assistantWith(r, call(probeIDA, probeNameA, obj(probeKeyA, probeValueA, probeKeyB, probeValueB)))
	if err != nil {
		return nil
	}
	sec1 := section(one, none)
	sh, ok := cut(sec1, probeNameA, plain, keys)
	if !ok {
		return nil
	}
	// The name may be written again (<invoke name=…> after to=NAME).
	named := func(s string) string { return strings.ReplaceAll(holes(s), probeNameA, draft.HoleName) }
	cs := &draft.CallSyntax{Args: sh.args, NameLast: sh.nameLast, Between: named(sh.between), Fields: sh.fields}
	before, after := holes(sh.before), named(sh.after)
	cs.CallOpen, cs.CallClose = before, after
	// Two calls: what lies between them is the one's close, the
	// separator and the other's open.
	two, err := assistantWith(r,
		call(probeIDA, probeNameA, obj(probeKeyA, probeValueA, probeKeyB, probeValueB)),
		call(probeIDB, probeNameB, obj(probeKeyA, probeValueA, probeKeyB, probeValueC)))
	if err == nil {
		sec2 := section(two, none)
		first := sh.argsEnd
		if sh.nameLast {
			first = sh.nameEnd
		}
		second := map[string]string{probeKeyA: probeValueA, probeKeyB: probeValueC}
		if first <= len(sec2) && strings.HasPrefix(sec2, sec1[:first]) {
			if sh2, ok := cut(sec2[first:], probeNameB, second, keys); ok && sh2.args == sh.args {
				x := holes(sh2.before)
				cs.CallOpen = tokenStart(before, commonSuffix(before, x))
				cs.CallClose = commonPrefix(strings.TrimSuffix(x, cs.CallOpen), after)
				cs.Separator = strings.TrimSuffix(strings.TrimPrefix(x, cs.CallClose), cs.CallOpen)
				cs.Open = strings.TrimSuffix(before, cs.CallOpen)
				cs.Close = strings.TrimPrefix(after, cs.CallClose)
			}
		}
	}
	// An empty reasoning block the template writes before calls is no
	// part of the calls' opening: a model that reasoned filled it.
	if rs != nil {
		cs.Open = strings.TrimSpace(strings.Replace(cs.Open, strings.TrimSpace(rs.Open)+strings.TrimSpace(rs.Close), "", 1))
	}
	if cs.Args == draft.ArgsFields && !learnValues(r, cs, sh.keyEnd, none) {
		return nil
	}
	return cs
}

// learnValues renders a call whose value is hard and reads how the
// template writes it: as it is, or escaped as JSON, maybe wrapped.
func learnValues(r Renderer, cs *draft.CallSyntax, keyEnd, none string) bool {
	out, err := assistantWith(r, call(probeIDA, probeNameA, obj(probeKeyA, probeValueA, probeKeyB, probeHard)))
	if err != nil {
		return false
	}
	sec := section(out, none)
	f := cs.Fields
	k := strings.Index(sec, probeHardKey+keyEnd)
	if k < 0 {
		return false
	}
	v := sec[k+len(probeHardKey)+len(keyEnd):]
	enc := map[string]string{draft.ValuesRaw: probeHard}
	j, _ := json.Marshal(probeHard)
	enc[draft.ValuesJSON] = strings.Trim(strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(string(j)), `"`)
	for _, kind := range []string{draft.ValuesRaw, draft.ValuesJSON} {
		i := strings.Index(v, enc[kind])
		if i < 0 {
			continue
		}
		f.Values = kind
		rest := v[i+len(enc[kind]):]
		c := strings.Index(rest, strings.ReplaceAll(f.FieldClose, draft.HoleKey, probeHardKey))
		if c < 0 {
			return false
		}
		f.ValueOpen, f.ValueClose = v[:i], rest[:c]
		return true
	}
	return false
}

// learnReasoning renders an assistant turn with reasoning in each field
// templates read it from and without, and reads the markers around it.
func learnReasoning(r Renderer) *draft.ReasoningSyntax {
	varsets := []map[string]any{nil, thinkingVars}
	for _, field := range []string{"reasoning_content", "thinking", "reasoning"} {
		for _, vars := range varsets {
			with, err := render(r, vars, obj("role", "assistant", "content", probeAnswer, field, probeReason))
			if err != nil || !strings.Contains(with, probeReason) {
				continue
			}
			plain, err := render(r, vars, obj("role", "assistant", "content", probeAnswer))
			if err != nil {
				continue
			}
			open, close, answerOpen, ok := markers(with, plain)
			if !ok {
				continue
			}
			rs := &draft.ReasoningSyntax{Open: open, Close: close, Field: field, AnswerOpen: answerOpen}
			// Reasoning with no open mark begins every reply.
			rs.PromptOpens = open == "" || promptOpens(r, nil, open)
			rs.OpensWhenThinking = open != "" && promptOpens(r, thinkingVars, open)
			return rs
		}
	}
	// No field: a generation prompt that opens a block the template's
	// answers close (QwQ, the R1 distills).
	for _, vars := range varsets {
		prompt, err := r.Render(chattemplate.Conversation{Messages: []any{obj("role", "user", "content", probeUser)}, AddGenerationPrompt: true, Vars: vars})
		if err != nil {
			continue
		}
		full, err := render(r, vars, obj("role", "assistant", "content", probeAnswer))
		if err != nil {
			continue
		}
		tail := strings.TrimSpace(prompt[len(commonPrefix(prompt, full)):])
		if m := openTagRE.FindStringSubmatch(tail); m != nil && draft.NamesReasoning(m[1]) {
			return &draft.ReasoningSyntax{Open: m[0], Close: "</" + m[1] + ">", PromptOpens: vars == nil, OpensWhenThinking: true}
		}
	}
	return nil
}

// thinkingVars are the variables templates switch thinking on with.
var thinkingVars = map[string]any{"enable_thinking": true, "thinking": true, "reasoning_effort": "high"}

var (
	openTagRE = regexp.MustCompile(`<([A-Za-z_][\w:.-]*)>$`)
)

// markers reads the reasoning's open and close marks from a rendering
// with reasoning and one without. The open mark is the last token
// before the reasoning that names thinking (think, thought, reasoning,
// analysis) with the tokens it is written with, else the token just
// before it; the close mark likewise is the first such token after it.
func markers(with, plain string) (open, closeMark, answerOpen string, ok bool) {
	i := strings.Index(with, probeReason)
	a := strings.Index(with[i:], probeAnswer)
	if a < 0 {
		return "", "", "", false
	}
	// What precedes the reasoning back to where the two renderings part,
	// or, when the template writes its marks either way, back to the
	// line or token run before it.
	n := min(len(commonPrefix(with, plain)), i)
	for n > 0 && !strings.ContainsRune(" \t\n>]}", rune(with[n-1])) {
		n--
	}
	if k := strings.LastIndex(with[:i], probeUser); k >= 0 && k+len(probeUser) > n {
		n = k + len(probeUser)
	}
	if !draft.NamesReasoning(with[n:i]) {
		// The marks are written either way: look back to the line, or
		// the turn, the reasoning is in.
		n = max(strings.LastIndex(strings.TrimRight(with[:i], " \t\n"), "\n")+1, strings.LastIndex(with[:i], probeUser)+len(probeUser), 0)
		if n > i {
			n = i
		}
	}
	after := tokens(with[i+len(probeReason) : i+a])
	closeMark = pick(after, false)
	// What follows the close mark up to the answer opens the answer.
	answerOpen = strings.TrimSpace(strings.Join(after, ""))
	if k := strings.Index(answerOpen, closeMark); k >= 0 {
		answerOpen = strings.TrimSpace(answerOpen[k+len(closeMark):])
	}
	open = pick(tokens(with[n:i]), true)
	// A mark that the plain answer follows too is the turn's header,
	// not the reasoning's: the reasoning then begins the reply.
	if open != "" && !draft.NamesReasoning(open) && strings.HasSuffix(strings.TrimRight(plain[:strings.LastIndex(plain, probeAnswer)], " \t\n"), open) {
		open = ""
	}
	return open, closeMark, answerOpen, closeMark != ""
}

var tokenRE = regexp.MustCompile(`<[^<>]*>|\[[^\[\]]*\]|[^\s<\[]+|\s+`)

func tokens(s string) []string { return tokenRE.FindAllString(s, -1) }

func bracketed(t string) bool { return strings.HasPrefix(t, "<") || strings.HasPrefix(t, "[") }

// pick joins the tokens of a mark: the last (open) or first (close) that
// names thinking, a bare word with the bracketed tokens it is written
// between; without one, the token next to the reasoning.
func pick(toks []string, last bool) string {
	idx := -1
	for k := range toks {
		j := k
		if last {
			j = len(toks) - 1 - k
		}
		if draft.NamesReasoning(toks[j]) {
			idx = j
			break
		}
	}
	if idx < 0 {
		for k := range toks {
			j := k
			if last {
				j = len(toks) - 1 - k
			}
			if strings.TrimSpace(toks[j]) != "" {
				idx = j
				break
			}
		}
		if idx < 0 {
			return ""
		}
		return toks[idx]
	}
	from, to := idx, idx+1
	if !bracketed(toks[idx]) {
		if from > 0 && bracketed(toks[from-1]) {
			from--
		}
		if to < len(toks) && bracketed(toks[to]) {
			to++
		}
	}
	return strings.Join(toks[from:to], "")
}

// promptOpens reports whether the generation prompt ends with the open
// mark: the reply then begins inside its reasoning.
func promptOpens(r Renderer, vars map[string]any, open string) bool {
	prompt, err := r.Render(chattemplate.Conversation{Tools: probeTools(), Vars: vars, AddGenerationPrompt: true,
		Messages: []any{obj("role", "user", "content", probeUser)}})
	return err == nil && strings.HasSuffix(strings.TrimSpace(prompt), open)
}

// Describe is the syntax in a few lines, for doctor and pyharness draft.
func Describe(s *draft.Syntax) string {
	var b strings.Builder
	fmt.Fprintf(&b, "template:  %s %s\n", s.Name, s.Template)
	if c := s.Calls; c != nil {
		fmt.Fprintf(&b, "calls:     %q, each %q NAME %q ARGS %q, between calls %q, then %q\n", c.Open, c.CallOpen, c.Between, c.CallClose, c.Separator, c.Close)
		if c.NameLast {
			fmt.Fprintf(&b, "           (the arguments come before the name)\n")
		}
		fmt.Fprintf(&b, "arguments: %s\n", c.Args)
		if f := c.Fields; f != nil {
			fmt.Fprintf(&b, "fields:    %q, each %q KEY %q VALUE %q, between %q, then %q; values %s", f.Open, f.FieldOpen, f.KeyEnd, f.FieldClose, f.Separator, f.Close, f.Values)
			if f.Quote != "" {
				fmt.Fprintf(&b, ", quoted with %q", f.Quote)
			}
			if f.ValueOpen != "" {
				fmt.Fprintf(&b, ", wrapped in %q…%q", f.ValueOpen, f.ValueClose)
			}
			b.WriteString("\n")
		}
	} else {
		b.WriteString("calls:     none (the template renders no tool call)\n")
	}
	if r := s.Reasoning; r != nil {
		fmt.Fprintf(&b, "reasoning: %q … %q", r.Open, r.Close)
		if r.Field != "" {
			fmt.Fprintf(&b, " (from %s)", r.Field)
		}
		if r.PromptOpens {
			b.WriteString("; the generation prompt opens it")
		}
		b.WriteString("\n")
	} else {
		b.WriteString("reasoning: none (the template renders no reasoning)\n")
	}
	return b.String()
}

// Record is the syntax as run_start records it: the template's digest,
// where it came from, and a line each for its calls and its reasoning.
func Record(s *draft.Syntax, from string) *schemas.ChatSyntax {
	r := &schemas.ChatSyntax{Template: s.Template, From: from}
	if c := s.Calls; c != nil {
		args := "ARGS"
		if c.Args == draft.ArgsFields && c.Fields != nil {
			f := c.Fields
			args = f.Open + f.FieldOpen + "KEY" + f.KeyEnd + "VALUE" + f.FieldClose + f.Separator + "…" + f.Close
		} else if c.Args == draft.ArgsJSONString {
			args = "\"ARGS\""
		}
		call := c.CallOpen + "NAME" + c.Between + args + c.CallClose
		if c.NameLast {
			call = c.CallOpen + args + c.Between + "NAME" + c.CallClose
		}
		r.Calls = fmt.Sprintf("%q, arguments %s", c.Open+call+c.Separator+"…"+c.Close, c.Args)
	}
	if rs := s.Reasoning; rs != nil {
		r.Reasoning = fmt.Sprintf("%q … %q", rs.Open, rs.Close)
		if rs.PromptOpens {
			r.Reasoning += ", opened by the generation prompt"
		} else if rs.OpensWhenThinking {
			r.Reasoning += ", opened by the generation prompt when thinking is on"
		}
	}
	if r.Calls == "" && r.Reasoning == "" {
		r.None = "the template writes neither tool calls nor reasoning"
	}
	return r
}
