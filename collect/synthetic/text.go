package synthetic

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/pyharness/pyharness/schemas"
)

// systemPrompt stands for the harness's system prompt: the same text at
// the head of every run, about as long (2 kB).
const systemPrompt = `You are a careful coding agent working in a Python repository. You act one step at a time: each reply is one action, and the harness answers with its result.

Answer with exactly one action per reply, on a line of its own, starting with the verb in capitals. Paths are relative to the repository root and use forward slashes. Anything else you write is ignored.

READ path — show a file. Long files are shown in windows; ask for a window with a line range.
    READ src/app.py
    READ src/app.py:120-220

WRITE path — create a file or replace it whole. Put the complete file in one fenced code block right after the line.
    WRITE wordcount.py
    ` + "```python" + `
    def count_words(text):
        ...
    ` + "```" + `

PATCH path — change one exact piece of a file you have read. The FIND: block is copied from the file as it is; the REPLACE: block is what goes in its place.

RUN tests — run the test suite and see the result. Run it after every change and before DONE.
    RUN tests

SKILL name args — run a helper procedure: locate finds where a name is defined, outline lists a file's definitions, scaffold-test starts a test module.
    SKILL locate parse_args
    SKILL outline src/app.py

ASK question — ask the person running you; only before any file has changed.

DONE summary — say the task is finished, in one line. The harness runs the tests again before it accepts it.

Rules: read a file before you patch it; keep the names the task asks for; write only the files the task names or new test modules; never delete a test; keep each reply to one action. When the harness refuses an action it says why in one line: fix that and go on. When the tests fail, read the failure, then patch the code, not the test.
`

// quantiles are sizes at the cumulative shares 0, .1, .25, .5, .75, .9, 1,
// as measured on the scripted benchmark (--repeat 4, 299 turns).
type quantiles [7]int

var qShares = [7]float64{0, 0.1, 0.25, 0.5, 0.75, 0.9, 1}

// draw samples a size, interpolating between the quantiles.
func (q quantiles) draw(rng *rand.Rand) int {
	u := rng.Float64()
	for i := 1; i < len(q); i++ {
		if u <= qShares[i] {
			f := (u - qShares[i-1]) / (qShares[i] - qShares[i-1])
			return q[i-1] + int(f*float64(q[i]-q[i-1]))
		}
	}
	return q[len(q)-1]
}

// The benchmark's sizes, in bytes.
var (
	sizeTask      = quantiles{723, 755, 770, 848, 1000, 1071, 1119}
	sizeWrite     = quantiles{116, 395, 602, 828, 957, 1137, 1600}
	sizePatch     = quantiles{96, 96, 119, 209, 286, 670, 733}
	sizeDone      = quantiles{37, 52, 70, 99, 135, 175, 198}
	sizeFile      = quantiles{300, 420, 531, 600, 655, 900, 1416} // a READ's tool result
	sizeTestRun   = quantiles{40, 45, 55, 61, 120, 400, 655}      // a RUN's tool result
	sizeRefusal   = quantiles{86, 90, 95, 110, 130, 150, 160}
	sizeTraceback = quantiles{1200, 1300, 1434, 1800, 2200, 2500, 2678}
)

var vocab = strings.Fields(`
add amount apply args base batch buffer cache call check child clean client
close code column config count current data date default delta dict done
duration entry env error event export field file filter first flag format
frame group handler header index input item items key kind label last line
lines list load lookup match message meta mode model name names node number
offset option output owner page parse part path pattern point prefix print
queue range rate reader record report request result retry root row rows
rule run scale schema score section seed size source split start state step
store suffix table target task test text time token total tree type unit
update user value values view window word words worker writer
`)

var keywords = []string{"def", "return", "if", "for", "in", "import", "from", "class", "with", "as", "not", "and", "or", "None", "True", "False", "self", "raise", "try", "except", "yield", "lambda", "elif", "else"}

// textGen makes the text of runs: code-like lines whose 5-gram shingles
// vary as real code's do.
type textGen struct{ b strings.Builder }

func (tg *textGen) word(rng *rand.Rand) string { return vocab[rng.IntN(len(vocab))] }

// ident is a snake_case name of one or two words.
func (tg *textGen) ident(rng *rand.Rand) string {
	if rng.IntN(3) == 0 {
		return tg.word(rng)
	}
	return tg.word(rng) + "_" + tg.word(rng)
}

func (tg *textGen) words(rng *rand.Rand, n int) string {
	tg.b.Reset()
	for i := range n {
		if i > 0 {
			tg.b.WriteByte(' ')
		}
		tg.b.WriteString(tg.word(rng))
	}
	return tg.b.String()
}

// code writes Python-like lines until about size bytes.
func (tg *textGen) code(rng *rand.Rand, size int) string {
	var b strings.Builder
	b.Grow(size + 80)
	indent := ""
	for b.Len() < size {
		switch rng.IntN(9) {
		case 0:
			fmt.Fprintf(&b, "def %s(%s, %s):\n", tg.ident(rng), tg.ident(rng), tg.word(rng))
			indent = "    "
		case 1:
			fmt.Fprintf(&b, "%s%s = %s(%s, %d)\n", indent, tg.ident(rng), tg.ident(rng), tg.word(rng), rng.IntN(100))
		case 2:
			fmt.Fprintf(&b, "%sreturn %s.%s(%s)\n", indent, tg.word(rng), tg.ident(rng), tg.word(rng))
		case 3:
			fmt.Fprintf(&b, "%sif %s is None:\n%s    %s = %s\n", indent, tg.ident(rng), indent, tg.word(rng), keywords[rng.IntN(len(keywords))])
		case 4:
			fmt.Fprintf(&b, "%sfor %s in %s.%s():\n", indent, tg.word(rng), tg.ident(rng), tg.word(rng))
		case 5:
			fmt.Fprintf(&b, "%sraise ValueError(\"%s %s %s\")\n", indent, tg.word(rng), tg.word(rng), tg.word(rng))
		case 6:
			fmt.Fprintf(&b, "import %s\n", tg.word(rng))
			indent = ""
		case 7:
			fmt.Fprintf(&b, "%s# %s %s %s %s\n", indent, tg.word(rng), tg.word(rng), tg.word(rng), tg.word(rng))
		default:
			fmt.Fprintf(&b, "%s%s[%q] = %s.%s\n", indent, tg.word(rng), tg.word(rng), tg.ident(rng), tg.word(rng))
		}
	}
	return b.String()
}

// prose writes sentences until about size bytes.
func (tg *textGen) prose(rng *rand.Rand, size int) string {
	var b strings.Builder
	for b.Len() < size {
		n := 6 + rng.IntN(10)
		for i := range n {
			if i > 0 {
				b.WriteByte(' ')
			}
			if rng.IntN(8) == 0 {
				fmt.Fprintf(&b, "`%s`", tg.ident(rng))
			} else {
				b.WriteString(tg.word(rng))
			}
		}
		b.WriteString(". ")
	}
	return b.String()
}

func (tg *textGen) task(rng *rand.Rand) string {
	return "Change `" + tg.ident(rng) + "` so that " + tg.prose(rng, sizeTask.draw(rng)) + "\n"
}

// draftText is a draft and the path it names; body is the code it writes.
type draftText struct {
	content, path, body string
}

// feedbackText is what the harness answered a draft with.
type feedbackText struct {
	text    string
	kind    schemas.Kind
	outcome schemas.Outcome
}

// step makes the draft of a step with verb on path, and the harness's
// answer, with the benchmark's outcome mix for that verb.
func (tg *textGen) step(rng *rand.Rand, verb, path string) (draftText, feedbackText) {
	applied := schemas.Outcome{Status: schemas.StatusApplied}
	ok := func(text string) feedbackText {
		return feedbackText{text: text, kind: schemas.KindToolResult, outcome: applied}
	}
	refuse := func(code schemas.Code, size int) feedbackText {
		msg := tg.prose(rng, size)
		return feedbackText{text: fmt.Sprintf("REFUSED (%s): %s", code, msg), kind: schemas.KindRefusalOrNudge,
			outcome: schemas.Outcome{Status: schemas.StatusRefused, Code: code, Message: msg}}
	}
	switch verb {
	case "READ":
		d := draftText{content: "READ " + path, path: path}
		if rng.IntN(6) == 0 {
			d.content = tg.prose(rng, 20+rng.IntN(40)) + "\n" + d.content
		}
		if rng.IntN(100) == 0 {
			return d, refuse(schemas.CodeRepeatRead, sizeRefusal.draw(rng))
		}
		body := tg.code(rng, sizeFile.draw(rng))
		return d, ok(fmt.Sprintf("%s (lines 1-%d of %d):\n```python\n%s```\n", path, strings.Count(body, "\n"), strings.Count(body, "\n"), body))
	case "WRITE":
		body := tg.code(rng, sizeWrite.draw(rng))
		d := draftText{content: "WRITE " + path + "\n```python\n" + body + "```", path: path, body: body}
		switch u := rng.IntN(100); {
		case u < 4:
			return d, refuse(schemas.CodeNameMissing, sizeRefusal.draw(rng))
		case u < 7:
			return d, refuse(schemas.CodeWrongFile, sizeRefusal.draw(rng))
		case u < 15:
			f := refuse(schemas.CodeSuiteBroken, 0)
			f.text = "The suite no longer runs after this write:\n" + tg.code(rng, sizeTraceback.draw(rng))
			f.outcome = schemas.Outcome{Status: schemas.StatusApplied, Code: "suite-broken", FilesChanged: []string{path}}
			return d, f
		}
		f := ok(fmt.Sprintf("Wrote %s (+%d lines)", path, strings.Count(body, "\n")))
		f.outcome.FilesChanged = []string{path}
		return d, f
	case "PATCH":
		size := sizePatch.draw(rng)
		find := tg.code(rng, size/3)
		repl := tg.code(rng, size/2)
		d := draftText{content: "PATCH " + path + "\nFIND:\n```\n" + find + "```\nREPLACE:\n```\n" + repl + "```", path: path, body: repl}
		if rng.IntN(100) < 43 {
			if rng.IntN(5) == 0 {
				return d, refuse(schemas.CodeRepeatPatch, sizeRefusal.draw(rng))
			}
			return d, refuse(schemas.CodeFindNotFound, sizeRefusal.draw(rng))
		}
		f := ok(fmt.Sprintf("Patched %s (+%d -%d lines)", path, strings.Count(repl, "\n"), strings.Count(find, "\n")))
		f.outcome.FilesChanged = []string{path}
		return d, f
	case "RUN":
		n := 1 + rng.IntN(9)
		out := tg.code(rng, sizeTestRun.draw(rng))
		return draftText{content: "RUN tests"}, ok(fmt.Sprintf("%s\nRan %d tests in 0.0%02ds\n\nOK\n", out, n, rng.IntN(100)))
	}
	d := draftText{content: "DONE " + tg.prose(rng, sizeDone.draw(rng))}
	return d, refuse(schemas.CodeRunTestsFirst, sizeRefusal.draw(rng))
}

// perturb replaces about one word in sixty with another: the wording of a
// near-duplicate, whose token 5-grams keep a Jaccard similarity near 0.85.
func (tg *textGen) perturb(rng *rand.Rand, s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		if !isWord(s[i]) {
			b.WriteByte(s[i])
			i++
			continue
		}
		j := i + 1
		for j < len(s) && isWord(s[j]) {
			j++
		}
		if rng.IntN(60) == 0 {
			b.WriteString(tg.word(rng))
		} else {
			b.WriteString(s[i:j])
		}
		i = j
	}
	return b.String()
}

func isWord(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}
