package draft

import (
	"regexp"
	"strings"
)

// Tags written in a model's own tokens, read as the tags they stand for,
// for the structural reader (structure.go). Nothing here names a model:
// each rule is a shape of brackets.
//
//   - A namespace of tokens inside a tag's bracket (<｜NS｜invoke …>,
//     </｜NS｜invoke>) is the tag (<invoke …>, </invoke>).
//   - A run of bytes that stands before tag after tag (half of them at
//     least), always the same and no tag itself (]<]ns[>[<invoke …>…]<]ns[>[</invoke>), is a token
//     that opens the tags: it is taken off.
//   - Tags whose brackets are special tokens, <|A|>NAME attrs<|B|> opening
//     and <|C|>NAME<|B|> closing the same NAME, are <NAME attrs> and
//     </NAME>.
//
// The reader then reads the calls as it reads tags.

var (
	nsTagRE    = regexp.MustCompile(`<(/?)[|｜][A-Za-z_][\w-]*[|｜]([A-Za-z_])`)
	tokenTagRE = regexp.MustCompile(`(<\|[^|<>\s]+\|>)([A-Za-z_][\w-]*)((?:\s+[A-Za-z_][\w-]*="[^"<>]*")*)(<\|[^|<>\s]+\|>)`)
)

// detokened is text with its token-written tags read as tags, and, for
// each byte of the result, the byte of text it came from.
func detokened(text string) (string, []int) {
	out, from := text, identity(len(text))
	out, from = replaceMapped(out, from, nsTagRE, func(m []int, s string) string { return "<" + s[m[2]:m[3]] + s[m[4]:m[5]] })
	if p := tagPrefix(out); p != "" {
		out, from = dropBeforeTags(out, from, p)
	}
	out, from = tokenTags(out, from)
	return out, from
}

func identity(n int) []int {
	m := make([]int, n+1)
	for i := range m {
		m[i] = i
	}
	return m
}

// replaceMapped replaces every match of re in s by repl's text, keeping
// the map from the bytes of the result to the original's (from).
func replaceMapped(s string, from []int, re *regexp.Regexp, repl func(m []int, s string) string) (string, []int) {
	ms := re.FindAllStringSubmatchIndex(s, -1)
	if len(ms) == 0 {
		return s, from
	}
	var b strings.Builder
	var nf []int
	last := 0
	for _, m := range ms {
		b.WriteString(s[last:m[0]])
		nf = append(nf, from[last:m[0]]...)
		r := repl(m, s)
		b.WriteString(r)
		for range len(r) {
			nf = append(nf, from[m[0]])
		}
		last = m[1]
	}
	b.WriteString(s[last:])
	nf = append(nf, from[last:]...)
	return b.String(), nf
}

// tagPrefix is the run of bytes that stands before every tag of text but
// is no tag itself, when there is one: the longest that precedes the most
// tags, at least three of them and half of them (the others are a value's
// text).
func tagPrefix(text string) string {
	starts := tagStarts(text)
	if len(starts) < 3 {
		return ""
	}
	count := map[string]int{}
	for _, k := range starts {
		j := k
		for j > 0 && k-j < 24 && !strings.ContainsRune(" \t\r\n", rune(text[j-1])) {
			j--
			if p := text[j:k]; !strings.HasSuffix(p, ">") {
				count[p]++
			}
		}
	}
	best, n := "", 0
	for p, c := range count {
		if len(p) < 2 || !hasMark(p) || strings.HasSuffix(p, ">") {
			continue
		}
		if c > n || c == n && len(p) > len(best) || c == n && len(p) == len(best) && p < best {
			best, n = p, c
		}
	}
	if n < 3 || 2*n < len(starts) {
		return ""
	}
	return best
}

// tagStarts are the offsets in text of every tag's "<" (a letter or "_",
// maybe after "/", follows it).
func tagStarts(text string) []int {
	var out []int
	for i := strings.IndexByte(text, '<'); i >= 0; {
		if isTagStart(text, i) {
			out = append(out, i)
		}
		k := strings.IndexByte(text[i+1:], '<')
		if k < 0 {
			break
		}
		i += 1 + k
	}
	return out
}

// isTagStart reports whether a tag opens or closes at text[i]: "<", maybe
// "/", then a letter or "_".
func isTagStart(text string, i int) bool {
	if i >= len(text) || text[i] != '<' {
		return false
	}
	j := i + 1
	if j < len(text) && text[j] == '/' {
		j++
	}
	return j < len(text) && (text[j] == '_' || ('a' <= text[j]|0x20 && text[j]|0x20 <= 'z'))
}

// hasMark reports whether p holds a byte that is neither a word's nor a
// space's: a mark, or any byte outside ASCII.
func hasMark(p string) bool {
	for i := 0; i < len(p); i++ {
		if !isIdentByte(p[i]) && strings.IndexByte(" \t\n\f\r", p[i]) < 0 {
			return true
		}
	}
	return false
}

// dropBeforeTags takes p off wherever it stands right before a tag,
// keeping the map from the result's bytes to the original's (from).
func dropBeforeTags(s string, from []int, p string) (string, []int) {
	var b strings.Builder
	var nf []int
	last := 0
	for i := 0; ; {
		k := strings.Index(s[i:], p)
		if k < 0 {
			break
		}
		k += i
		if !isTagStart(s, k+len(p)) {
			i = k + 1
			continue
		}
		b.WriteString(s[last:k])
		nf = append(nf, from[last:k]...)
		last, i = k+len(p), k+len(p)
	}
	if last == 0 {
		return s, from
	}
	b.WriteString(s[last:])
	nf = append(nf, from[last:]...)
	return b.String(), nf
}

// tokenTags reads tags bracketed by special tokens: <|A|>NAME…<|B|> opens
// NAME where <|C|>NAME<|B|> closes it, with A and C different tokens.
func tokenTags(s string, from []int) (string, []int) {
	ms := tokenTagRE.FindAllStringSubmatch(s, -1)
	if len(ms) < 2 {
		return s, from
	}
	// For each pair of tokens around a name, the names it brackets.
	type pair struct{ open, sep string }
	names := map[pair]map[string]bool{}
	for _, m := range ms {
		p := pair{m[1], m[4]}
		if names[p] == nil {
			names[p] = map[string]bool{}
		}
		names[p][m[2]] = true
	}
	// The pair that shares the most names, the first in byte order on a
	// tie, so that a reply is always read the same way.
	var opener, closer string
	most := 0
	for p, ns := range names {
		for q, qs := range names {
			if p.sep != q.sep || p.open == q.open || !closes(q.open) || closes(p.open) {
				continue
			}
			shared := 0
			for n := range qs {
				if ns[n] {
					shared++
				}
			}
			if shared > most || shared == most && shared > 0 && p.open+q.open < opener+closer {
				opener, closer, most = p.open, q.open, shared
			}
		}
	}
	if opener == "" {
		return s, from
	}
	return replaceMapped(s, from, tokenTagRE, func(m []int, t string) string {
		open, name, attrs := t[m[2]:m[3]], t[m[4]:m[5]], t[m[6]:m[7]]
		switch open {
		case opener:
			return "<" + name + attrs + ">"
		case closer:
			if attrs == "" {
				return "</" + name + ">"
			}
		}
		return t[m[0]:m[1]]
	})
}

// closes reports whether a token reads as a close: it names closing or
// ending, or holds a slash.
func closes(c string) bool {
	w := strings.ToLower(strings.Trim(c, "<|>"))
	return strings.Contains(w, "close") || strings.Contains(w, "end") || strings.Contains(c, "/")
}

// detokenedCalls reads the calls of text by structure, once: over the
// text with its token-written tags read as tags when it has any (a byte
// of a call is skipped where the byte of text it came from lies in a
// fence of code), over the text itself otherwise. It returns the text the
// calls were read from and the calls.
func detokenedCalls(text string, d *doc) (string, []callCand) {
	skip := codeFenceAt(d)
	nt, from := detokened(text)
	if nt == text {
		return text, structureCalls(text, skip)
	}
	return nt, structureCalls(nt, func(i int) bool { return skip(from[min(i, len(from)-1)]) })
}
