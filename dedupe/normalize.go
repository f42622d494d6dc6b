package dedupe

import (
	"bytes"
	"encoding/binary"
	"unsafe"

	"github.com/pyharness/pyharness/internal/swar"
)

// Placeholders that volatile tokens are replaced by. They hold characters
// ('<', '>') that the recognisers never start on, so normalising twice gives
// the same bytes as normalising once.
const (
	phTemp = "<tmp>"
	phRun  = "<run-id>"
	phTime = "<time>"
	phDur  = "<dur>"
	phAddr = "<addr>"
)

// trigger marks the bytes at which a volatile token may start; every other
// byte is copied as it is, so the loop does one table lookup per byte.
var trigger = func() (t [256]bool) {
	for _, c := range []byte("/0123456789abdp") {
		t[c] = true
	}
	return t
}()

// word marks the bytes of an identifier-like token ([A-Za-z0-9_]).
var word = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	return t
}()

// appendNormalized appends src to dst in the code-safe normal form that
// exact keys hash, in one pass with no regular expressions: CRLF becomes
// LF, trailing spaces and tabs go, blank lines at either end go and runs of
// blank lines become one, and volatile tokens (temporary paths, run ids,
// timestamps, durations, object addresses) become placeholders.
// Indentation and everything else inside a line are kept: they are code.
func appendNormalized(dst, src []byte) []byte {
	started, blank := false, false
	for len(src) > 0 {
		var line []byte
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			line, src = src[:i], src[i+1:]
		} else {
			line, src = src, nil
		}
		end := len(line)
		for end > 0 && (line[end-1] == ' ' || line[end-1] == '\t' || line[end-1] == '\r') {
			end--
		}
		if end == 0 {
			blank = started
			continue
		}
		if started {
			dst = append(dst, '\n')
			if blank {
				dst = append(dst, '\n')
			}
		}
		started, blank = true, false
		dst = appendLine(dst, line[:end])
	}
	return dst
}

// appendNormalizedString is appendNormalized for a string, without copying
// it first.
func appendNormalizedString(dst []byte, s string) []byte {
	return appendNormalized(dst, unsafe.Slice(unsafe.StringData(s), len(s)))
}

// normalizeString returns the normal form of s.
func normalizeString(s string) string {
	return string(appendNormalizedString(nil, s))
}

// Byte classes for the scan of a line.
const (
	clOther   = iota // copied, starts nothing
	clWord           // a word byte that starts no token
	clTrigger        // a word byte that may start a token
	clSlash          // '/', which may start a temporary path
)

var class = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		switch {
		case c == '/':
			t[c] = clSlash
		case trigger[c]:
			t[c] = clTrigger
		case word[c]:
			t[c] = clWord
		}
	}
	return t
}()

// appendLine copies one line, replacing the volatile tokens that start at a
// token boundary: a '/', or a word byte that may start a token (a digit,
// a, b, d, p) after a byte that is not a word byte. The line is scanned
// eight bytes at a time for such starts (startsIn), so that most of a line
// is passed over without looking at its bytes one by one.
func appendLine(dst, line []byte) []byte {
	start := 0 // first byte of line not yet copied
	// prevAt is the byte before line[k] as written: a placeholder's '>'
	// right after a replacement, so that normalising again changes nothing.
	prevAt := func(k int) byte {
		switch {
		case k == 0:
			return 0
		case k == start:
			return dst[len(dst)-1]
		}
		return line[k-1]
	}
	i := 0
chunks:
	for i+8 <= len(line) {
		s := startsIn(binary.LittleEndian.Uint64(line[i:]), word[prevAt(i)])
		for s != 0 {
			k := i + swar.First(s)
			s &= s - 1
			prev := prevAt(k)
			if word[prev] || k+1 < len(line) && !mayStart(line[k], line[k+1]) {
				continue // a mark startsIn may give too many
			}
			if n, ph, keep := volatile(line, k, prev); n > 0 {
				dst = append(dst, line[start:k+keep]...)
				dst = append(dst, ph...)
				i = k + n
				start = i
				continue chunks
			}
		}
		i += 8
	}
	for ; i < len(line); i++ {
		prev := prevAt(i)
		if cl := class[line[i]]; (cl == clTrigger || cl == clSlash) && !word[prev] {
			if n, ph, keep := volatile(line, i, prev); n > 0 {
				dst = append(dst, line[start:i+keep]...)
				dst = append(dst, ph...)
				i += n - 1
				start = i + 1
			}
		}
	}
	return append(dst, line[start:]...)
}

// startPairs holds a bit for each pair of bytes a volatile token may begin
// with: "/t" and "/v" (/tmp/, /var/tmp/), a digit then a digit, '.', 'm'
// or 'x' (times, durations, addresses), "py" (pyharness-…), "be", "do" and
// "ad" (run ids). It is 8 KiB, and weeds out most of the word starts a
// scan marks with one lookup.
var startPairs = func() (t [1 << 16 / 64]uint64) {
	set := func(a, b byte) { i := int(a)<<8 | int(b); t[i/64] |= 1 << (i % 64) }
	for _, ab := range []string{"/t", "/v", "py", "be", "do", "ad"} {
		set(ab[0], ab[1])
	}
	for d := byte('0'); d <= '9'; d++ {
		for _, next := range []byte("0123456789.mx") {
			set(d, next)
		}
	}
	return t
}()

// mayStart reports whether a volatile token may begin with the bytes a, b.
func mayStart(a, b byte) bool {
	i := int(a)<<8 | int(b)
	return startPairs[i/64]&(1<<(i%64)) != 0
}

// startsIn marks the bytes of x (eight bytes of a line, the first lowest)
// that may start a volatile token: a '/', or a digit, a to d or p, not
// after a letter or digit. prevWord says whether the byte before the first
// is a word byte. It may mark more than appendLine replaces (a c, a start
// after '_'), never less: each mark is checked again.
func startsIn(x uint64, prevWord bool) uint64 {
	ascii := ^x & swar.Highs
	low := x &^ swar.Highs
	digits := swar.Between(low, '0'-1, '9'+1)
	// |0x20 turns A-Z into a-z and nothing else into a-z.
	words := (digits | swar.Between(low|swar.Ones*0x20, 'a'-1, 'z'+1)) & ascii
	triggers := (digits | swar.Between(low, '/'-1, '/'+1) | swar.Between(low, 'a'-1, 'd'+1) | swar.Between(low, 'p'-1, 'p'+1)) & ascii
	after := words << 8 // a byte's mark moved onto the byte after it
	if prevWord {
		after |= 0x80
	}
	return triggers &^ after
}

// volatile reports a volatile token at line[i]: its length n, the
// placeholder, and how many of its leading bytes to keep before the
// placeholder. n is 0 when there is none.
func volatile(line []byte, i int, prev byte) (n int, ph string, keep int) {
	rest := line[i:]
	c := rest[0]
	switch {
	case c == '/':
		if prev == '.' || prev == '-' || len(rest) < 6 {
			return 0, "", 0
		}
		for _, dir := range []string{"/tmp/", "/var/tmp/"} {
			if len(rest) >= len(dir) && string(rest[:len(dir)]) == dir {
				if len(rest) > len(dir) && rest[len(dir)] == '<' {
					return 0, "", 0 // already a placeholder
				}
				seg := pathSegment(rest[len(dir):])
				if seg == 0 {
					return 0, "", 0
				}
				return len(dir) + seg, phTemp, len(dir)
			}
		}
	case c >= '0' && c <= '9':
		if prev == '.' {
			return 0, "", 0
		}
		if n := timestamp(rest); n > 0 {
			return n, phTime, 0
		}
		if n := duration(rest); n > 0 {
			return n, phDur, 0
		}
		if c == '0' && i >= 3 && string(line[i-3:i]) == "at " {
			if n := address(rest); n > 0 {
				return n, phAddr, 0
			}
		}
	case c == 'p':
		if prev == '-' || len(rest) < 14 || rest[1] != 'y' {
			return 0, "", 0
		}
		for _, p := range []string{"pyharness-ws-", "pyharness-case-"} {
			if len(rest) >= len(p) && string(rest[:len(p)]) == p {
				w := wordLen(rest[len(p):])
				if w == 0 {
					return 0, "", 0
				}
				return len(p) + w, phTemp, 0
			}
		}
	case c == 'b' || c == 'd' || c == 'a':
		if prev == '-' || len(rest) < 22 {
			return 0, "", 0
		}
		if n := runID(rest); n > 0 {
			return n, phRun, 0
		}
	}
	return 0, "", 0
}

// pathSegment is the length of the path segment at the start of b: up to a
// slash, a space or a character that closes a quotation.
func pathSegment(b []byte) int {
	for i, c := range b {
		switch c {
		case '/', ' ', '\t', '"', '\'', '`', ')', ']', '>', ',', ':', ';':
			return i
		}
	}
	return len(b)
}

func wordLen(b []byte) int {
	for i, c := range b {
		if !word[c] {
			return i
		}
	}
	return len(b)
}

func digits(b []byte, n int) bool {
	if len(b) < n {
		return false
	}
	for _, c := range b[:n] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func countDigits(b []byte) int {
	n := 0
	for n < len(b) && b[n] >= '0' && b[n] <= '9' {
		n++
	}
	return n
}

// timestamp matches YYYY-MM-DD[T ]hh:mm[:ss[.frac]][Z|±hh[:]mm]: a date
// alone is content, a date with a time of day is a moment that varies.
func timestamp(b []byte) int {
	if !digits(b, 4) || len(b) < 16 || b[4] != '-' || !digits(b[5:], 2) || b[7] != '-' || !digits(b[8:], 2) ||
		(b[10] != 'T' && b[10] != ' ') || !digits(b[11:], 2) || b[13] != ':' || !digits(b[14:], 2) {
		return 0
	}
	n := 16
	if n+2 < len(b) && b[n] == ':' && digits(b[n+1:], 2) {
		n += 3
		if n+1 < len(b) && (b[n] == '.' || b[n] == ',') {
			if d := countDigits(b[n+1:]); d > 0 {
				n += 1 + d
			}
		}
	}
	switch {
	case n < len(b) && b[n] == 'Z':
		n++
	case n+2 < len(b) && (b[n] == '+' || b[n] == '-') && digits(b[n+1:], 2):
		m := n + 3
		if m < len(b) && b[m] == ':' {
			m++
		}
		if digits(b[m:], 2) {
			n = m + 2
		}
	}
	if n < len(b) && word[b[n]] {
		return 0
	}
	return n
}

// duration matches a measured time: 0.123s, 12.5ms, 40ms (as test runners
// print them, "Ran 3 tests in 0.002s"). A whole number of seconds is left
// alone: "3s" is as likely content as timing.
func duration(b []byte) int {
	n := countDigits(b)
	frac := 0
	if n < len(b) && b[n] == '.' {
		frac = countDigits(b[n+1:])
		if frac == 0 {
			return 0
		}
		n += 1 + frac
	}
	switch {
	case n+1 < len(b) && b[n] == 'm' && b[n+1] == 's':
		n += 2
	case n < len(b) && b[n] == 's' && frac > 0:
		n++
	default:
		return 0
	}
	if n < len(b) && word[b[n]] {
		return 0
	}
	return n
}

// address matches the 0x… of a Python repr after "at " (<object at 0x7f…>).
func address(b []byte) int {
	if len(b) < 3 || b[1] != 'x' {
		return 0
	}
	n := 2
	for n < len(b) && (b[n] >= '0' && b[n] <= '9' || b[n] >= 'a' && b[n] <= 'f' || b[n] >= 'A' && b[n] <= 'F') {
		n++
	}
	if n-2 < 6 || n < len(b) && word[b[n]] {
		return 0
	}
	return n
}

// runID matches a content-addressed run id, <source>-<item>-p<pass>-<12 hex>.
func runID(b []byte) int {
	var src string
	switch b[0] {
	case 'b':
		src = "bench-"
	case 'd':
		src = "dogfood-"
	case 'a':
		src = "adhoc-"
	}
	p := len(src)
	if p == 0 || len(b) < p || string(b[:p]) != src {
		return 0
	}
	n := p
	for n < len(b) && (word[b[n]] || b[n] == '-') {
		n++
	}
	tok := b[:n]
	// ...-p<digits>-<12 hex>
	if len(tok) < p+17 || tok[len(tok)-13] != '-' {
		return 0
	}
	for _, c := range tok[len(tok)-12:] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return 0
		}
	}
	head := tok[:len(tok)-13]
	d := 0
	for d < len(head) && head[len(head)-1-d] >= '0' && head[len(head)-1-d] <= '9' {
		d++
	}
	if d == 0 || len(head)-d < p+2 || head[len(head)-d-1] != 'p' || head[len(head)-d-2] != '-' {
		return 0
	}
	return n
}
