package draft

import (
	"regexp"
	"strconv"
	"strings"
)

// The edit envelope agent CLIs write (Codex's apply_patch, and the tools
// that copied it): "*** Begin Patch", then one section per file —
// "*** Add File: PATH" with the file's lines each after "+", "*** Update
// File: PATH" with hunks of " " context, "-" removed and "+" added lines
// under "@@" headers, "*** Delete File: PATH" — then "*** End Patch". An
// added file is a WRITE, an updated one a PATCH by hunks; an envelope that
// touches two files, deletes or moves one is refused, never half applied.

const envelopeBegin = "*** Begin Patch"

var envelopeFileRE = regexp.MustCompile(`^\*\*\* (Add|Update|Delete) File:\s*(.+?)\s*$`)

// envelope reads the edit envelope text holds.
func (p *parser) envelope(text string) (Action, *Error) {
	p.shape(ShapeUnifiedDiff)
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	type section struct {
		op, path string
		lines    []string
	}
	var secs []section
	in := false
	for _, l := range lines {
		t := strings.TrimRight(l, " \t")
		switch {
		case strings.TrimSpace(t) == envelopeBegin:
			in = true
			continue
		case strings.TrimSpace(t) == "*** End Patch":
			in = false
			continue
		case strings.HasPrefix(t, "*** Move to:"):
			return Action{}, p.fail("the patch moves a file, which this harness does not do: WRITE the new file, then PATCH the old one")
		}
		if m := envelopeFileRE.FindStringSubmatch(t); m != nil {
			in = true
			secs = append(secs, section{op: m[1], path: m[2]})
			continue
		}
		if in && len(secs) > 0 {
			secs[len(secs)-1].lines = append(secs[len(secs)-1].lines, t)
		}
	}
	if len(secs) == 0 {
		return Action{}, p.fail("the patch names no file (*** Add File: PATH or *** Update File: PATH)")
	}
	if len(secs) > 1 {
		var names []string
		for _, s := range secs {
			names = append(names, strings.ToLower(s.op)+" "+s.path)
		}
		p.verb = VerbPatch
		return Action{}, p.refuse(codeAmbiguous, "the patch touches "+strconv.Itoa(len(secs))+" files ("+strings.Join(names, ", ")+"), and one action changes one file")
	}
	s := secs[0]
	path, _, reason := cleanPath(s.path)
	if reason != "" {
		return Action{}, p.fail("the patch's file " + quote(s.path) + ": " + reason)
	}
	switch s.op {
	case "Delete":
		return Action{}, p.fail("the patch deletes " + s.path + ", which this harness does not do")
	case "Add":
		p.verb = VerbWrite
		var b strings.Builder
		for _, l := range s.lines {
			body, ok := strings.CutPrefix(l, "+")
			if !ok && strings.TrimSpace(l) != "" {
				return Action{}, p.fail("a line of the added file " + s.path + " does not start with +: " + quote(l))
			}
			b.WriteString(body + "\n")
		}
		return Action{Verb: VerbWrite, Path: path, Body: strings.TrimRight(b.String(), "\n") + "\n"}, nil
	}
	p.verb = VerbPatch
	var hunks []Hunk
	var cur *Hunk
	flush := func() {
		if cur != nil && (cur.Old != "" || cur.New != "") {
			hunks = append(hunks, *cur)
		}
		cur = nil
	}
	for _, l := range s.lines {
		if strings.HasPrefix(l, "@@") {
			flush()
			continue
		}
		if cur == nil {
			cur = &Hunk{}
		}
		cur.Text += l + "\n"
		switch {
		case strings.HasPrefix(l, "-"):
			cur.Old += l[1:] + "\n"
		case strings.HasPrefix(l, "+"):
			cur.New += l[1:] + "\n"
		case strings.HasPrefix(l, " "):
			cur.Old += l[1:] + "\n"
			cur.New += l[1:] + "\n"
		case l == "":
			cur.Old += "\n"
			cur.New += "\n"
		case strings.HasPrefix(l, "*** End of File"):
		default:
			return Action{}, p.fail("a line of the patch to " + s.path + " is neither context, removed nor added: " + quote(l))
		}
	}
	flush()
	if len(hunks) == 0 {
		return Action{}, p.fail("the patch to " + s.path + " changes nothing")
	}
	return Action{Verb: VerbPatch, Path: path, Hunks: hunks}, nil
}

// Tool blocks as some agent CLIs write them:
//
//	TOOL_NAME: read_file
//	BEGIN_ARG: path
//	src/app.py
//	END_ARG
var (
	toolNameLineRE = regexp.MustCompile(`(?m)^[ \t]*TOOL_NAME:[ \t]*([A-Za-z_][\w.-]*)[ \t]*$`)
	beginArgRE     = regexp.MustCompile(`^[ \t]*BEGIN_ARG:[ \t]*([A-Za-z_][\w.-]*)[ \t]*$`)
)

// argBlockCalls reads TOOL_NAME: / BEGIN_ARG: … END_ARG blocks.
func argBlockCalls(text string) []callCand {
	var out []callCand
	for _, m := range toolNameLineRE.FindAllStringSubmatchIndex(text, -1) {
		c := callCand{name: text[m[2]:m[3]], start: m[0], shapes: []string{shapeCallTag}}
		args := map[string]any{}
		lines := strings.Split(text[m[1]:], "\n")
		pos := m[1]
		i := 1 // lines[0] is the rest of the TOOL_NAME line
		pos += len(lines[0]) + 1
		for i < len(lines) {
			am := beginArgRE.FindStringSubmatch(lines[i])
			if am == nil {
				if strings.TrimSpace(lines[i]) == "" {
					pos += len(lines[i]) + 1
					i++
					continue
				}
				break
			}
			pos += len(lines[i]) + 1
			i++
			var val []string
			closed := false
			for i < len(lines) {
				pos += len(lines[i]) + 1
				if strings.TrimSpace(lines[i]) == "END_ARG" {
					i++
					closed = true
					break
				}
				val = append(val, lines[i])
				i++
			}
			if !closed {
				c.bad = "BEGIN_ARG: " + am[1] + " is not closed with END_ARG"
				break
			}
			args[am[1]] = unquoteLines(strings.Join(val, "\n"))
		}
		c.args, c.end = keyed(args), min(pos, len(text))
		out = append(out, c)
	}
	return out
}

// shellJoin is an argument vector as one command line, each word quoted
// the way a shell would need it.
func shellJoin(argv []string) string {
	var b strings.Builder
	for i, a := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		if a != "" && !strings.ContainsAny(a, " \t\n'\"\\$`|&;<>()*?[]{}!#~") {
			b.WriteString(a)
			continue
		}
		b.WriteString("'" + strings.ReplaceAll(a, "'", `'\''`) + "'")
	}
	return b.String()
}

// unquoteLines is a value written over lines between quotes ("…" or
// """…"""), without them; a value not wholly quoted is as it is.
func unquoteLines(v string) string {
	t := strings.TrimSpace(v)
	for _, q := range []string{`"""`, `'''`, `"`, `'`} {
		if len(t) >= 2*len(q) && strings.HasPrefix(t, q) && strings.HasSuffix(t, q) && strings.Contains(t, "\n") &&
			!strings.Contains(t[len(q):len(t)-len(q)], q) {
			return t[len(q) : len(t)-len(q)]
		}
	}
	return v
}
