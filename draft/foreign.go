package draft

import (
	"encoding/json"
	"regexp"
	"strings"
)

// This file reads the call formats that models and agent frameworks
// document: Llama 3.1's <function=NAME>{...}</function>, Llama 3.2's
// pythonic list [read_file(path="x.py")], JSON action objects
// ({"action": ..., "action_input": ...}), LangChain's ReAct
// (Action: / Action Input:), and verbs written where this protocol does not
// put them ([READ x.py], "Running the tests now: RUN tests", TASK COMPLETE).

var functionTagRE = regexp.MustCompile(`<function=([A-Za-z_][\w.-]*)>`)

// foreignCall reads the call formats that can only be recognised on the
// text as a whole: a function tag, a pythonic list, a JSON action object.
func (p *parser) foreignCall(text string) (Action, bool, error) {
	if a, ok, err := p.functionTag(text); ok {
		return a, ok, err
	}
	if a, ok, err := p.pythonicList(text); ok {
		return a, ok, err
	}
	return p.jsonAction(text)
}

// functionTag reads <function=read_file>{"path": "x.py"}</function>, the
// user-defined tool-call format of Meta's Llama 3.1 prompt guide.
func (p *parser) functionTag(text string) (Action, bool, error) {
	loc := functionTagRE.FindStringSubmatchIndex(text)
	if loc == nil {
		return Action{}, false, nil
	}
	name := text[loc[2]:loc[3]]
	rest := strings.TrimSpace(text[loc[1]:])
	end := strings.Index(rest, "</function>")
	body, after := rest, ""
	if end >= 0 {
		body, after = rest[:end], rest[end+len("</function>"):]
	}
	args, ok := decodeArgs(json.RawMessage(strings.TrimSpace(body)))
	if strings.TrimSpace(body) == "" {
		args, ok = map[string]any{}, true
	}
	p.shape(ShapeFunctionTag)
	if !ok {
		return Action{}, true, p.fail("<function=" + name + "> must be followed by its arguments as one JSON object")
	}
	if strings.TrimSpace(text[:loc[0]]) != "" || strings.TrimSpace(after) != "" {
		p.shape(ShapeChatter)
	}
	a, err := p.toolAction(name, args)
	return a, true, err
}

var pythonicRE = regexp.MustCompile(`(?m)^[ \t]*\[\s*[A-Za-z_][\w.]*\s*\(`)

// pythonicList reads [read_file(path="x.py"), run_tests()], the tool-call
// format of Meta's Llama 3.2 prompt guide. The list is a sequence, as a
// numbered list of actions is: the first call is the action.
func (p *parser) pythonicList(text string) (Action, bool, error) {
	loc := pythonicRE.FindStringIndex(text)
	if loc == nil {
		return Action{}, false, nil
	}
	before := text[:loc[0]]
	s := strings.TrimLeft(text[loc[0]:], " \t")
	i := skipSpace(s, 1)
	type call struct {
		name string
		args callArgs
	}
	var calls []call
	for {
		k := identEnd(s, i)
		for k < len(s) && s[k] == '.' { // functions.read_file
			k = identEnd(s, k+1)
		}
		name := s[i:k]
		j := skipSpace(s, k)
		if name == "" || j >= len(s) || s[j] != '(' {
			return Action{}, false, nil
		}
		c, n, reason := parseCall(s[j:])
		if reason != "" {
			p.shape(ShapePythonicList)
			return Action{}, true, p.fail("[" + name + "(...)]: " + reason)
		}
		calls = append(calls, call{name, c})
		i = skipSpace(s, j+n)
		if i < len(s) && s[i] == ',' {
			i = skipSpace(s, i+1)
			continue
		}
		if i < len(s) && s[i] == ']' {
			i++
			break
		}
		return Action{}, false, nil
	}
	p.shape(ShapePythonicList)
	if strings.TrimSpace(before) != "" || strings.TrimSpace(s[i:]) != "" {
		p.shape(ShapeChatter)
	}
	if len(calls) > 1 {
		p.repair(RepairExtraActionsIgnored)
	}
	name := strings.TrimPrefix(strings.ToLower(calls[0].name), "functions.")
	verb, ok := toolNames[name]
	if !ok {
		return Action{}, true, p.fail("unknown tool " + quote(calls[0].name) + "; the tools are read_file, write_file, patch_file, run_tests, skill, ask and done")
	}
	p.verb = verb
	a, needBody, needBlocks, err := p.fromArgs(verb, name, calls[0].args)
	if err != nil {
		return Action{}, true, err
	}
	if needBody || needBlocks {
		return Action{}, true, p.fail(name + " without its content: give the file (or find and replace) as arguments")
	}
	return p.done(a), true, nil
}

// JSON action objects: the name of the action under one of these keys, its
// input under one of the others or as the object's own keys.
var (
	actionKeys = []string{"action", "tool", "command", "tool_name", "name"}
	inputKeys  = []string{"action_input", "args", "arguments", "input", "parameters", "tool_input", "params"}
)

// jsonAction reads an action object that is not a tool call:
// {"action": "read_file", "action_input": {"path": "x.py"}} (LangChain's
// structured-chat agent), {"action": "READ", "path": "x.py"},
// {"command": "RUN tests"}.
func (p *parser) jsonAction(text string) (Action, bool, error) {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "{") {
		return Action{}, false, nil
	}
	dec := json.NewDecoder(strings.NewReader(t))
	dec.UseNumber()
	var obj map[string]any
	if dec.Decode(&obj) != nil {
		return Action{}, false, nil
	}
	name, key := "", ""
	for _, k := range actionKeys {
		if s, ok := obj[k].(string); ok && strings.TrimSpace(s) != "" {
			name, key = strings.TrimSpace(s), k
			break
		}
	}
	if name == "" {
		return Action{}, false, nil
	}
	p.shape(ShapeJSONAction)
	if strings.TrimSpace(t[dec.InputOffset():]) != "" {
		p.shape(ShapeChatter)
	}
	// LangChain's way to finish.
	if strings.EqualFold(name, "Final Answer") {
		p.verb = VerbDone
		s, _ := obj["action_input"].(string)
		return p.done(Action{Verb: VerbDone, Text: strings.TrimSpace(s)}), true, nil
	}
	// The whole action as one line: {"command": "READ x.py"}.
	if strings.ContainsAny(name, " \t") {
		if h, ok := matchHead(name); ok && !h.call {
			d := newDoc([]string{name})
			a, err := p.action(d, 0, h)
			return a, true, err
		}
	}
	args := map[string]any{}
	var input any
	for _, k := range inputKeys {
		if v, ok := obj[k]; ok && k != key {
			input = v
			break
		}
	}
	switch v := input.(type) {
	case map[string]any:
		args = v
	case string:
		// One input: what the verb takes first.
		args[primaryArg(name)] = v
	case nil:
		for k, v := range obj {
			if k != key {
				args[k] = v
			}
		}
	default:
		return Action{}, true, p.fail("the input of action " + quote(name) + " must be an object or a string")
	}
	a, err := p.toolAction(name, args)
	return a, true, err
}

// primaryArg is the argument a single string input stands for.
func primaryArg(name string) string {
	switch toolNames[strings.ToLower(name)] {
	case VerbRun:
		return "target"
	case VerbSkill:
		return "name"
	case VerbAsk:
		return "question"
	case VerbDone:
		return "summary"
	}
	return "path"
}

var (
	reactActionRE = regexp.MustCompile(`^\s*(?:\*\*)?Action(?:\*\*)?\s*:\s*(?:\*\*)?\s*` + "`?" + `([A-Za-z_][\w.-]*)` + "`?" + `\s*(?:\*\*)?\s*$`)
	reactInputRE  = regexp.MustCompile(`(?i)^\s*(?:\*\*)?(?:action[ _]input|input|path|file)(?:\*\*)?\s*:\s*(?:\*\*)?\s*(.*)$`)
	reactFinalRE  = regexp.MustCompile(`^\s*(?:\*\*)?Final Answer(?:\*\*)?\s*:\s*(.*)$`)
	thoughtRE     = regexp.MustCompile(`(?i)^\s*(?:\*\*)?(?:thought|observation|question)(?:\*\*)?\s*:`)
)

// react reads LangChain's ReAct format: "Action: READ" (the tool alone on
// its line) followed by "Action Input: x.py" (or "Path: x.py"), or
// "Final Answer: ..." as DONE. The Thought lines are part of the format.
func (p *parser) react(d *doc) (Action, bool, error) {
	for i, l := range d.lines {
		if d.in[i] >= 0 {
			continue
		}
		m := reactActionRE.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		j := i + 1
		for j < len(d.lines) && strings.TrimSpace(d.lines[j]) == "" {
			j++
		}
		if j >= len(d.lines) || d.in[j] >= 0 {
			continue
		}
		in := reactInputRE.FindStringSubmatch(d.lines[j])
		if in == nil {
			continue
		}
		p.shape(ShapeReAct)
		p.markThoughts(d)
		d.use(i, j)
		name, input := m[1], strings.TrimSpace(in[1])
		if strings.HasPrefix(input, "{") {
			rest := input
			if j+1 < len(d.lines) {
				rest += "\n" + strings.Join(d.lines[j+1:], "\n")
			}
			dec := json.NewDecoder(strings.NewReader(rest))
			dec.UseNumber()
			var args map[string]any
			if dec.Decode(&args) != nil {
				return Action{}, true, p.fail("Action Input of " + name + " is not one JSON object")
			}
			d.use(j, j+strings.Count(rest[:dec.InputOffset()], "\n"))
			a, err := p.toolAction(name, args)
			return a, true, err
		}
		verb, ok := verbWords[strings.ToLower(name)]
		if !ok {
			return Action{}, true, p.fail("unknown action " + quote(name) + " after Action:; the actions are READ, WRITE, PATCH, RUN, SKILL, ASK and DONE")
		}
		input = strings.Trim(input, "\"'")
		h, ok := matchHead(verb + " " + input)
		if !ok || h.verb != verb {
			return Action{}, true, p.fail("Action Input " + quote(input) + " does not fit " + verb)
		}
		a, err := p.action(d, j, h)
		return a, true, err
	}
	for i, l := range d.lines {
		if d.in[i] >= 0 {
			continue
		}
		if m := reactFinalRE.FindStringSubmatch(l); m != nil {
			p.shape(ShapeReAct)
			p.markThoughts(d)
			p.verb = VerbDone
			text := strings.TrimSpace(m[1])
			if rest := strings.TrimSpace(strings.Join(d.lines[i+1:], "\n")); rest != "" {
				text = strings.TrimSpace(text + "\n" + rest)
			}
			d.use(i, len(d.lines)-1)
			return p.finish(d, Action{Verb: VerbDone, Text: text}), true, nil
		}
	}
	return Action{}, false, nil
}

// markThoughts takes a ReAct reply's Thought lines as part of the format,
// not chatter.
func (p *parser) markThoughts(d *doc) {
	for i, l := range d.lines {
		if d.in[i] < 0 && thoughtRE.MatchString(l) {
			d.use(i, i)
		}
	}
}

// finish stamps an action read outside p.action, noting chatter.
func (p *parser) finish(d *doc, a Action) Action {
	for j, l := range d.lines {
		if !d.used[j] && strings.TrimSpace(l) != "" {
			p.shape(ShapeChatter)
			break
		}
	}
	return p.done(a)
}

var (
	bracketLineRE = regexp.MustCompile(`^\s*\[\s*(.+?)\s*\]\s*$`)
	afterChatRE   = regexp.MustCompile(`(?:[:.!?;]|\s[-–—])\s+((?:READ|WRITE|PATCH|RUN|SKILL|ASK|DONE)\b.*)$`)
	doneAliasRE   = regexp.MustCompile(`(?i)^[\s*#>_-]*(?:the\s+)?task\s+(?:is\s+)?(?:now\s+)?(?:complete|completed|finished|done)[.!]?[\s*_]*$`)
)

// oddVerb reads a verb the protocol does not put there, when no line opens
// with one: the whole action in brackets ("[READ x.py]"), or the verb in
// capitals after chatter on the same line ("Running the tests now: RUN
// tests"). Only a capital verb followed by what it takes counts, so "then
// I will read it" stays chatter.
func (p *parser) oddVerb(d *doc) (Action, bool, error) {
	for i, l := range d.lines {
		if d.in[i] >= 0 {
			continue
		}
		if m := bracketLineRE.FindStringSubmatch(l); m != nil {
			if h, ok := matchHead(m[1]); ok && h.word == h.verb && !h.call && (h.verb == VerbDone || plausible(h)) {
				p.shape(ShapeBracketedAction)
				a, err := p.action(d, i, h)
				return a, true, err
			}
		}
		if m := afterChatRE.FindStringSubmatch(l); m != nil {
			if h, ok := matchHead(m[1]); ok && h.word == h.verb && !h.call && plausible(h) {
				p.shape(ShapeVerbAfterChatter)
				a, err := p.action(d, i, h)
				return a, true, err
			}
		}
	}
	return Action{}, false, nil
}

// doneAlias reads "TASK COMPLETE" as the last line of a reply as DONE, the
// summary being the text before it.
func (p *parser) doneAlias(d *doc) (Action, bool) {
	last := len(d.lines) - 1
	for last >= 0 && strings.TrimSpace(d.lines[last]) == "" {
		last--
	}
	if last < 0 || d.in[last] >= 0 || !doneAliasRE.MatchString(d.lines[last]) {
		return Action{}, false
	}
	p.verb = VerbDone
	p.shape(ShapeDoneAlias)
	return p.done(Action{Verb: VerbDone, Text: strings.TrimSpace(strings.Join(d.lines[:last], "\n"))}), true
}

// candidates handles a target whose first word is not a file name ("READ
// the file x.py"): the words up to a reason are the candidates, and the
// path is the first that looks like a file name. The harness, which can
// see the files, makes the choice.
func (p *parser) candidates(word, tail string) (path, rest string, cands []string) {
	if pathLike(word) {
		return word, tail, nil
	}
	words := []string{word}
	fields := strings.Fields(tail)
	n := 0
	for n < len(fields) && n < 8 {
		w := fields[n]
		if reasonWords[strings.ToLower(w)] {
			break
		}
		words = append(words, w)
		n++
		if strings.ContainsAny(w[len(w)-1:], ".,;!?") && !pathLike(w) {
			break
		}
	}
	if len(words) < 2 {
		return word, tail, nil
	}
	path = ""
	seen := map[string]bool{}
	for _, w := range words {
		c, _, reason := cleanPath(w)
		if rest, _, _, ok, bad := splitWindow(c); ok && bad == "" {
			c = rest
		}
		if reason != "" || seen[c] {
			continue
		}
		seen[c] = true
		cands = append(cands, c)
		if path == "" && pathLike(w) {
			path = w
		}
	}
	if path == "" {
		// No word looks like a file name ("READ the Makefile"): the first
		// word stands unless the harness finds one that is a file.
		path = word
	}
	if len(cands) < 2 {
		return word, tail, nil
	}
	p.shape(ShapePathAmongWords)
	p.cands = cands
	return path, strings.Join(fields[n:], " "), cands
}
