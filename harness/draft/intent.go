package draft

import (
	"strconv"
	"strings"

	"github.com/pyharness/pyharness/schemas"
)

// Replies that are never acted on, though an action can be read from their
// words: a plan that announces what the model will do ("3. Run the test
// suite to verify the change. I'll start with step 1."), a description or
// example of the protocol ("a read would look like
// `[read_file(path=…)]`"), a question back to the user, and a reply that
// says it will wait for a go-ahead. What a reply says about itself is
// judged after it was read, so that a real action that comes with a short
// preface ("I'll look at the module first.\nREAD greet.py") is taken: an
// action stated on its own line, in a fence or a call of its own, outside
// the plan's steps and not introduced as an example, anchors the reply.

// Phrases, matched in a line in lower case with its apostrophes made
// straight, that mark what a reply says about itself.
var (
	// examplePhrases introduce an example or describe the protocol.
	examplePhrases = []string{
		"for example", "for instance", "e.g.", "would look like", "will look like",
		"might look like", "could look like", "looks like this", "look like this",
		"an example", "example of", "example:", "the format is", "the format would",
		"the syntax is", "the syntax would", "would be written", "is written as",
		"i would write", "i would send", "i would use", "i could write", "i can use",
		"i'd write", "i'd send", "i'd use", "i'd call", "i would call",
		"you can use", "you would write", "to call a tool", "to use a tool", "to read a file, i",
		"available actions", "the actions i can",
	}
	// waitPhrases say the reply waits for the user before acting.
	waitPhrases = []string{
		"tell me when", "let me know when", "let me know if you want me to",
		"let me know if i should", "let me know if you'd like me to",
		"shall i proceed", "shall i start", "shall i begin", "shall i go ahead", "shall i continue",
		"should i proceed", "should i start", "should i begin", "should i go ahead", "should i continue",
		"do you want me to", "would you like me to", "want me to proceed", "want me to go ahead",
		"i'll wait", "i will wait", "waiting for your", "wait for your", "awaiting your",
		"ready when you are", "once you confirm", "once you approve", "once you give",
		"before i proceed", "before i start", "before i begin", "go-ahead", "go ahead and i",
		"when you're ready", "when you are ready", "say the word",
	}
	// sequenceWords open the steps of a plan written as sentences.
	sequenceWords = []string{"first", "then", "next", "after that", "afterwards", "finally", "lastly", "once that", "second", "third"}
	// futurePhrases say what the writer is going to do.
	futurePhrases = []string{"i'll", "i will", "i'm going to", "i am going to", "let me ", "let's ", "we'll ", "we will ", "i plan to", "i need to", "my plan", "the plan", "this plan", "plan:", "here's what i", "here is what i", "steps:"}
)

// notActedOn says why a reply that was read (a, err) is not to be acted
// on, or nil. text is the reply's answer, its reasoning taken off.
func (p *parser) notActedOn(text string, a Action, err error) *Error {
	if err != nil {
		// Only an unreadable reply, or one refused as ambiguous, is given
		// a better reason: a shell command or a cut reasoning stands.
		if e, ok := err.(*Error); !ok || (e.Code != "" && e.Code != codeAmbiguous) {
			return nil
		}
	}
	if err == nil && (a.Verb == VerbAsk || a.Verb == VerbDone) {
		// An ASK is the protocol's own question; a DONE with a polite
		// offer after it is finished.
		return nil
	}
	r := readIntent(textDoc(text))
	placeholder := err == nil && placeholderPath(a.Path)
	refuse := func(code schemas.Code, reason string) *Error {
		if err == nil {
			p.verb = a.Verb
		}
		return p.refuse(code, reason)
	}
	send := "Send the one action you are taking now, alone on its own line, e.g. " + exampleAction(a, err)
	switch {
	case placeholder || (r.example && !r.anchored):
		return refuse(schemas.CodeProtocolExample, "it describes the protocol or shows an example of an action (the words it can be read from are an example, not a request), so nothing in it is acted on. "+send)
	case r.wait && !r.anchored:
		return refuse(schemas.CodeWaiting, "it says you will wait for a go-ahead, but nobody gives one: the task goes on only with an action. "+send)
	case r.plan && !r.anchored:
		steps := ""
		if len(r.steps) > 0 {
			steps = " of " + strconv.Itoa(len(r.steps)) + " steps (" + strings.Join(r.steps, "; ") + ")"
		}
		return refuse(schemas.CodePlan, "it is a plan"+steps+" that says what you will do, not the one action you are taking now. "+send)
	case r.question && !r.anchored:
		return refuse(schemas.CodeQuestion, "it asks a question in prose, and nobody reads questions in a reply: decide for yourself and act, or send ASK and the question alone if only the person watching can answer. "+send)
	}
	return nil
}

// exampleAction is the action to suggest: the one read, in this
// protocol's form, or a READ.
func exampleAction(a Action, err error) string {
	if err == nil && !placeholderPath(a.Path) {
		return Canonical(a)
	}
	return "READ src/app.py"
}

// intentReading is what a reply says about itself.
type intentReading struct {
	plan, example, wait, question bool
	// anchored: an action stands on its own outside the plan's steps and
	// not introduced as an example: a line that opens with a verb, a fence,
	// a call or a tag.
	anchored bool
	steps    []string
}

func readIntent(d *doc) intentReading {
	var r intentReading
	future, sequence, inline := false, 0, 0
	lastProse := ""
	prevExample := false
	for j, l := range d.lines {
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		if d.in[j] >= 0 {
			// A fence anchors the reply unless the line before it
			// introduced it as an example.
			if b, open := d.blockAt(j); open && b.open == j && !prevExample && !emptyBlock(d, b) {
				r.anchored = true
			}
			continue
		}
		low := strings.ToLower(strings.ReplaceAll(strings.ReplaceAll(t, "’", "'"), "‘", "'"))
		isExample := hasAny(low, examplePhrases)
		r.example = r.example || isExample
		r.wait = r.wait || hasAny(low, waitPhrases)
		if hasAny(low, futurePhrases) || futureRE.MatchString(t) {
			future = true
		}
		sequence += countOpeners(low)
		inline = max(inline, inlineSteps(t))
		marker := findIf(mayOpenList(t), listRE, t)
		if marker == "" && strings.HasPrefix(low, "step ") && len(low) > 5 && '0' <= low[5] && low[5] <= '9' {
			// "Step 1: READ x.py" is a step of a plan as much as "1. …".
			marker = t[:5+strings.IndexAny(t[5:]+":", ":.)")+1]
		}
		list := marker != "" && len(l)-len(strings.TrimLeft(l, " \t")) < 4
		if list {
			r.steps = append(r.steps, strings.TrimSpace(strings.TrimLeft(t[min(len(marker), len(t)):], ":.) ")))
		}
		if !list && !prevExample && !isExample && stands(d, j, t) {
			r.anchored = true
		}
		// A line that introduces what follows as an example, or as what
		// it would do on a go-ahead, keeps what follows from anchoring.
		prevExample = (isExample || hasAny(low, waitPhrases)) && (strings.HasSuffix(t, ":") || strings.HasSuffix(t, "…") || strings.HasSuffix(t, "..."))
		lastProse = t
	}
	r.plan = future && (len(r.steps) >= 2 || inline >= 2 || sequence >= 2)
	if len(r.steps) < 2 {
		r.steps = nil
	}
	r.question = strings.HasSuffix(lastProse, "?")
	return r
}

// stands reports whether line j (text t, outside fences) states an action
// of its own: it opens with a verb, or with a call, a tag or an object.
func stands(d *doc, j int, t string) bool {
	if _, ok := d.headAt(j); ok {
		return true
	}
	switch t[0] {
	case '<', '{', '[':
		return true
	}
	if name := pyCallName(t); name != "" {
		_, known := lookupTool(name)
		return known
	}
	return false
}

// emptyBlock reports whether a fenced block holds nothing.
func emptyBlock(d *doc, b block) bool {
	for j := b.open + 1; j < min(b.close, len(d.lines)); j++ {
		if strings.TrimSpace(d.lines[j]) != "" {
			return false
		}
	}
	return true
}

func hasAny(s string, phrases []string) bool {
	for _, p := range phrases {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

// countOpeners counts the sentences of a line that open with a word of a
// sequence ("First, …", "Then …", "Finally, …").
func countOpeners(low string) int {
	n := 0
	for _, s := range strings.FieldsFunc(low, func(r rune) bool { return r == '.' || r == '!' || r == ';' }) {
		s = strings.TrimLeft(s, " \t-*•0123456789)(")
		for _, w := range sequenceWords {
			if strings.HasPrefix(s, w) && (len(s) == len(w) || s[len(w)] == ' ' || s[len(w)] == ',') {
				n++
				break
			}
		}
	}
	return n
}

// inlineSteps counts the numbered steps written in one line ("1. Add …
// 2. Add the test … 3. Run …"): the longest run 1, 2, 3, … of numbers
// followed by "." or ")" and a space.
func inlineSteps(t string) int {
	next := 1
	for i := 0; i < len(t); i++ {
		want := strconv.Itoa(next)
		if !strings.HasPrefix(t[i:], want) || (i > 0 && t[i-1] != ' ' && t[i-1] != '(') {
			continue
		}
		k := i + len(want)
		if k+1 < len(t) && (t[k] == '.' || t[k] == ')') && t[k+1] == ' ' {
			next++
			i = k
		}
	}
	return next - 1
}

// placeholderPath reports whether a path is a placeholder of an example
// rather than a file: "…", "path/to/file.py", "<path>", "{file}".
func placeholderPath(p string) bool {
	if p == "" {
		return false
	}
	low := strings.ToLower(p)
	if strings.Contains(p, "…") || strings.Contains(p, "...") || strings.HasPrefix(low, "path/to/") || strings.Contains(low, "/path/to/") {
		return true
	}
	if strings.ContainsAny(p, "<>{}") {
		return true
	}
	switch strings.TrimSuffix(low, ".py") {
	case "path", "file", "filename", "file_name", "your_file", "yourfile", "some_file", "somefile", "<path>", "path_to_file":
		return true
	}
	return false
}
