package draft

import (
	"encoding/json"
	"regexp"
	"strings"
)

// This file reads LangChain's ReAct (Action: / Action Input:), and verbs
// written where this protocol does not put them ([READ x.py], "Running the
// tests now: RUN tests", TASK COMPLETE). Calls in any other wrapper are
// read by the one call reader (calls.go).

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
		m := matchIf(strings.Contains(l, "Action"), reactActionRE, l)
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
		p.shape(shapeReAct)
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
			p.shape(shapeReAct)
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
			p.shape(shapeChatter)
			break
		}
	}
	return p.done(a)
}

var (
	bracketLineRE = regexp.MustCompile(`^\s*\[\s*(.+?)\s*\]\s*$`)
	afterChatRE   = regexp.MustCompile(`(?:[:.!?;]|\s[-–—])\s+((?:READ|WRITE|PATCH|RUN|SKILL|ASK|DONE)\b.*)$`)
	doneAliasRE   = regexp.MustCompile(`(?i)^[\s*#>_-]*(?:the\s+)?task\s+(?:is\s+)?(?:now\s+)?(?:complete|completed|finished|done)(?:[.!]|\s*(?:[:—–]|\s-)\s*(.*?))?[\s*_]*$`)
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
				p.shape(shapeBracketedAction)
				a, err := p.action(d, i, h)
				return a, true, err
			}
		}
		if m := afterChatRE.FindStringSubmatch(l); m != nil {
			// DONE with its summary after chatter ("Sure. DONE: …") ends
			// the reply: only on its last line is it the action.
			if h, ok := matchHead(m[1]); ok && h.word == h.verb && !h.call && (plausible(h) || h.verb == VerbDone && lastLine(d, i)) {
				p.shape(shapeVerbAfterChatter)
				a, err := p.action(d, i, h)
				return a, true, err
			}
		}
	}
	return Action{}, false, nil
}

// lastLine reports whether line i is the last with text in it.
func lastLine(d *doc, i int) bool {
	for _, l := range d.lines[i+1:] {
		if strings.TrimSpace(l) != "" {
			return false
		}
	}
	return true
}

// doneAlias reads "TASK COMPLETE" as the last line of a reply as DONE, the
// summary being the text before it.
func (p *parser) doneAlias(d *doc) (Action, bool) {
	last := len(d.lines) - 1
	for last >= 0 && strings.TrimSpace(d.lines[last]) == "" {
		last--
	}
	if last < 0 || d.in[last] >= 0 {
		return Action{}, false
	}
	m := matchIf(true, doneAliasRE, d.lines[last])
	if m == nil {
		return Action{}, false
	}
	p.verb = VerbDone
	p.shape(shapeDoneAlias)
	// The summary: the text before the line, and what follows the
	// colon of "TASK COMPLETE: …".
	text := strings.TrimSpace(strings.Join(d.lines[:last], "\n") + "\n" + m[1])
	return p.done(Action{Verb: VerbDone, Text: text}), true
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
	p.shape(shapePathAmongWords)
	p.cands = cands
	return path, strings.Join(fields[n:], " "), cands
}
