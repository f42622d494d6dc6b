package draft

import (
	"regexp"
	"strings"
)

// This file reads fenced blocks that say what they are without a verb: a
// unified diff, a shell command, Aider's SEARCH/REPLACE blocks after a file
// name, and a whole file named beside or inside its fence (Aider's whole
// format, "# File: x.py", ```python title="x.py", "Here is the updated
// `x.py`:").

var (
	// A line that is only a file name: Aider puts it right before the fence.
	nameLineRE = regexp.MustCompile("^[\\s#>*`\"']*([\\w.\\-/\\\\]*[\\w\\-]\\.[A-Za-z][A-Za-z0-9]{0,7})[*`\"']*:?[\\s*]*$")
	// The name in a first-line comment: "# x.py", "# File: x.py".
	nameCommentRE = regexp.MustCompile(`^\s*(?:#|//)\s*(?:(?i:file(?:name)?|path)\s*:\s*)?([\w.\-/]*[\w\-]\.[A-Za-z][A-Za-z0-9]{0,7})\s*$`)
	// The name in the info string: python:x.py, python title="x.py".
	infoColonRE = regexp.MustCompile(`^[\w+-]+:([\w.\-/]*[\w\-]\.[A-Za-z][A-Za-z0-9]{0,7})$`)
	infoAttrRE  = regexp.MustCompile(`(?:title|file|filename|path|name)=["']?([\w.\-/]*[\w\-]\.[A-Za-z][A-Za-z0-9]{0,7})["']?`)
	// A sentence that introduces a whole file, with the name quoted in it.
	sentenceRE   = regexp.MustCompile("(?i)(?:here is|here's|here are|updated|complete|full|whole|entire|new|final|fixed|revised|modified|corrected|contents? of)")
	quotedNameRE = regexp.MustCompile("(?:`|\\*\\*|\")([\\w.\\-/]*[\\w\\-]\\.[A-Za-z][A-Za-z0-9]{0,7})(?:`|\\*\\*|\")")
)

// fencedFormat reads the first fenced block (or unfenced diff) that says
// what it is. ok is false when no block does.
func (p *parser) fencedFormat(d *doc) (Action, bool, error) {
	// SEARCH/REPLACE blocks after a file name, fenced or not.
	for j, l := range d.lines {
		if !searchMarkRE.MatchString(l) {
			continue
		}
		a, err := p.aiderDiff(d, j)
		if err != nil {
			return Action{}, true, err
		}
		return a, true, nil
	}
	for bi, b := range d.blocks {
		inner := d.lines[b.open+1 : min(b.close, len(d.lines))]
		tag := strings.ToLower(strings.Fields(b.fence.info + " x")[0])
		var (
			a   Action
			err *Error
		)
		switch {
		case diffLike(inner, diffTag(b.fence.info)):
			var pd parsedDiff
			pd, err = p.parseDiff(inner, "")
			if err == nil {
				a, err = p.diffAction(pd)
			}
		case shellTags[tag]:
			a, err = p.shellBlock(inner)
		default:
			var ok bool
			a, ok, err = p.namedFence(d, b)
			if !ok {
				continue
			}
		}
		if err != nil {
			return Action{}, true, err
		}
		d.use(b.open, min(b.close, len(d.lines)-1))
		p.useIntro(d, b.open)
		if bi+1 < len(d.blocks) {
			p.repair(repairExtraBlocksIgnored)
			for _, x := range d.blocks[bi+1:] {
				d.use(x.open, min(x.close, len(d.lines)-1))
			}
		}
		return p.finish(d, a), true, nil
	}
	// A diff written without a fence.
	if diffLike(d.lines, false) {
		var start int
		for start < len(d.lines) && !strings.HasPrefix(d.lines[start], "--- ") {
			start++
		}
		pd, err := p.parseDiff(d.lines[start:], "")
		if err != nil {
			return Action{}, true, err
		}
		a, err := p.diffAction(pd)
		if err != nil {
			return Action{}, true, err
		}
		d.use(start, len(d.lines)-1)
		return p.finish(d, a), true, nil
	}
	return Action{}, false, nil
}

// useIntro marks the line naming a block (just before it) as part of the
// action rather than chatter.
func (p *parser) useIntro(d *doc, open int) {
	k := open - 1
	for k >= 0 && strings.TrimSpace(d.lines[k]) == "" {
		k--
	}
	if k >= 0 && d.in[k] < 0 && nameLineRE.MatchString(d.lines[k]) {
		d.use(k, k)
	}
}

// nameBefore is the file a line before a block names: a bare name (Aider's
// whole format) or a sentence that introduces the file.
func nameBefore(d *doc, open int) (name, shape string) {
	k := open - 1
	for k >= 0 && strings.TrimSpace(d.lines[k]) == "" {
		k--
	}
	if k < 0 || d.in[k] >= 0 {
		return "", ""
	}
	l := d.lines[k]
	if m := nameLineRE.FindStringSubmatch(l); m != nil {
		return m[1], shapeAiderWhole
	}
	t := strings.TrimRight(strings.TrimSpace(l), "*_ ")
	if strings.HasSuffix(t, ":") && sentenceRE.MatchString(t) {
		ms := quotedNameRE.FindAllStringSubmatch(t, -1)
		if len(ms) == 1 {
			return ms[0][1], shapeFenceNameSentence
		}
	}
	return "", ""
}

// namedFence reads a block whose file is named beside or inside it as the
// WRITE of that whole file. Two different names are refused.
func (p *parser) namedFence(d *doc, b block) (Action, bool, *Error) {
	names, comment := fenceNames(d, b)
	if len(names) == 0 {
		return Action{}, false, nil
	}
	for _, n := range names {
		p.shape(n.shape)
	}
	for _, n := range names[1:] {
		if n.name != names[0].name {
			p.verb = VerbWrite
			return Action{}, true, p.refuse(codeAmbiguous, "the code block is named "+names[0].name+" in "+names[0].where+" and "+n.name+" in "+n.where)
		}
	}
	p.verb = VerbWrite
	path, err := p.clean(names[0].name)
	if err != nil {
		return Action{}, true, err
	}
	// A second named block for another file (Aider's whole format with
	// two files) makes the reply two writes: which one is not for the
	// parser to pick.
	for _, x := range d.blocks {
		if x.open <= b.open {
			continue
		}
		if more, _ := fenceNames(d, x); len(more) > 0 && more[0].name != names[0].name {
			return Action{}, true, p.refuse(codeAmbiguous, "it writes two files, "+names[0].name+" and "+more[0].name)
		}
	}
	text, dedented := d.content(b)
	p.repair(b.repairs(d.lines)...)
	if dedented {
		p.repair(repairDedentBody)
	}
	if comment {
		lines := strings.Split(text, "\n")
		k := 0
		for k < len(lines) && strings.TrimSpace(lines[k]) == "" {
			k++
		}
		text = strings.Join(lines[k+1:], "\n")
		p.repair(repairStripNameComment)
	}
	if strings.TrimSpace(text) == "" {
		return Action{}, true, p.fail("the block for " + path + " is empty")
	}
	return Action{Verb: VerbWrite, Path: path, Body: fileBody(text)}, true, nil
}

// naming is a file name given to a fenced block, the shape that gave it
// and where it was written.
type naming struct{ name, shape, where string }

// fenceNames are the names a block is given beside or inside it; comment
// is set when one is its first line.
func fenceNames(d *doc, b block) (names []naming, comment bool) {
	if n, shape := nameBefore(d, b.open); n != "" {
		where := "the line before the block"
		names = append(names, naming{n, shape, where})
	}
	info := b.fence.info
	if m := infoColonRE.FindStringSubmatch(info); m != nil {
		names = append(names, naming{m[1], shapeFenceInfoName, "the fence's info string"})
	} else if m := infoAttrRE.FindStringSubmatch(info); m != nil {
		names = append(names, naming{m[1], shapeFenceInfoName, "the fence's info string"})
	}
	body := d.lines[b.open+1 : min(b.close, len(d.lines))]
	first := 0
	for first < len(body) && strings.TrimSpace(body[first]) == "" {
		first++
	}
	if first < len(body) {
		if m := nameCommentRE.FindStringSubmatch(body[first]); m != nil {
			names = append(names, naming{m[1], shapeFenceNameComment, "the block's first line"})
			comment = true
		}
	}
	return names, comment
}

// aiderDiff reads Aider's diff format: a file name on the line before the
// fence (or, diff-fenced, first inside it), then SEARCH/REPLACE blocks.
func (p *parser) aiderDiff(d *doc, j int) (Action, *Error) {
	p.verb = VerbPatch
	p.shape(shapeAiderDiff)
	name := ""
	if bi := d.in[j]; bi >= 0 {
		b := d.blocks[bi]
		for k := b.open + 1; k < j; k++ {
			if m := nameLineRE.FindStringSubmatch(d.lines[k]); m != nil {
				name = m[1]
			} else if strings.TrimSpace(d.lines[k]) != "" {
				name = ""
			}
		}
		if n, shape := nameBefore(d, b.open); n != "" && shape == shapeAiderWhole {
			if name != "" && n != name {
				return Action{}, p.refuse(codeAmbiguous, "the SEARCH/REPLACE block is named "+n+" before its fence and "+name+" inside it")
			}
			name = n
			p.useIntro(d, b.open)
		}
	} else {
		k := j - 1
		for k >= 0 && strings.TrimSpace(d.lines[k]) == "" {
			k--
		}
		if k >= 0 && d.in[k] < 0 {
			if m := nameLineRE.FindStringSubmatch(d.lines[k]); m != nil {
				name = m[1]
				d.use(k, k)
			}
		}
	}
	if name == "" {
		return Action{}, p.fail("a SEARCH/REPLACE block without a file name: put PATCH path on the line before it")
	}
	path, err := p.clean(name)
	if err != nil {
		return Action{}, err
	}
	find, replace, last, err := p.markerBlocks(d, j, len(d.lines))
	if err != nil {
		return Action{}, err
	}
	// A later SEARCH block named for another file makes the reply two
	// patches: refused, not one of them guessed.
	for k := last + 1; k < len(d.lines); k++ {
		if !searchMarkRE.MatchString(d.lines[k]) {
			continue
		}
		if other := searchBlockName(d, k); other != "" && other != name {
			return Action{}, p.refuse(codeAmbiguous, "it patches two files, "+name+" and "+other)
		}
	}
	return p.finish(d, Action{Verb: VerbPatch, Path: path, Find: find, Replace: replace}), nil
}

// searchBlockName is the file a SEARCH line at j is named for: a name line
// just before it (inside its fence, or before an unfenced block), else the
// name before its fence.
func searchBlockName(d *doc, j int) string {
	k := j - 1
	for k >= 0 && strings.TrimSpace(d.lines[k]) == "" {
		k--
	}
	if k >= 0 && d.in[k] == d.in[j] {
		if m := nameLineRE.FindStringSubmatch(d.lines[k]); m != nil {
			return m[1]
		}
	}
	if bi := d.in[j]; bi >= 0 {
		if n, shape := nameBefore(d, d.blocks[bi].open); shape == shapeAiderWhole {
			return n
		}
	}
	return ""
}
