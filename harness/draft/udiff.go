package draft

import (
	"strconv"
	"strings"
)

// A unified diff, as `diff -u` and `git diff` write it and as Aider's udiff
// edit format asks for it (hunk headers without line numbers, "@@ ... @@").
// The parser only splits it into hunks; the harness places each hunk by its
// context lines, as patch does, and ignores line numbers, which models get
// wrong.

// diffLike reports whether lines hold a unified diff: file headers and a
// hunk, or hunks alone in a block tagged diff.
func diffLike(lines []string, tagged bool) bool {
	minus, plus, hunk := false, false, false
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "--- "):
			minus = true
		case strings.HasPrefix(l, "+++ "):
			plus = true
		case isHunkHead(l):
			hunk = true
		}
	}
	return (minus && plus && hunk) || (tagged && (hunk || (minus && plus)))
}

func diffTag(info string) bool {
	switch strings.ToLower(strings.Fields(info + " x")[0]) {
	case "diff", "patch", "udiff":
		return true
	}
	return false
}

// diffPath reads the file name of a ---/+++ header: "a/x.py" is x.py,
// a tab and a time stamp after the name are dropped.
func diffPath(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i]
	}
	if s != "/dev/null" && (strings.HasPrefix(s, "a/") || strings.HasPrefix(s, "b/")) {
		s = s[2:]
	}
	return s
}

// parsedDiff is what a diff says: the file it changes, whether it creates
// it, and its hunks.
type parsedDiff struct {
	path  string
	isNew bool
	hunks []Hunk
}

// parseDiff splits the lines of one unified diff into hunks. named is the
// file the action line named, if any: a diff about another file is
// ambiguous.
func (p *parser) parseDiff(lines []string, named string) (parsedDiff, *Error) {
	var (
		out         parsedDiff
		oldP, newP  string
		cur         *Hunk
		curText     []string
		oldL, newL  []string
		files       = map[string]bool{}
		hunkStarted bool
	)
	p.shape(ShapeUnifiedDiff)
	flush := func() *Error {
		if cur == nil {
			return nil
		}
		if len(oldL) == 0 && !out.isNew {
			return p.fail("hunk " + strconv.Itoa(len(out.hunks)+1) + " of the diff has no context or removed lines to place it by: copy a few unchanged lines around the change, each with a leading space")
		}
		cur.Old, cur.New = fileLines(oldL), fileLines(newL)
		cur.Text = strings.Join(curText, "\n")
		out.hunks = append(out.hunks, *cur)
		cur, curText, oldL, newL = nil, nil, nil, nil
		return nil
	}
	for k := 0; k < len(lines); k++ {
		l := lines[k]
		switch {
		case strings.HasPrefix(l, "--- ") && k+1 < len(lines) && strings.HasPrefix(lines[k+1], "+++ "):
			if err := flush(); err != nil {
				return out, err
			}
			oldP, newP = diffPath(l[4:]), diffPath(lines[k+1][4:])
			k++
			name := newP
			if name == "/dev/null" {
				return out, p.fail("the diff deletes " + oldP + ": files are not deleted; WRITE it with what it should hold")
			}
			if oldP == "/dev/null" {
				out.isNew = true
			} else if oldP != newP {
				return out, p.refuse(codeAmbiguous, "the diff's --- line names "+oldP+" and its +++ line "+newP)
			}
			files[name] = true
			hunkStarted = false
			continue
		case strings.HasPrefix(l, "diff --git ") || strings.HasPrefix(l, "index ") || strings.HasPrefix(l, "new file mode") || strings.HasPrefix(l, "similarity index"):
			continue
		case isHunkHead(l):
			if err := flush(); err != nil {
				return out, err
			}
			cur, curText, hunkStarted = &Hunk{}, []string{l}, true
			continue
		}
		if !hunkStarted {
			if (oldP != "" || newP != "") && (strings.HasPrefix(l, "-") || strings.HasPrefix(l, "+") || strings.HasPrefix(l, " ")) {
				// Headers followed by lines without an @@: one hunk.
				cur, hunkStarted = &Hunk{}, true
			} else {
				continue
			}
		}
		curText = append(curText, l)
		switch {
		case strings.HasPrefix(l, "+"):
			newL = append(newL, l[1:])
		case strings.HasPrefix(l, "-"):
			oldL = append(oldL, l[1:])
		case strings.HasPrefix(l, " "):
			oldL, newL = append(oldL, l[1:]), append(newL, l[1:])
		case l == "":
			// A blank context line whose leading space was lost.
			oldL, newL = append(oldL, ""), append(newL, "")
		case strings.HasPrefix(l, `\`): // "\ No newline at end of file"
		default:
			return out, p.fail("line " + quote(l) + " of the diff starts with none of space, - or +")
		}
	}
	// Trailing blank lines are the gap before the closing fence, not
	// context.
	for cur != nil && len(curText) > 1 && curText[len(curText)-1] == "" {
		curText = curText[:len(curText)-1]
		oldL, newL = oldL[:len(oldL)-1], newL[:len(newL)-1]
	}
	if err := flush(); err != nil {
		return out, err
	}
	if len(files) > 1 {
		return out, p.refuse(codeAmbiguous, "the diff changes "+strconv.Itoa(len(files))+" files; one change to one file a reply")
	}
	for f := range files {
		out.path = f
	}
	if named != "" && out.path != "" && named != out.path {
		return out, p.refuse(codeAmbiguous, "the action line names "+named+" and the diff's headers name "+out.path)
	}
	if out.path == "" {
		out.path = named
	}
	if out.path == "" {
		return out, p.fail("a diff without a file name: give it --- a/path and +++ b/path lines, or put PATCH path on the line before it")
	}
	if len(out.hunks) == 0 {
		return out, p.fail("the diff has no hunks (@@ ... @@ and the changed lines)")
	}
	return out, nil
}

// fileLines is lines as file text, each ending in "\n": no lines is "",
// one empty line is "\n".
func fileLines(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// diffAction makes the action a parsed diff asks for: a PATCH by hunks, or
// a WRITE of a file the diff creates.
func (p *parser) diffAction(pd parsedDiff) (Action, *Error) {
	p.shape(ShapeUnifiedDiff)
	path, err := p.clean(pd.path)
	if err != nil {
		return Action{}, err
	}
	if pd.isNew {
		var body []string
		for _, h := range pd.hunks {
			body = append(body, strings.TrimSuffix(h.New, "\n"))
		}
		p.verb = VerbWrite
		return Action{Verb: VerbWrite, Path: path, Body: fileBody(strings.Join(body, "\n"))}, nil
	}
	p.verb = VerbPatch
	return Action{Verb: VerbPatch, Path: path, Hunks: pd.hunks}, nil
}

// isHunkHead reports whether l opens a hunk: "@@ … @@", or "@@" alone.
func isHunkHead(l string) bool {
	rest, ok := strings.CutPrefix(l, "@@")
	return ok && (strings.Contains(rest, "@@") || strings.TrimSpace(rest) == "")
}
