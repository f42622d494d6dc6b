package draft

import (
	"fmt"
	"strings"
)

// Elided writes. Small models often write a file, or the new text of an
// edit, with a comment or an ellipsis where existing code stood ("# ...
// rest of the file unchanged ...", "// ... existing code ...", a bare
// "..."): written as it is, the file loses that code. MergeElided finds
// such markers in a new text given the old one, and fills each elided
// region back in from the old text where it can do so without guessing:
// the lines around the marker each occur exactly once in the old text.
// Otherwise the write is refused (schemas.CodeElidedWrite) before it touches the
// file. A literal "..." of real Python (a stub body, x[...]) is a marker
// only where it stands in for old lines: in a new file, or where the old
// text holds the same "..." between the same lines, it is code.

// markerKind is how a line of new text stands in for old lines.
type markerKind int

const (
	notMarker markerKind = iota
	// weakMarker is a bare "..." (Python's Ellipsis): a marker only where
	// it stands in for old lines.
	weakMarker
	// strongMarker is a comment that says code was left out.
	strongMarker
	// headMarker is a definition's line whose body is left out ("def
	// f(self): ...  # unchanged"): it stands for that definition.
	headMarker
)

// elisionWords are what a comment that stands in for code says, in lower
// case.
var elisionWords = []string{
	"unchanged", "omitted", "omit ", "elided", "snip", "same as before", "as before",
	"remains the same", "remain the same", "stays the same", "stay the same",
	"existing code", "existing implementation", "existing functions", "existing methods",
	"existing imports", "existing tests", "existing content", "existing logic",
	"rest of the file", "rest of file", "rest of the code", "rest of code", "rest of the class",
	"rest of the module", "rest of the function", "rest of the method", "rest of the implementation",
	"rest of the tests", "rest of the functions", "rest of the methods", "rest of the imports",
	"remaining code", "remaining functions", "remaining methods", "remaining tests",
	"previous code", "previous implementation", "previous content",
	"other functions", "other methods", "other code", "other tests", "other classes", "other imports",
	"other helpers", "no changes", "not changed", "no change", "for brevity", "keep the rest",
	"leave the rest", "truncated", "code continues", "continues below", "as it was", "as they were",
	"same as above", "same as original", "original code", "like before",
}

// splitComment splits a line into its code and the text of its trailing
// comment ("#", "//", "/* */", "<!-- -->", "--"), both trimmed; hasComment
// is false for a line with none. A "#" inside quotes is not a comment.
func splitComment(line string) (code, comment string, hasComment bool) {
	t := strings.TrimSpace(line)
	for _, open := range []string{"<!--", "/*"} {
		if strings.HasPrefix(t, open) {
			c := strings.TrimPrefix(t, open)
			c = strings.TrimSuffix(strings.TrimSpace(c), map[string]string{"<!--": "-->", "/*": "*/"}[open])
			return "", strings.TrimSpace(c), true
		}
	}
	var quote byte
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"' || c == '`':
			quote = c
		case c == '#':
			return strings.TrimSpace(t[:i]), strings.TrimSpace(t[i+1:]), true
		case c == '/' && i+1 < len(t) && t[i+1] == '/' && (i == 0 || t[i-1] == ' ' || t[i-1] == '\t'):
			return strings.TrimSpace(t[:i]), strings.TrimSpace(t[i+2:]), true
		case c == '-' && i == 0 && strings.HasPrefix(t, "-- "):
			return "", strings.TrimSpace(t[2:]), true
		}
	}
	return t, "", false
}

// saysElided reports whether a comment's text says code was left out.
func saysElided(comment string) bool {
	low := strings.ToLower(strings.TrimLeft(comment, "#/ \t"))
	bare := strings.Trim(low, " \t.…[](){}<>*-_=~'\"`:")
	if bare == "" {
		return strings.Contains(low, "...") || strings.Contains(low, "…")
	}
	if strings.HasPrefix(strings.TrimLeft(low, " [(<{*"), "...") || strings.HasPrefix(strings.TrimLeft(low, " [(<{*"), "…") ||
		strings.HasSuffix(strings.TrimRight(low, " ])>}*"), "...") || strings.HasSuffix(strings.TrimRight(low, " ])>}*"), "…") {
		return true
	}
	return hasAny(low+" ", elisionWords)
}

// markerOf says how a line of new text stands in for old lines.
func markerOf(line string) markerKind {
	code, comment, hasComment := splitComment(line)
	if hasComment && saysElided(comment) {
		switch {
		case code == "" || code == "..." || code == "…" || code == "pass":
			return strongMarker
		case definitionHead(code) != "":
			return headMarker
		}
		return notMarker
	}
	if !hasComment && (code == "..." || code == "…") {
		return weakMarker
	}
	return notMarker
}

// definitionHead is the head of a definition written with its body left
// out ("def f(self): ..." → "def f(self):"), or "".
func definitionHead(code string) string {
	head := strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(code, "..."), "…"), "pass"))
	if !strings.HasSuffix(head, ":") {
		return ""
	}
	for _, kw := range []string{"def ", "async def ", "class "} {
		if strings.HasPrefix(head, kw) {
			return head
		}
	}
	return ""
}

// MergeElided fills the regions a new text of a file elides back in from
// the file's old text. It returns the merged text and how many regions
// were filled (0: new holds no marker that stands for old lines, and is
// returned as it is), or an error that says which marker cannot be
// filled without guessing.
func MergeElided(old, new string) (string, int, error) {
	if old == "" {
		return new, 0, nil
	}
	n := strings.Split(new, "\n")
	kinds := make([]markerKind, len(n))
	any := false
	for i, l := range n {
		kinds[i] = markerOf(l)
		any = any || kinds[i] != notMarker
	}
	if !any {
		return new, 0, nil
	}
	o := strings.Split(old, "\n")
	// Where each line of the old text is, by its text without trailing
	// space: a line that occurs once is an anchor.
	at := map[string][]int{}
	for i, l := range o {
		k := strings.TrimRight(l, " \t\r")
		at[k] = append(at[k], i)
	}
	anchor := func(l string) (int, error) {
		pos := at[strings.TrimRight(l, " \t\r")]
		switch len(pos) {
		case 1:
			return pos[0], nil
		case 0:
			return 0, fmt.Errorf("the line next to it, %q, is not in the file as it is", strings.TrimSpace(l))
		}
		return 0, fmt.Errorf("the line next to it, %q, is in the file %d times", strings.TrimSpace(l), len(pos))
	}
	blank := func(i int) bool { return strings.TrimSpace(n[i]) == "" }

	var out []string
	cursor := 0   // next line of new to copy
	oldDone := -1 // last old line accounted for
	filled := 0
	for i := 0; i < len(n); i++ {
		switch kinds[i] {
		case notMarker:
			continue
		case headMarker:
			code, _, _ := splitComment(n[i])
			indent := n[i][:len(n[i])-len(strings.TrimLeft(n[i], " \t"))]
			h, err := anchor(indent + definitionHead(code))
			if err != nil {
				return "", 0, fmt.Errorf("line %d, %q, leaves out a definition's body: %v", i+1, strings.TrimSpace(n[i]), err)
			}
			if h <= oldDone {
				return "", 0, fmt.Errorf("line %d, %q, stands for lines that come before the ones above it", i+1, strings.TrimSpace(n[i]))
			}
			end := bodyEnd(o, h)
			out = append(out, n[cursor:i]...)
			out = append(out, o[h:end]...)
			cursor, oldDone = i+1, end-1
			filled++
			continue
		}
		// A run of markers and blank lines is one elided region, between
		// the nearest code lines around it.
		j := i
		for j+1 < len(n) && (blank(j+1) || kinds[j+1] == strongMarker || kinds[j+1] == weakMarker) {
			j++
		}
		strong := false
		for k := i; k <= j; k++ {
			strong = strong || kinds[k] == strongMarker
		}
		prev := i - 1
		for prev >= cursor && blank(prev) {
			prev--
		}
		next := j + 1 // the first code line after the run, or len(n)
		pa, na := oldDone, len(o)
		var err error
		if prev >= cursor {
			pa, err = anchor(n[prev])
			if err != nil {
				// The line before was changed: the block it ends, opened
				// by the nearest line no deeper than the marker, ends
				// where that block ends in the old text.
				if h, ok := blockHead(n, prev, indentOf(n[i])); ok {
					if ho, herr := anchor(n[h]); herr == nil {
						pa, err = bodyEnd(o, ho)-1, nil
					}
				}
			}
		}
		if err == nil && next < len(n) {
			if kinds[next] == headMarker {
				code, _, _ := splitComment(n[next])
				indent := n[next][:len(n[next])-len(strings.TrimLeft(n[next], " \t"))]
				na, err = anchor(indent + definitionHead(code))
			} else {
				na, err = anchor(n[next])
			}
		}
		if err == nil && (na <= pa || pa < oldDone) {
			err = fmt.Errorf("the lines around it are not in that order in the file")
		}
		if err != nil {
			if !strong {
				// A bare "..." whose place cannot be found is code.
				i = j
				continue
			}
			return "", 0, fmt.Errorf("line %d, %q, leaves out existing code, and where it stands cannot be told without guessing: %v", i+1, strings.TrimSpace(n[i]), err)
		}
		region := o[pa+1 : na]
		if !strong && !holdsCode(region) {
			// A "..." between lines that are next to each other in the
			// old text stands for nothing: it is code.
			i = j
			continue
		}
		out = append(out, n[cursor:prev+1]...)
		out = append(out, region...)
		cursor, oldDone = next, na-1
		if next < len(n) && kinds[next] != headMarker {
			oldDone = na
			out = append(out, n[next])
			cursor = next + 1
		}
		filled++
		i = j
	}
	if filled == 0 {
		return new, 0, nil
	}
	out = append(out, n[cursor:]...)
	merged := strings.Join(out, "\n")
	if strings.HasSuffix(new, "\n") && !strings.HasSuffix(merged, "\n") {
		merged += "\n"
	}
	if merged == new {
		// Every "..." stood where the old text holds the same.
		return new, 0, nil
	}
	return merged, filled, nil
}

// bodyEnd is the end (exclusive) of the definition whose head is line h:
// the lines after it indented deeper, blank lines inside it included.
func bodyEnd(o []string, h int) int {
	indent := len(o[h]) - len(strings.TrimLeft(o[h], " \t"))
	end := h + 1
	for k := h + 1; k < len(o); k++ {
		t := strings.TrimSpace(o[k])
		if t == "" {
			continue
		}
		if len(o[k])-len(strings.TrimLeft(o[k], " \t")) <= indent {
			break
		}
		end = k + 1
	}
	return end
}

// blockHead is the nearest line of n up to line to no deeper than
// indent, which opens the block that line to ends.
func blockHead(n []string, to, indent int) (int, bool) {
	for k := to; k >= 0; k-- {
		if strings.TrimSpace(n[k]) != "" && indentOf(n[k]) <= indent {
			return k, true
		}
	}
	return 0, false
}

func indentOf(l string) int { return len(l) - len(strings.TrimLeft(l, " \t")) }

func holdsCode(lines []string) bool {
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			return true
		}
	}
	return false
}
