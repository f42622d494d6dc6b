package draft

import (
	"path/filepath"
	"strings"
)

// fenceLine is a line that opens or closes a code fence.
type fenceLine struct {
	indent int  // leading spaces and tabs
	ch     byte // '`' or '~'
	n      int  // how many of ch
	info   string
}

func parseFence(line string) (fenceLine, bool) {
	i := 0
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	if i == len(line) || (line[i] != '`' && line[i] != '~') {
		return fenceLine{}, false
	}
	ch := line[i]
	j := i
	for j < len(line) && line[j] == ch {
		j++
	}
	if j-i < 3 {
		return fenceLine{}, false
	}
	info := strings.TrimSpace(line[j:])
	// "```READ x.py```" on one line is inline code, not a fence.
	if ch == '`' && strings.ContainsRune(info, '`') {
		return fenceLine{}, false
	}
	return fenceLine{indent: i, ch: ch, n: j - i, info: info}, true
}

// block is a fenced code block: lines open and close are the fences; close
// is len(lines) when the model never closed it.
type block struct {
	open, close int
	fence       fenceLine
}

func (b block) closed(lines []string) bool { return b.close < len(lines) }

// readBlock finds where the block opened at line open ends. A fence with a
// language tag inside the block opens a nested block rather than closing
// this one: a README written whole holds its own ```bash examples, and
// CommonMark's first-closer rule would cut the file there.
func readBlock(lines []string, open int, f fenceLine) block {
	depth := 0
	for j := open + 1; j < len(lines); j++ {
		g, ok := parseFence(lines[j])
		if !ok || g.ch != f.ch || g.n < f.n {
			continue
		}
		if g.info != "" {
			depth++
			continue
		}
		if depth == 0 {
			return block{open: open, close: j, fence: f}
		}
		depth--
	}
	return block{open: open, close: len(lines), fence: f}
}

// scanFences finds the top-level fenced blocks, and for every line the index
// of the block it belongs to (fence lines included), or -1.
func scanFences(lines []string) ([]block, []int) {
	var blocks []block
	in := make([]int, len(lines))
	for i := 0; i < len(lines); {
		f, ok := parseFence(lines[i])
		if !ok {
			in[i] = -1
			i++
			continue
		}
		b := readBlock(lines, i, f)
		for j := i; j <= b.close && j < len(lines); j++ {
			in[j] = len(blocks)
		}
		blocks = append(blocks, b)
		i = b.close + 1
	}
	return blocks, in
}

// content is the text between a block's fences, with the indentation of an
// opening fence taken off every line (as CommonMark does), which is what a
// block written inside a list item needs.
func (b block) content(lines []string) (text string, dedented bool) {
	end := min(b.close, len(lines))
	body := make([]string, 0, end-b.open)
	for _, l := range lines[b.open+1 : end] {
		k := 0
		for k < b.fence.indent && k < len(l) && (l[k] == ' ' || l[k] == '\t') {
			k++
		}
		if k > 0 {
			dedented = true
		}
		body = append(body, l[k:])
	}
	return strings.Join(body, "\n"), dedented
}

// repairs names what taking this block's fences off a body did.
func (b block) repairs(lines []string) []string {
	var out []string
	switch {
	case b.fence.ch == '~':
		out = append(out, repairStripTildeFence)
	case b.fence.n >= 4:
		out = append(out, repairStripFourBacktick)
	default:
		out = append(out, repairStripFence)
	}
	if !b.closed(lines) {
		out = append(out, repairUnclosedFence)
	}
	return out
}

// stripFenced takes the fence off text that is one fenced block, as a
// native tool call's content often is; other text is returned as it is.
func stripFenced(text string) (string, []string) {
	lines := strings.Split(text, "\n")
	first := 0
	for first < len(lines) && strings.TrimSpace(lines[first]) == "" {
		first++
	}
	if first == len(lines) {
		return text, nil
	}
	f, ok := parseFence(lines[first])
	if !ok {
		return text, nil
	}
	b := readBlock(lines, first, f)
	for _, l := range lines[min(b.close+1, len(lines)):] {
		if strings.TrimSpace(l) != "" {
			return text, nil // a fence inside the content, not around it
		}
	}
	body, dedented := b.content(lines)
	reps := b.repairs(lines)
	if dedented {
		reps = append(reps, repairDedentBody)
	}
	return body, reps
}

// fileBody makes a WRITE body end with exactly one newline and drops blank
// lines around it, which no file means to keep and which models add freely.
func fileBody(text string) string {
	// trimBlankLines on text's lines, without splitting it into them.
	s := text
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			if strings.TrimSpace(s) == "" {
				return "\n"
			}
			break
		}
		if strings.TrimSpace(s[:i]) != "" {
			break
		}
		s = s[i+1:]
	}
	// The first line of s is not blank, so this stops at it at the latest.
	for {
		i := strings.LastIndexByte(s, '\n')
		if i < 0 || strings.TrimSpace(s[i+1:]) != "" {
			break
		}
		s = s[:i]
	}
	return s + "\n"
}

// trimBlankLines drops blank lines at both ends of unfenced text.
func trimBlankLines(lines []string) []string {
	lo, hi := 0, len(lines)
	for lo < hi && strings.TrimSpace(lines[lo]) == "" {
		lo++
	}
	for hi > lo && strings.TrimSpace(lines[hi-1]) == "" {
		hi--
	}
	return lines[lo:hi]
}

// FenceTag is the language a code fence around a file's text is tagged
// with, by the file's extension ("python" for x.py), or "" for a file of
// no language it knows. The harness tags the fence of a file it shows the
// model with it, and export the fence of a native tool call's body it
// writes out as a text action, so both fence a file alike.
func FenceTag(name string) string {
	switch filepath.Ext(name) {
	case ".py":
		return "python"
	case ".go":
		return "go"
	case ".toml":
		return "toml"
	case ".json":
		return "json"
	case ".yaml", ".yml":
		return "yaml"
	case ".sh":
		return "bash"
	}
	return ""
}
