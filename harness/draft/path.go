package draft

import (
	"path"
	"regexp"
	"strconv"
	"strings"
)

// cleanPath makes a path the model named fit to record. It only takes off
// what surrounds the name and normalises separators: it never applies
// path.Clean, because "a/../../b" cleaned to "../b", or "/x/../etc" cleaned
// to "/etc", would hide from the harness's scope check what was asked for.
func cleanPath(raw string) (string, []string, string) {
	for _, r := range raw {
		switch {
		case r == 0:
			return "", nil, "the path contains a NUL byte"
		case r == '\n' || r == '\r':
			return "", nil, "the path contains a line break"
		case r < 0x20 || r == 0x7f:
			return "", nil, "the path contains a control character"
		}
	}
	var repairs []string
	s := strings.TrimSpace(raw)
	for {
		if t := trimWrappers(s); t != s {
			repairs = append(repairs, repairNameFromBrackets)
			s = strings.TrimSpace(t)
			continue
		}
		if t := trimPathPunct(s); t != s {
			repairs = append(repairs, repairStripPathPunct)
			s = strings.TrimSpace(t)
			continue
		}
		break
	}
	if strings.ContainsRune(s, '\\') {
		s = strings.ReplaceAll(s, `\`, "/")
		repairs = append(repairs, repairPathSlashes)
	}
	for strings.HasPrefix(s, "./") {
		// ".//x" is "x": dropping only "./" would make it absolute.
		s = strings.TrimLeft(s[2:], "/")
		repairs = append(repairs, repairStripDotSlash)
	}
	if s == "" {
		return "", nil, "the path is empty"
	}
	return s, repairs, ""
}

var bracketPairs = map[byte]byte{'[': ']', '<': '>', '(': ')', '{': '}'}

// trimWrappers takes off one layer of quotes, backticks or a matched bracket
// pair. Brackets go only in pairs so that "pages/[id].py" stays whole.
func trimWrappers(s string) string {
	if len(s) >= 2 {
		if c, ok := bracketPairs[s[0]]; ok && s[len(s)-1] == c {
			return s[1 : len(s)-1]
		}
	}
	t := strings.TrimLeft(s, "\"'`")
	return strings.TrimRight(t, "\"'`")
}

// trimPathPunct takes off the sentence punctuation models put after a name
// ("READ x.py." or "WRITE x.py:"), keeping the dots of "..", "..." and "a/.".
func trimPathPunct(s string) string {
	s = strings.TrimRight(s, ":,;")
	if n := len(s); n >= 2 && s[n-1] == '.' && s[n-2] != '.' && s[n-2] != '/' {
		s = s[:n-1]
	}
	return s
}

// pathLike reports whether a word reads as a file name rather than an
// English word, which is what lets "read x.py" count as an action while
// "Read the file first" does not.
func pathLike(word string) bool {
	w := trimPathPunct(strings.TrimRight(word, ".!?"))
	if w == "" {
		return false
	}
	if strings.ContainsRune("[<\"'`", rune(w[0])) {
		return true
	}
	return strings.ContainsAny(w, "./\\")
}

var windowRE = regexp.MustCompile(`^(.+?):(\d+)(?:\s*(?:-|–|—|\.\.)\s*(\d+))?$`)

// splitWindow takes a READ window suffix ("x.py:120-220") off a path.
func splitWindow(s string) (path string, start, end int, ok bool, reason string) {
	m := matchIf(strings.IndexByte(s, ':') >= 0, windowRE, s)
	if m == nil {
		return s, 0, 0, false, ""
	}
	start, end, reason = window(m[2], m[3])
	return m[1], start, end, true, reason
}

// window checks a line window: 1-based, start before end.
func window(a, b string) (start, end int, reason string) {
	start, err := strconv.Atoi(a)
	if err != nil || start < 1 || start > 1e9 {
		return 0, 0, "the line window " + quote(a+"-"+b) + " does not start at a line number from 1"
	}
	if b == "" {
		return start, 0, ""
	}
	end, err = strconv.Atoi(b)
	if err != nil || end < start || end > 1e9 {
		return 0, 0, "the line window " + quote(a+"-"+b) + " does not end at or after its start"
	}
	return start, end, ""
}

func quote(s string) string {
	return strconv.Quote(s)
}

// agentRoots are the directories agent frameworks mount the repository at
// (OpenHands' /workspace, SWE-agent's and SWE-bench's /testbed, /repo):
// models trained on them name files there.
var agentRoots = []string{"/workspace/", "/testbed/", "/repo/"}

// UnderAgentRoot returns what may name a workspace file in a path under
// an agent root: the rest after the root, and (frameworks that mount the
// repository one level down, /workspace/NAME/) the rest after one more
// directory. ok is false for any other path.
func UnderAgentRoot(name string) (rests []string, ok bool) {
	// Cleaned first: /workspace/../x.py is /x.py, under no root.
	clean := path.Clean(name)
	for _, root := range agentRoots {
		rest, found := strings.CutPrefix(clean, root)
		if !found || rest == "" {
			continue
		}
		rests = append(rests, rest)
		if _, below, cut := strings.Cut(rest, "/"); cut && below != "" {
			rests = append(rests, below)
		}
		return rests, true
	}
	return nil, false
}
