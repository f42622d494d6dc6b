package draft

import (
	"regexp"
	"strings"
)

var (
	labelLineRE   = regexp.MustCompile(`(?i)^(find|search|old(?:\s+code)?|original(?:\s+code)?|replace(?:\s+with)?|replacement|new(?:\s+code)?|with)\s*(?:\*\*)?\s*(:)?\s*(?:\*\*)?\s*(.*)$`)
	searchMarkRE  = regexp.MustCompile(`(?i)^\s*(?:<{5,9}|-{5,9})\s*SEARCH\b`)
	replaceMarkRE = regexp.MustCompile(`(?i)^\s*(?:>{5,9}|\+{5,9})\s*REPLACE\b`)
)

// label is a FIND: or REPLACE: line, in any of the spellings models use.
type label struct {
	find      bool
	rest      string // what follows the label on its line
	canonical bool   // exactly "FIND:" or "REPLACE:"
}

// mayOpenLabelLine reports whether s's first byte can open labelLineRE:
// the first letter of one of its words in either case, or any byte
// outside ASCII, which (?i) may fold to one ("ſ" is an s).
func mayOpenLabelLine(s string) bool {
	if s == "" {
		return false
	}
	switch s[0] | 0x20 {
	case 'f', 's', 'o', 'r', 'n', 'w':
		return true
	}
	return s[0] >= 0x80
}

func parseLabel(line string) (label, bool) {
	t := strings.TrimSpace(line)
	s := t
	if m := findIf(mayOpenList(s), listRE, s); m != "" {
		s = s[len(m):]
	}
	bold := strings.HasPrefix(s, "**")
	s = strings.TrimPrefix(s, "**")
	m := matchIf(mayOpenLabelLine(s), labelLineRE, s)
	if m == nil {
		return label{}, false
	}
	word, colon, rest := m[1], m[2] != "", strings.TrimSpace(m[3])
	if bold {
		rest = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(rest, "**"), "**"))
	}
	// "Find the bug" and "New approach: ..." are sentences, not labels.
	if !colon && rest != "" {
		return label{}, false
	}
	w := strings.ToLower(word)
	l := label{
		find: strings.HasPrefix(w, "find") || strings.HasPrefix(w, "search") ||
			strings.HasPrefix(w, "old") || strings.HasPrefix(w, "original"),
		rest: rest,
	}
	l.canonical = (word == "FIND" || word == "REPLACE") && strings.HasPrefix(t, word+":")
	return l, true
}

func (p *parser) patchAction(d *doc, i int, h head) (Action, int, *Error) {
	path, err := p.targetPath(h)
	if err != nil {
		return Action{}, i, err
	}
	a := Action{Path: path}
	// A unified diff after the PATCH line (Aider's udiff with the file
	// named by this protocol's verb).
	stop := d.nextHead(i)
	for j := i + 1; j < stop; j++ {
		b, ok := d.blockAt(j)
		if !ok {
			continue
		}
		inner := d.lines[b.open+1 : min(b.close, len(d.lines))]
		if !diffLike(inner, diffTag(b.fence.info)) {
			break
		}
		pd, err := p.parseDiff(inner, a.Path)
		if err != nil {
			return Action{}, i, err
		}
		if pd.isNew {
			return Action{}, i, p.fail("PATCH with a diff that creates " + a.Path + ": use WRITE with the whole file")
		}
		last := min(b.close, len(d.lines)-1)
		d.use(j, last)
		p.shape(ShapeUnifiedDiff)
		a.Hunks = pd.hunks
		return a, last, nil
	}
	a.Find, a.Replace, i, err = p.patchBlocks(d, i)
	return a, i, err
}

// patchBlocks reads the find and replace text after line i: labelled blocks
// (FIND:/REPLACE: and their variants) or a <<<<<<< SEARCH block, whichever
// comes first. Only the first pair is used; a patch is one change.
func (p *parser) patchBlocks(d *doc, i int) (find, replace string, last int, err *Error) {
	stop := d.nextHead(i)
	for j := i + 1; j < stop; j++ {
		if searchMarkRE.MatchString(d.lines[j]) {
			return p.markerBlocks(d, j, stop)
		}
		if d.in[j] >= 0 {
			continue
		}
		if l, ok := parseLabel(d.lines[j]); ok && l.find {
			return p.labelledBlocks(d, j, l, stop)
		}
	}
	return "", "", i, p.fail("PATCH without FIND: and REPLACE: blocks (to replace a whole file, use WRITE)")
}

func (p *parser) markerBlocks(d *doc, j, stop int) (find, replace string, last int, err *Error) {
	p.shape(shapeSearchReplaceBlock)
	div, end := -1, -1
	for k := j + 1; k < len(d.lines); k++ {
		if div < 0 && isDivider(d.lines[k]) {
			div = k
		} else if div >= 0 && replaceMarkRE.MatchString(d.lines[k]) {
			end = k
			break
		}
	}
	if end < 0 {
		return "", "", j, p.fail("PATCH with an unterminated <<<<<<< SEARCH block: it needs a ======= line and a >>>>>>> REPLACE line")
	}
	find = strings.Join(d.lines[j+1:div], "\n")
	replace = strings.Join(d.lines[div+1:end], "\n")
	if strings.TrimSpace(find) == "" {
		return "", "", j, p.fail("PATCH with an empty SEARCH block")
	}
	first, last := j, end
	if d.in[j] >= 0 {
		b := d.blocks[d.in[j]]
		p.repair(b.repairs(d.lines)...)
		first, last = b.open, max(end, min(b.close, len(d.lines)-1))
	}
	d.use(first, last)
	for k := last + 1; k < stop; k++ {
		if searchMarkRE.MatchString(d.lines[k]) {
			p.repair(repairExtraBlocksIgnored)
			d.use(k, stop-1)
			break
		}
	}
	return find, replace, last, nil
}

func (p *parser) labelledBlocks(d *doc, j int, l label, stop int) (find, replace string, last int, err *Error) {
	find, last, err = p.labelled(d, j, l, stop)
	if err != nil {
		return "", "", j, err
	}
	if strings.TrimSpace(find) == "" {
		return "", "", j, p.fail("PATCH with an empty FIND block: copy the lines to change from the file")
	}
	k := last + 1
	var rl label
	for ; k < stop; k++ {
		if d.in[k] >= 0 {
			continue
		}
		if x, ok := parseLabel(d.lines[k]); ok {
			if x.find {
				k = stop // a second FIND: before any REPLACE:
				break
			}
			rl = x
			break
		}
	}
	if k >= stop {
		return "", "", j, p.fail("PATCH without a REPLACE: block after its FIND: block")
	}
	replace, last, err = p.labelled(d, k, rl, stop)
	if err != nil {
		return "", "", j, err
	}
	for n := last + 1; n < stop; n++ {
		if x, ok := parseLabel(d.lines[n]); ok && x.find && d.in[n] < 0 {
			p.repair(repairExtraBlocksIgnored)
			d.use(n, stop-1)
			break
		}
	}
	return find, replace, last, nil
}

// labelled reads the block a label introduces: a fenced block on the lines
// after it, else text on the label's own line, else the plain lines up to
// the next label.
func (p *parser) labelled(d *doc, j int, l label, stop int) (string, int, *Error) {
	name, unfenced := "REPLACE:", repairUnfencedReplace
	if l.find {
		name, unfenced = "FIND:", repairUnfencedFind
	}
	if !l.canonical {
		p.shape(shapeLabelVariant)
	}
	d.use(j, j)
	if l.rest != "" {
		if strings.HasPrefix(l.rest, "```") || strings.HasPrefix(l.rest, "~~~") {
			return "", j, p.fail("the fence of the " + name + " block must start on its own line")
		}
		p.repair(unfenced)
		text := l.rest
		if t, ok := strings.CutPrefix(text, "`"); ok {
			if t, ok := strings.CutSuffix(t, "`"); ok {
				text = t
			}
		}
		return text, j, nil
	}
	k := j + 1
	for k < len(d.lines) && strings.TrimSpace(d.lines[k]) == "" {
		k++
	}
	if b, ok := d.blockAt(k); ok {
		text, dedented := d.content(b)
		p.repair(b.repairs(d.lines)...)
		if dedented {
			p.repair(repairDedentBody)
		}
		last := min(b.close, len(d.lines)-1)
		d.use(j, last)
		return text, last, nil
	}
	end := j + 1
	for end < stop {
		if x, ok := parseLabel(d.lines[end]); ok && (x.find || l.find) {
			break
		}
		if _, ok := d.blockAt(end); ok {
			break
		}
		end++
	}
	text := trimBlankLines(d.lines[j+1 : end])
	if len(text) == 0 {
		if l.find {
			return "", j, p.fail("PATCH with an empty FIND block: copy the lines to change from the file")
		}
		return "", j, p.fail("REPLACE: without a block (for a deletion, give an empty fenced block)")
	}
	p.repair(unfenced)
	d.use(j+1, end-1)
	return strings.Join(text, "\n"), end - 1, nil
}

// isDivider reports whether line is a SEARCH/REPLACE block's divider:
// five to nine "=" and nothing else but spaces.
func isDivider(line string) bool {
	t := strings.Trim(line, " \t\n\f\r")
	return len(t) >= 5 && len(t) <= 9 && strings.Trim(t, "=") == ""
}
