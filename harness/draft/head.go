package draft

import (
	"regexp"
	"strings"
	"unicode"
)

// verbWords maps the words a model may open an action line with to verbs:
// the verbs and the native protocol's tool names, because models that were
// trained on tool calling write them as text ("read_file x.py"). The rest of
// the lexicon (view, open, create, ...) is read only as a call: as words
// they open English sentences.
var verbWords = map[string]string{
	"read_file": VerbRead, "read": VerbRead,
	"write_file": VerbWrite, "write": VerbWrite,
	"patch_file": VerbPatch, "patch": VerbPatch, "edit_file": VerbPatch,
	"run_tests": VerbRun, "run": VerbRun,
	"skill": VerbSkill,
	"ask":   VerbAsk,
	"done":  VerbDone,
}

// head is an action line: its verb, how it was decorated, and the text after
// the verb.
type head struct {
	verb   string
	word   string // the verb as written
	shapes []string
	rest   string // after the verb and its separator, trimmed
	colon  bool   // "Read: x.py"
	call   bool   // "read_file(...)": rest starts at "("
}

var (
	listRE  = regexp.MustCompile(`^(?:[-*+•]|\d{1,3}[.)]|\(\d{1,3}\))\s+`)
	labelRE = regexp.MustCompile(`(?i)^(?:next\s+)?(?:action|command|tool|response|answer|step\s*\d*)\s*(\*\*)?\s*:\s*(\*\*)?\s*`)
)

// findIf is re.FindString(s), or "" without looking when may, a
// condition every match needs, is false.
func findIf(may bool, re *regexp.Regexp, s string) string {
	if !may {
		return ""
	}
	return re.FindString(s)
}

// headingMark is the heading's marks and the spaces after them that s
// opens with: one to six "#", then at least one space.
func headingMark(s string) string {
	n := len(s) - len(strings.TrimLeft(s, "#"))
	if n == 0 || n > 6 {
		return ""
	}
	k := n
	for k < len(s) && strings.IndexByte(" \t\n\r\f", s[k]) >= 0 {
		k++
	}
	if k == n {
		return ""
	}
	return s[:k]
}

// mayOpenList reports whether s's first byte can open listRE's marker:
// "-", "*", "+", a digit, "(" or the first byte of "•".
func mayOpenList(s string) bool {
	if s == "" {
		return false
	}
	switch c := s[0]; {
	case c == '-' || c == '*' || c == '+' || c == '(' || ('0' <= c && c <= '9'):
		return true
	case c == "•"[0]:
		return true
	}
	return false
}

// mayOpenLabel reports whether s can be matched by labelRE: it holds the
// label's colon, and its first byte is the first letter of one of the
// label's words in either case, or any byte outside ASCII, since (?i)
// folds letters beyond it (long s, "ſ", is an s).
func mayOpenLabel(s string) bool {
	if s == "" || strings.IndexByte(s, ':') < 0 {
		return false
	}
	switch s[0] | 0x20 {
	case 'n', 'a', 'c', 't', 'r', 's':
		return true
	}
	return s[0] >= 0x80
}

// matchHead reads line as an action line. Only the beginning of a line can
// hold the verb: a verb inside a sentence ("then I will READ x.py") is
// chatter, and reading it would turn plans into actions.
func matchHead(line string) (head, bool) {
	var h head
	s := strings.TrimSpace(line)
	bold := false
	for range 8 {
		// Each expression is tried only when the line's first byte can
		// open a match of it (mayOpen*): most lines open with none, and
		// three failed matches cost more than the rest of the line.
		if m := headingMark(s); m != "" {
			s, h.shapes = s[len(m):], append(h.shapes, shapeHeading)
		} else if strings.HasPrefix(s, ">") {
			s, h.shapes = strings.TrimSpace(s[1:]), append(h.shapes, shapeBlockquote)
		} else if m := findIf(mayOpenList(s), listRE, s); m != "" {
			s, h.shapes = s[len(m):], append(h.shapes, shapeListMarker)
		} else if strings.HasPrefix(s, "**") {
			s, bold = strings.TrimSpace(s[2:]), true
		} else if m := matchIf(mayOpenLabel(s), labelRE, s); m != nil {
			s = s[len(m[0]):]
			if m[1] != "" || m[2] != "" {
				bold = true
			} else if !bold {
				h.shapes = append(h.shapes, shapeActionLabel)
			}
		} else {
			break
		}
	}
	if t, ok := unwrapInlineCode(s); ok {
		s, h.shapes = t, append(h.shapes, shapeInlineCode)
	}
	if bold {
		h.shapes = append(h.shapes, shapeBoldLabel)
	}

	i := 0
	for i < len(s) && (s[i] == '_' || ('a' <= s[i] && s[i] <= 'z') || ('A' <= s[i] && s[i] <= 'Z')) {
		i++
	}
	h.word = s[:i]
	verb, ok := verbWords[strings.ToLower(h.word)]
	if !ok {
		return head{}, false
	}
	h.verb = verb
	after := s[i:]
	if bold {
		after = strings.TrimPrefix(after, "**")
	}
	switch {
	case after == "":
	case after[0] == '(':
		h.call = true
	case after[0] == ':':
		h.colon = true
		after = strings.TrimPrefix(strings.TrimSpace(after[1:]), "**")
	case after[0] == ' ' || after[0] == '\t':
	case verb == VerbDone && (after[0] == '.' || after[0] == '!'):
	default:
		return head{}, false // "Reading", "READ-ONLY", "done_reading"
	}
	if h.call {
		h.rest = after
		h.shapes = append(h.shapes, shapeCallSyntax)
		return h, true
	}
	h.rest = strings.TrimSpace(after)
	if bold {
		h.rest = strings.TrimSpace(strings.TrimSuffix(h.rest, "**"))
	}
	canonical := h.word == verb
	switch {
	case canonical:
	case strings.ToLower(h.word) != strings.ToLower(verb):
		h.shapes = append(h.shapes, shapeVerbAlias)
	default:
		h.shapes = append(h.shapes, shapeLowercase)
	}
	if h.colon {
		h.shapes = append(h.shapes, shapeVerbColon)
	}
	if !canonical && !h.colon && !plausible(h) {
		return head{}, false
	}
	return h, true
}

// plausible decides whether a line that opens with a verb in lower or title
// case is an action or an English sentence. Capitals or a colon ("Read:")
// state intent; without them the words after the verb must look like what
// that verb takes.
func plausible(h head) bool {
	words := strings.Fields(h.rest)
	switch h.verb {
	case VerbRead, VerbWrite, VerbPatch:
		return len(words) > 0 && pathLike(words[0])
	case VerbRun:
		if h.word == "run_tests" || len(words) == 0 {
			return true
		}
		for _, w := range words {
			w = strings.ToLower(strings.Trim(w, ".,;:!`"))
			switch w {
			case "the", "all", "full", "unit":
				continue
			case "tests", "test", "suite", "pytest", "unittest":
				return true
			}
			return false
		}
		return false
	case VerbSkill:
		return h.word == "skill" && len(words) > 0 && isSkillName(words[0])
	case VerbAsk:
		return strings.HasSuffix(h.rest, "?")
	case VerbDone:
		r := strings.TrimLeft(h.rest, " .!")
		return r == "" || strings.HasPrefix(r, "-") || strings.HasPrefix(r, "—") || strings.HasPrefix(r, "–")
	}
	return false
}

// unwrapInlineCode reads "`READ x.py`" and "`READ` x.py" as the action they
// quote. A run of backticks of any length must be closed by the same run.
func unwrapInlineCode(s string) (string, bool) {
	k := 0
	for k < len(s) && s[k] == '`' {
		k++
	}
	if k == 0 {
		return s, false
	}
	run := s[:k]
	j := strings.Index(s[k:], run)
	if j < 0 {
		return s, false
	}
	inner := strings.TrimSpace(s[k : k+j])
	w := inner
	if i := strings.IndexFunc(inner, func(r rune) bool { return !(r == '_' || unicode.IsLetter(r)) }); i >= 0 {
		w = inner[:i]
	}
	if _, ok := verbWords[strings.ToLower(w)]; !ok || w == "" {
		return s, false
	}
	// A space keeps what follows the closing run from gluing onto the
	// quoted path ("`READ x.py`s" is x.py, not x.pys).
	return inner + " " + s[k+j+k:], true
}

// strictHead is a canonical action line: the verb in capitals at the start
// (after list markers or bold). It ends an unfenced body, where a looser
// test would cut a Python file at "run_tests()".
func strictHead(line string) bool {
	h, ok := matchHead(line)
	return ok && h.word == h.verb && !h.call
}
