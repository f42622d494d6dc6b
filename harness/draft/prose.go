package draft

import "strings"

// Calls described rather than written in a format: a bracketed line of
// prose ("[Calling read_file with path="greet.py"]", "[I will call
// read_file(path="greet.py")]"), and a tool block written one field a
// line ("read_file\npath: greet.py", "name: write_file\ncontent: "…"")
// inside a call tag, whose quoted values may run over lines.

// bracketProseCall reads a line that is wholly in brackets and names a
// tool of the lexicon followed by its arguments: a Python call, or
// "with"/"using"/":" and key=value or key: value pairs.
func bracketProseCall(line string) (callCand, bool) {
	t := strings.TrimRight(strings.TrimSpace(line), ".")
	if len(t) < 3 || t[0] != '[' || t[len(t)-1] != ']' {
		return callCand{}, false
	}
	inner := t[1 : len(t)-1]
	for i := 0; i < len(inner); i++ {
		if i > 0 && (isIdentByte(inner[i-1]) || inner[i-1] == '.') {
			continue
		}
		e := identEnd(inner, i)
		if e == i {
			continue
		}
		name := inner[i:e]
		// Only a name that is surely a tool: one with an underscore or
		// another case inside it, not an English word such as "open".
		if _, ok := lookupTool(name); !ok || !strings.ContainsAny(name, "_ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
			i = e
			continue
		}
		if strings.TrimSpace(inner[:i]) == "" {
			// [read_file(…)] is a list of calls, not prose.
			return callCand{}, false
		}
		rest := inner[e:]
		// A name in quotes or backticks (`read_file`): the quote that
		// closes it is the name's.
		if i > 0 && strings.IndexByte("`'\"", inner[i-1]) >= 0 && strings.HasPrefix(rest, inner[i-1:i]) {
			rest = rest[1:]
		}
		if strings.HasPrefix(rest, "(") {
			args, n, reason := parseCall(rest)
			if reason != "" || strings.TrimSpace(rest[n:]) != "" {
				return callCand{}, false
			}
			return callCand{name: name, args: args, shapes: []string{shapePythonCall}}, true
		}
		args, ok := prosePairs(rest)
		if !ok {
			return callCand{}, false
		}
		return callCand{name: name, args: keyed(args), shapes: []string{shapePythonCall}}, true
	}
	return callCand{}, false
}

// prosePairs reads "with path="x.py" and start=3", "using path: x.py",
// ": {…}" or nothing: the arguments a bracketed line gives a tool.
func prosePairs(s string) (map[string]any, bool) {
	t := strings.TrimSpace(s)
	for _, w := range []string{"with ", "using ", "on ", ":"} {
		if strings.HasPrefix(strings.ToLower(t), w) {
			t = strings.TrimSpace(t[len(w):])
			break
		}
	}
	args := map[string]any{}
	if strings.HasPrefix(t, "{") {
		obj, n, ok := relaxedObject(t)
		return obj, ok && strings.TrimSpace(t[n:]) == ""
	}
	for t != "" {
		k := identEnd(t, 0)
		if k == 0 || !knownArg(t[:k]) {
			return nil, false
		}
		key := t[:k]
		j := skipSpace(t, k)
		if j >= len(t) || (t[j] != '=' && t[j] != ':') {
			return nil, false
		}
		j = skipSpace(t, j+1)
		var v any
		if j < len(t) && (t[j] == '"' || t[j] == '\'' || t[j] == '`') {
			q := t[j]
			e := strings.IndexByte(t[j+1:], q)
			if e < 0 {
				return nil, false
			}
			v, j = t[j+1:j+1+e], j+2+e
		} else {
			e := j
			for e < len(t) && t[e] != ',' && t[e] != ' ' {
				e++
			}
			v, j = t[j:e], e
		}
		args[key] = v
		t = strings.TrimSpace(t[j:])
		t = strings.TrimSpace(strings.TrimPrefix(t, ","))
		t = strings.TrimSpace(strings.TrimPrefix(t, "and "))
	}
	return args, len(args) > 0
}

func isIdentByte(c byte) bool {
	return c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
}

// lineFieldCall reads a call written one field a line: the tool's name
// on the first line (or "name: NAME", "tool: NAME"), then "key: value"
// lines. A value that opens with a quote runs to the line that closes it,
// and one written "|" is the indented lines under it, so a file's lines
// are one value.
func lineFieldCall(s string) (callCand, bool) {
	// The first line names the tool: a name, alone or after its key,
	// looked at before the lines are split.
	t := strings.TrimSpace(s)
	first, _, ok := strings.Cut(t, "\n")
	if !ok {
		return callCand{}, false
	}
	name := strings.TrimSpace(first)
	if k, v, ok := strings.Cut(name, ":"); ok {
		if k = strings.TrimSpace(k); strings.EqualFold(k, "name") || strings.EqualFold(k, "tool") || strings.EqualFold(k, "function") {
			name = strings.Trim(strings.TrimSpace(v), "\"'`")
		}
	}
	if identEnd(name, 0) != len(name) && !strings.Contains(name, ".") || strings.ContainsAny(name, " \t") {
		return callCand{}, false
	}
	if _, ok := lookupTool(name); !ok {
		return callCand{}, false
	}
	lines := strings.Split(t, "\n")
	args := map[string]any{}
	for i := 1; i < len(lines); i++ {
		l := lines[i]
		if strings.TrimSpace(l) == "" {
			continue
		}
		k, v, ok := strings.Cut(l, ":")
		key := strings.TrimSpace(k)
		if !ok || identEnd(key, 0) != len(key) || !knownArg(key) {
			return callCand{}, false
		}
		v = strings.TrimPrefix(v, " ")
		if q := strings.TrimSpace(v); q == "|" || q == "|-" {
			// A block of lines, each indented under the key (YAML's
			// literal block): the lines dedented, ending in a newline
			// unless "|-" strips it.
			var block []string
			for i+1 < len(lines) && (strings.TrimSpace(lines[i+1]) == "" || lines[i+1][0] == ' ' || lines[i+1][0] == '\t') {
				i++
				block = append(block, lines[i])
			}
			block = trimBlankLines(block)
			if len(block) == 0 {
				return callCand{}, false
			}
			v = strings.Join(dedentLines(block), "\n")
			if q == "|" {
				v += "\n"
			}
		} else if q != "" && (q[0] == '"' || q[0] == '\'') {
			// A quoted value, maybe over lines: to the line that ends
			// with the same quote.
			quote := q[:1]
			if strings.HasPrefix(q, strings.Repeat(quote, 3)) {
				quote = q[:3]
			}
			text := q[len(quote):]
			for !strings.HasSuffix(strings.TrimRight(text, " \t"), quote) && i+1 < len(lines) {
				i++
				text += "\n" + lines[i]
			}
			text = strings.TrimRight(text, " \t")
			if !strings.HasSuffix(text, quote) {
				return callCand{}, false
			}
			v = strings.TrimSuffix(text, quote)
		}
		args[key] = v
	}
	return callCand{name: name, args: keyed(args), shapes: []string{shapeCallTag}}, len(args) > 0
}

// dedentLines takes off the indentation of the first line from every
// line that has it.
func dedentLines(lines []string) []string {
	first := lines[0]
	indent := first[:len(first)-len(strings.TrimLeft(first, " \t"))]
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimPrefix(l, indent)
	}
	return out
}
