package draft

import (
	"regexp"
	"strings"
)

// doc is the reply as lines, with its fenced blocks and the lines an action
// has used, so that what is left over can be told apart as chatter.
type doc struct {
	lines  []string
	blocks []block
	in     []int // block index of each line, -1 outside fences
	used   []bool
	// text is the lines joined with "\n" when the doc was made from a
	// text (textDoc), so that the call reader need not join them again.
	text    string
	hasText bool
	offs    []int // byte offsets of the lines in text, and of its end + 1
}

// offsets are the byte offsets of the lines in the lines joined with
// "\n", with len(text)+1 last.
func (d *doc) offsets() []int {
	if d.offs == nil {
		d.offs = make([]int, len(d.lines)+1)
		for i, l := range d.lines {
			d.offs[i+1] = d.offs[i] + len(l) + 1
		}
	}
	return d.offs
}

// content is the content of b, a block of the doc, taken from the doc's
// text when the fence is not indented, since the lines inside it are then
// that text.
func (d *doc) content(b block) (text string, dedented bool) {
	if !d.hasText || b.fence.indent > 0 {
		return b.content(d.lines)
	}
	end := min(b.close, len(d.lines))
	if end <= b.open+1 {
		return "", false
	}
	offs := d.offsets()
	return d.text[offs[b.open+1] : offs[end]-1], false
}

// textDoc is the doc of text's lines.
func textDoc(text string) *doc {
	d := newDoc(strings.Split(text, "\n"))
	d.text, d.hasText = text, true
	return d
}

// joined is the doc's lines joined with "\n".
func (d *doc) joined() string {
	if d.hasText {
		return d.text
	}
	return strings.Join(d.lines, "\n")
}

func newDoc(lines []string) *doc {
	blocks, in := scanFences(lines)
	return &doc{lines: lines, blocks: blocks, in: in, used: make([]bool, len(lines))}
}

func (d *doc) use(from, to int) {
	for j := max(from, 0); j <= to && j < len(d.lines); j++ {
		d.used[j] = true
	}
}

// blockAt returns the block whose opening fence is line j.
func (d *doc) blockAt(j int) (block, bool) {
	if j < 0 || j >= len(d.lines) || d.in[j] < 0 {
		return block{}, false
	}
	b := d.blocks[d.in[j]]
	return b, b.open == j
}

// headAt reads line j as an action line, never inside a fence.
func (d *doc) headAt(j int) (head, bool) {
	if d.in[j] >= 0 {
		return head{}, false
	}
	return matchHead(d.lines[j])
}

// futureRE is a sentence that says what the writer will do.
var futureRE = regexp.MustCompile(`(?i)\b(?:I'll|I will|I'm going to|I am going to|let me|let's|we'll|we will|I shall|I'd)\s+(?:\w+\s+){0,3}?(?:start|begin|first|do|go|proceed|take|then|next|follow)\b|\b(?:start|begin)\s+with\s+step\b|\b(?:step|steps)\s+(?:1|one|#1)\b|\bfirst\s+step\b|\b(?:my|the|this)\s+plan\b|^\s*(?:\W*\s*)?plan\s*:`)

// nextHead is the first action line after line i, or len(lines).
func (d *doc) nextHead(i int) int {
	for j := i + 1; j < len(d.lines); j++ {
		if _, ok := d.headAt(j); ok {
			return j
		}
	}
	return len(d.lines)
}

func parseText(raw string) (Action, error) {
	p := newParser(raw, viaText)
	text := raw
	if strings.ContainsRune(text, '\r') {
		text = strings.ReplaceAll(text, "\r\n", "\n")
		text = strings.ReplaceAll(text, "\r", "\n")
		p.repair(repairCRLF)
	}
	// Reasoning comes off first, before the template's tokens (harmony's
	// <|end|> closes the analysis channel, not the reply): no action is
	// ever read from it, and a reply that ended inside it has no answer.
	// The answer is read even where there was no reasoning: harmony's
	// messages without an analysis channel are still messages.
	s := splitReasoning(text)
	if s.Source != "" {
		p.shape(shapeThinkBlock)
		if s.Cut {
			return Action{}, p.refuse(CodeReasoningCut, "your reply ended inside its reasoning, before any action, and nothing in the reasoning is acted on")
		}
	}
	text = s.Answer
	// Special tokens written with full-width bars, "▁" for spaces
	// (<｜tool▁sep｜>), are read in their ASCII spelling.
	text = asciiTokens(text)
	// Tokens of the chat template that the server let through are never
	// part of the action ("READ x.py<|eot_id|>").
	if t, ok := stripSpecialTokens(text); ok {
		text = t
		p.repair(repairStripSpecialTokens)
	}
	// An agent CLI's edit envelope, as the reply's own lines.
	if envelopeLineRE.MatchString(text) {
		a, err := p.envelope(text)
		if err != nil {
			return Action{}, err
		}
		return p.done(a), nil
	}
	a, err := p.parseDoc(textDoc(text), false)
	if e := p.notActedOn(text, a, err); e != nil {
		return Action{}, e
	}
	return a, err
}

// envelopeLineRE finds an edit envelope's opening line.
var envelopeLineRE = regexp.MustCompile(`(?m)^[ \t]*\*\*\* (?:Begin Patch|Add File:|Update File:)`)

// parseDoc finds the action in d's lines. nested is set when lines are the
// inside of a fence, so that a fence is unwrapped at most once.
func (p *parser) parseDoc(d *doc, nested bool) (Action, error) {
	lines := d.lines
	// Calls in any wrapper, unless an action line comes first.
	if !nested {
		if a, ok, err := p.structuredCalls(d); ok {
			return a, err
		}
	}
	// ReAct's "Action: READ" alone on its line would read as an action line
	// without a path: its input is on the next line.
	if a, ok, err := p.react(d); ok {
		return a, err
	}
	for i := range lines {
		if h, ok := d.headAt(i); ok {
			return p.action(d, i, h)
		}
	}
	if !nested {
		if inner, ok := wholeFence(lines); ok {
			p.shape(shapeWholeReplyFence)
			return p.parseDoc(newDoc(inner), true)
		}
		for _, b := range d.blocks {
			inner := lines[b.open+1 : min(b.close, len(lines))]
			if !opensWithAction(inner) {
				continue
			}
			chatter := false
			for j, l := range lines {
				if (j < b.open || j > b.close) && strings.TrimSpace(l) != "" {
					chatter = true
				}
			}
			if chatter {
				p.shape(shapeFencedAction, shapeChatter)
			} else {
				p.shape(shapeWholeReplyFence)
			}
			return p.parseDoc(newDoc(inner), true)
		}
	}
	// The formats of other protocols, tried only when no line opens with a
	// verb, so that a canonical draft is never read another way.
	if a, ok, err := p.fencedFormat(d); ok {
		return a, err
	}
	if a, ok := p.doneLastLine(d); ok {
		return a, nil
	}
	if a, ok, err := p.oddVerb(d); ok {
		return a, err
	}
	if a, ok := p.doneAlias(d); ok {
		return a, nil
	}
	return Action{}, p.fail("no action verb found")
}

// opensWithAction reports whether the first non-blank line of lines is an
// action line (a call in a fence is the call reader's).
func opensWithAction(lines []string) bool {
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		_, ok := matchHead(l)
		return ok
	}
	return false
}

// wholeFence unwraps a reply that is one fence from its first line to its
// last. It is tried before the blocks one by one because, by the usual rule,
// a whole-reply fence around a WRITE whose own fence is bare closes at that
// inner fence and would cut the action off from its body.
func wholeFence(lines []string) ([]string, bool) {
	first, last := 0, len(lines)-1
	for first <= last && strings.TrimSpace(lines[first]) == "" {
		first++
	}
	for last >= first && strings.TrimSpace(lines[last]) == "" {
		last--
	}
	if last <= first {
		return nil, false
	}
	f, ok := parseFence(lines[first])
	if !ok {
		return nil, false
	}
	g, ok := parseFence(lines[last])
	if !ok || g.ch != f.ch || g.n < f.n || g.info != "" {
		return nil, false
	}
	inner := lines[first+1 : last]
	if !opensWithAction(inner) {
		return nil, false
	}
	return inner, true
}

// action reads the action whose line is i, then notes chatter and any
// further action lines, which are ignored: one action a reply.
func (p *parser) action(d *doc, i int, h head) (Action, error) {
	p.verb = h.verb
	p.shape(h.shapes...)
	d.use(i, i)
	var (
		a    Action
		last int
		err  *Error
	)
	if h.call {
		a, last, err = p.callAction(d, i, h)
	} else {
		switch h.verb {
		case VerbRead:
			a, last, err = p.readAction(i, h)
		case VerbWrite:
			a, last, err = p.writeAction(d, i, h)
		case VerbPatch:
			a, last, err = p.patchAction(d, i, h)
		case VerbRun:
			a, last, err = p.runAction(i, h)
		case VerbSkill:
			a, last, err = p.skillAction(i, h)
		case VerbAsk, VerbDone:
			a, last, err = p.textAction(d, i, h)
		}
	}
	if err != nil {
		return Action{}, err
	}
	a.Verb = h.verb
	chatter := false
	for j, l := range d.lines {
		if d.used[j] || strings.TrimSpace(l) == "" {
			continue
		}
		if _, ok := d.headAt(j); ok && j > last {
			p.repair(repairExtraActionsIgnored)
			continue
		}
		chatter = true
	}
	if chatter {
		p.shape(shapeChatter)
	}
	return p.done(a), nil
}

var (
	linesRE      = regexp.MustCompile(`(?i)^\(?\s*lines?\s+(\d+)\s*(?:-|–|—|to|\.\.)\s*(\d+)\s*\)?`)
	tailWindowRE = regexp.MustCompile(`^:(\d+)(?:\s*(?:-|–|—|\.\.)\s*(\d+))?`)
)

func (p *parser) readAction(i int, h head) (Action, int, *Error) {
	path, tail, err := p.target(h)
	if err != nil {
		return Action{}, i, err
	}
	a := Action{}
	// The window may sit outside the brackets: READ `x.py`:120-220.
	if strings.HasPrefix(tail, ":") {
		if m := tailWindowRE.FindStringSubmatch(tail); m != nil {
			s, e, reason := window(m[1], m[2])
			if reason != "" {
				return Action{}, i, p.fail(reason)
			}
			a.Start, a.End, tail = s, e, tail[len(m[0]):]
		}
	}
	if a.Start == 0 {
		if rest, s, e, ok, reason := splitWindow(path); ok {
			if reason != "" {
				return Action{}, i, p.fail(reason)
			}
			path, a.Start, a.End = rest, s, e
		}
	}
	if a.Start == 0 {
		if m := linesRE.FindStringSubmatch(tail); m != nil {
			s, e, reason := window(m[1], m[2])
			if reason != "" {
				return Action{}, i, p.fail(reason)
			}
			a.Start, a.End, tail = s, e, tail[len(m[0]):]
			p.shape(shapeLinesWords)
		}
	}
	if a.Path, err = p.clean(path); err != nil {
		return Action{}, i, err
	}
	p.noteTail(tail)
	return a, i, nil
}

func (p *parser) writeAction(d *doc, i int, h head) (Action, int, *Error) {
	path, err := p.targetPath(h)
	if err != nil {
		return Action{}, i, err
	}
	a := Action{Path: path}
	body, last, err := p.bodyAfter(d, i)
	if err != nil {
		return Action{}, i, err
	}
	// "WRITE a.py" over a block whose first line is "# b.py" names two
	// files: which one was meant is not for the parser to guess.
	first, _, _ := strings.Cut(strings.TrimLeft(body, "\n"), "\n")
	if m := matchIf(strings.ContainsAny(first, "#/"), nameCommentRE, first); m != nil && m[1] != a.Path && a.Path != "" && len(p.cands) == 0 {
		return Action{}, i, p.refuse(codeAmbiguous, "the WRITE line names "+a.Path+" and the block's first line "+m[1])
	}
	a.Body = body
	return a, last, nil
}

// bodyAfter reads a WRITE's body: the first fenced block after line i and
// before the next action line, or else the plain lines that follow.
func (p *parser) bodyAfter(d *doc, i int) (string, int, *Error) {
	stop := d.nextHead(i)
	for j := i + 1; j < stop; j++ {
		b, ok := d.blockAt(j)
		if !ok {
			continue
		}
		body, dedented := d.content(b)
		p.repair(b.repairs(d.lines)...)
		if dedented {
			p.repair(repairDedentBody)
		}
		last := min(b.close, len(d.lines)-1)
		d.use(j, last)
		// A second block (often the test module) is not part of this file.
		for k := last + 1; k < stop; k++ {
			if x, ok := d.blockAt(k); ok {
				p.repair(repairExtraBlocksIgnored)
				d.use(k, min(x.close, len(d.lines)-1))
				break
			}
		}
		return fileBody(body), last, nil
	}
	// No fence: models that write plain code write the file after the line.
	// Only a canonical action line ends it, so "run_tests()" in the code does
	// not cut the file short.
	end := i + 1
	for end < len(d.lines) && !strictHead(d.lines[end]) {
		end++
	}
	body := trimBlankLines(d.lines[i+1 : end])
	if len(body) == 0 {
		return "", i, p.fail("WRITE without a fenced body: put the whole file in a fenced code block after the WRITE line")
	}
	p.repair(repairUnfencedBody)
	d.use(i+1, end-1)
	return fileBody(strings.Join(body, "\n")), end - 1, nil
}

// targetPath is the cleaned path a WRITE or PATCH line names (target,
// then clean), with what followed it noted.
func (p *parser) targetPath(h head) (string, *Error) {
	raw, tail, err := p.target(h)
	if err != nil {
		return "", err
	}
	path, err := p.clean(raw)
	if err != nil {
		return "", err
	}
	p.noteTail(tail)
	return path, nil
}

// target splits a READ/WRITE/PATCH line into the raw path and the words
// after it. A name in brackets is taken from inside them; whatever follows
// the name (a reason, a signature) is never used.
func (p *parser) target(h head) (path, tail string, err *Error) {
	rest := h.rest
	if rest == "" {
		return "", "", p.fail(h.verb + " without a path")
	}
	if name, after, ok := bracketed(rest); ok {
		p.shape(shapeBracketedName)
		p.repair(repairNameFromBrackets)
		return name, after, nil
	}
	word, after := rest, ""
	if k := strings.IndexAny(rest, " \t"); k >= 0 {
		word, after = rest[:k], rest[k+1:]
	}
	if strings.ContainsRune(word, '(') || word == "def" || word == "class" || word == "async" {
		return "", "", p.fail(h.verb + " names a signature (" + quote(rest) + "), not a file: give the file path, e.g. " + h.verb + " wordcount.py")
	}
	word, after, _ = p.candidates(word, after)
	return word, after, nil
}

var closers = map[byte]byte{'[': ']', '<': '>', '(': ')', '{': '}', '"': '"', '\'': '\'', '`': '`'}

// bracketed reads a name the model put in brackets or quotes at the start of
// s. The closer must end the name: "[id].py" is a file name, not "id".
func bracketed(s string) (name, after string, ok bool) {
	c, isOpen := closers[s[0]]
	if !isOpen {
		return "", "", false
	}
	open := s[:1]
	closeRun := string(c)
	if s[0] == '`' {
		k := 0
		for k < len(s) && s[k] == '`' {
			k++
		}
		open, closeRun = s[:k], s[:k]
	}
	j := strings.Index(s[len(open):], closeRun)
	if j < 0 {
		return "", "", false
	}
	name = s[len(open) : len(open)+j]
	after = s[len(open)+j+len(closeRun):]
	// A markdown link, [x.py](x.py): the name is the link text.
	if s[0] == '[' && strings.HasPrefix(after, "(") {
		if k := strings.IndexByte(after, ')'); k >= 0 {
			after = after[k+1:]
		}
	}
	if after != "" {
		r := after[0]
		ends := r == ' ' || r == '\t'
		if strings.ContainsRune(":.,;", rune(r)) {
			ends = len(after) == 1 || after[1] == ' ' || after[1] == '\t' || (r == ':' && '0' <= after[1] && after[1] <= '9')
		}
		if !ends {
			return "", "", false
		}
	}
	if strings.TrimSpace(name) == "" {
		return "", "", false
	}
	return name, after, true
}

// clean records a path through cleanPath, noting its repairs.
func (p *parser) clean(raw string) (string, *Error) {
	path, repairs, reason := cleanPath(raw)
	if reason != "" {
		return "", p.fail(reason)
	}
	p.repair(repairs...)
	return path, nil
}

// noteTail records words left after the target on the action line.
func (p *parser) noteTail(tail string) {
	if strings.Trim(tail, " \t.:,;!") != "" {
		p.shape(shapeReasonAfterVerb)
	}
}

// reasonWords start the explanation models add after an action's words.
var reasonWords = map[string]bool{
	"to": true, "because": true, "so": true, "since": true, "as": true,
	"for": true, "which": true, "then": true, "and": true,
	"-": true, "–": true, "—": true,
}

// words splits the words of a RUN or SKILL, cutting off a reason after
// them. A word that ends a sentence ("parse_args.") ends the list.
func (p *parser) words(rest string) []string {
	var out []string
	fields := strings.Fields(rest)
	for n, w := range fields {
		if len(out) > 0 && (reasonWords[strings.ToLower(w)] || strings.HasPrefix(w, "(")) {
			p.shape(shapeReasonAfterVerb)
			break
		}
		end := strings.TrimRight(w, ".,;!?")
		stop := end != w && end != ""
		if stop {
			w = end
		}
		w = strings.TrimRight(w, ":")
		if t := strings.Trim(w, "\"'`<>[]"); t != w && t != "" {
			w = t
			p.repair(repairNameFromBrackets)
		}
		if w != "" {
			out = append(out, w)
		}
		if stop {
			if n < len(fields)-1 {
				p.shape(shapeReasonAfterVerb)
			}
			break
		}
	}
	return out
}

func (p *parser) runAction(i int, h head) (Action, int, *Error) {
	return Action{Args: p.words(h.rest)}, i, nil
}

func (p *parser) skillAction(i int, h head) (Action, int, *Error) {
	w := p.words(h.rest)
	if len(w) == 0 {
		return Action{}, i, p.fail("SKILL without a name, e.g. SKILL locate parse_args")
	}
	if !isSkillName(w[0]) {
		return Action{}, i, p.fail("SKILL name " + quote(w[0]) + " is not a skill name, e.g. SKILL locate parse_args")
	}
	a := Action{Skill: w[0]}
	if len(w) > 1 {
		a.Args = w[1:]
	}
	return a, i, nil
}

// textAction reads an ASK's question or a DONE's summary: the rest of the
// line, else the lines after it, else (DONE as the last line) the text
// before it, which is the model's own account of what it did.
func (p *parser) textAction(d *doc, i int, h head) (Action, int, *Error) {
	text := strings.TrimSpace(strings.TrimLeft(h.rest, " \t:-–—.!"))
	last := i
	if text == "" {
		stop := d.nextHead(i)
		if t := strings.TrimSpace(strings.Join(d.lines[i+1:stop], "\n")); t != "" {
			text = t
			d.use(i+1, stop-1)
			last = stop - 1
		} else if h.verb == VerbDone && stop == len(d.lines) {
			if t := strings.TrimSpace(strings.Join(d.lines[:i], "\n")); t != "" {
				text = t
				d.use(0, i-1)
				p.shape(shapeDoneLastLine)
			}
		}
	}
	if h.verb == VerbAsk && text == "" {
		return Action{}, i, p.fail("ASK without a question, e.g. ASK Should the flag default to off?")
	}
	return Action{Text: text}, last, nil
}

var doneLastRE = regexp.MustCompile("^(.*?)[\\s*`]*\\bDONE\\b[*`]*[.!]?\\s*$")

// doneLastLine reads "Task complete. DONE": a reply whose last line ends
// with the verb, the summary before it.
func (p *parser) doneLastLine(d *doc) (Action, bool) {
	last := len(d.lines) - 1
	for last >= 0 && strings.TrimSpace(d.lines[last]) == "" {
		last--
	}
	if last < 0 || d.in[last] >= 0 {
		return Action{}, false
	}
	m := doneLastRE.FindStringSubmatch(d.lines[last])
	if m == nil || strings.HasSuffix(strings.ToUpper(strings.TrimSpace(m[1])), "NOT") {
		return Action{}, false
	}
	p.verb = VerbDone
	p.shape(shapeDoneLastLine)
	before := append(append([]string{}, d.lines[:last]...), m[1])
	return p.done(Action{Verb: VerbDone, Text: strings.TrimSpace(strings.Join(before, "\n"))}), true
}
