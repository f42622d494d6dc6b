package export

import (
	"bufio"
	"cmp"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/pyharness/pyharness/internal/secretname"
)

// Redacted replaces every secret in an export.
const redacted = "[REDACTED]"

// Redactor replaces secrets in exported text: the values of environment
// files (and of environment-style assignments in the text itself) that look
// like secrets, and strings shaped like the API keys and tokens of the
// common services. It counts what it replaced.
type redactor struct {
	values []string // sorted longest first, so a value is never cut by a shorter one
	seen   map[string]bool
	sorted bool
	// Count is the number of replacements made.
	Count int
}

// newRedactor returns a redactor that knows no values yet; token shapes are
// always replaced.
func newRedactor() *redactor { return &redactor{seen: map[string]bool{}} }

// tokenShapes are the shapes of credentials that are secret wherever they
// appear. Groups 1 and 2, when present, are kept around the replacement:
// they are the label and the delimiter, not the secret.
var tokenShapes = []*regexp.Regexp{
	regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----`),
	regexp.MustCompile(`\bsk-(?:proj-|ant-|live-|test-)?[A-Za-z0-9_\-]{20,}`),
	regexp.MustCompile(`\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}`),
	regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{30,}`),
	regexp.MustCompile(`\bglpat-[A-Za-z0-9_\-]{20,}`),
	regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9\-]{10,}`),
	regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`),
	regexp.MustCompile(`\bAIza[0-9A-Za-z_\-]{35}`),
	regexp.MustCompile(`\bhf_[A-Za-z0-9]{30,}`),
	regexp.MustCompile(`\bnpm_[A-Za-z0-9]{36}`),
	regexp.MustCompile(`\b(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{16,}`),
	regexp.MustCompile(`\beyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}`),
	regexp.MustCompile(`(?i)(\bbearer\s+)[A-Za-z0-9_\-.=+/]{20,}`),
	regexp.MustCompile(`(://[^/\s:@'"]+:)[^@\s/'"]+(@)`),
}

// tokenHints are, for each of tokenShapes, literals one of which every
// match contains: a text holding none of them cannot match, and the
// regular expression is not run on it, which spares most messages every
// expression (docs/performance.md). nil means the case-insensitive
// "bearer". hintsIn searches for them; its tests hold it to this list.
var tokenHints = [][]string{
	{"PRIVATE KEY-----"},
	{"sk-"},
	{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"},
	{"github_pat_"},
	{"glpat-"},
	{"xox"},
	{"AKIA", "ASIA"},
	{"AIza"},
	{"hf_"},
	{"npm_"},
	{"_live_", "_test_"},
	{"eyJ"},
	nil,
	{"://"},
}

// hintsIn is the set of the shapes s holds a hint of: bit i set when s
// holds one of tokenHints[i] ("bearer" in any case for nil). Searching s
// for each of the 23 hints in turn, most of them beginning with letters
// code is full of (s, g, h, n, e, b), cost more than the rest of
// redacting; here each byte a hint needs that code holds few of ('-',
// '_', 'A', 'J', 'b', 'B') is searched for once, and the hints around it
// are checked where it is found.
func hintsIn(s string) uint16 {
	var set uint16
	if strings.Contains(s, "PRIVATE KEY-----") {
		set |= 1 << 0
	}
	for i := range bytePositions(s, '-') {
		if i >= 2 && s[i-2:i] == "sk" {
			set |= 1 << 1
		}
		if i >= 5 && s[i-5:i] == "glpat" {
			set |= 1 << 4
		}
	}
	for i := range bytePositions(s, '_') {
		if i >= 3 && s[i-3] == 'g' && s[i-2] == 'h' && strings.IndexByte("pousr", s[i-1]) >= 0 {
			set |= 1 << 2
		}
		if i >= 6 && s[i-6:i] == "github" && strings.HasPrefix(s[i:], "_pat_") {
			set |= 1 << 3
		}
		if i >= 2 && s[i-2:i] == "hf" {
			set |= 1 << 8
		}
		if i >= 3 && s[i-3:i] == "npm" {
			set |= 1 << 9
		}
		if rest := s[i:]; strings.HasPrefix(rest, "_live_") || strings.HasPrefix(rest, "_test_") {
			set |= 1 << 10
		}
	}
	if strings.Contains(s, "xox") {
		set |= 1 << 5
	}
	for i := range bytePositions(s, 'A') {
		switch rest := s[i+1:]; {
		case strings.HasPrefix(rest, "KIA") || strings.HasPrefix(rest, "SIA"):
			set |= 1 << 6
		case strings.HasPrefix(rest, "Iza"):
			set |= 1 << 7
		}
	}
	for i := range bytePositions(s, 'J') {
		if i >= 2 && s[i-2:i] == "ey" {
			set |= 1 << 11
		}
	}
	if set&(1<<12) == 0 && (bearerAt(s, 'b') || bearerAt(s, 'B')) {
		set |= 1 << 12
	}
	if strings.Contains(s, "://") {
		set |= 1 << 13
	}
	return set
}

// bytePositions yields the positions of c in s.
func bytePositions(s string, c byte) func(yield func(int) bool) {
	return func(yield func(int) bool) {
		for i := 0; ; i++ {
			j := strings.IndexByte(s[i:], c)
			if j < 0 {
				return
			}
			i += j
			if !yield(i) {
				return
			}
		}
	}
}

// bearerAt reports whether "bearer", in any case, starts at a b (or B) of
// s.
func bearerAt(s string, b byte) bool {
	for i := range bytePositions(s, b) {
		if r := s[i:]; len(r) >= 6 && r[1]|0x20 == 'e' && r[2]|0x20 == 'a' && r[3]|0x20 == 'r' && r[4]|0x20 == 'e' && r[5]|0x20 == 'r' {
			return true
		}
	}
	return false
}

// literal reports whether v reads as a literal value rather than code: no
// spaces, calls, indexing or quotes left in it.
func literal(v string) bool {
	return v != "" && !strings.ContainsAny(v, " \t()[]{}'\"`,;<>$")
}

func classes(v string) (letters, digits, symbols bool) {
	for _, c := range v {
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letters = true
		case c >= '0' && c <= '9':
			digits = true
		default:
			symbols = true
		}
	}
	return
}

// codeLike reports a value made of letters, underscores and dots only: a
// name or a dotted path (django.contrib.auth, basic), which is code, not a
// secret, whatever the variable is called.
func codeLike(v string) bool {
	for _, c := range []byte(v) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// secretValue decides whether the value of name=value is a secret: a
// literal of six characters or more under a secret-sounding name, unless
// it reads as a name or a dotted path; or a long literal that mixes letters
// and digits under any name.
func secretValue(name, value string) bool {
	if !literal(value) || strings.Contains(value, redacted) {
		return false
	}
	letters, digits, _ := classes(value)
	if secretname.Is(name) && len(value) >= 6 && !codeLike(value) {
		return true
	}
	return len(value) >= 16 && letters && digits
}

// envName matches NAME (upper case, as environment variables are written).
func envName(s string) bool {
	if s == "" || !(s[0] >= 'A' && s[0] <= 'Z' || s[0] == '_') {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// assignment reads NAME=value, NAME = "value" or export NAME=value from a
// line; ok is false for anything else.
func assignment(line string) (name, value string, ok bool) {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(line, "export ")
	name, value, ok = strings.Cut(line, "=")
	if !ok || strings.HasPrefix(value, "=") {
		return "", "", false
	}
	name = strings.TrimSpace(name)
	if !envName(name) {
		return "", "", false
	}
	value = strings.TrimSpace(value)
	if i := strings.Index(value, " #"); i >= 0 {
		value = strings.TrimSpace(value[:i])
	}
	if len(value) >= 2 && (value[0] == '"' || value[0] == '\'') && value[len(value)-1] == value[0] {
		value = value[1 : len(value)-1]
	}
	return name, value, true
}

// add records secret values, each once.
func (r *redactor) add(values ...string) {
	for _, v := range values {
		if !r.seen[v] {
			r.seen[v] = true
			r.values = append(r.values, v)
			r.sorted = false
		}
	}
}

// addEnvFile learns the secret values of an environment file's content.
func (r *redactor) addEnvFile(content string) {
	sc := bufio.NewScanner(strings.NewReader(content))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		if name, value, ok := assignment(sc.Text()); ok && secretValue(name, value) {
			r.add(value)
		}
	}
}

// appendSecrets appends the secret values assigned in a message or draft
// to dst, in the order they appear: an environment file shown to the
// model, or written by it, is read like one. A value may come again; the
// redactor learns each once (add).
//
// Only a line with an "=" can assign, and only when a name could end just
// before its first one (mayName): the lines are found from the "="s, and
// the others, most of a draft's or a file's, are never looked at.
func appendSecrets(dst []string, s string) []string {
	for at := 0; at < len(s); {
		// at is where a line starts.
		eq := strings.IndexByte(s[at:], '=')
		if eq < 0 {
			break
		}
		eq += at
		start := at + strings.LastIndexByte(s[at:eq], '\n') + 1
		end := len(s)
		if n := strings.IndexByte(s[eq:], '\n'); n >= 0 {
			end = eq + n + 1
		}
		if mayName(s[start:eq]) {
			if name, value, ok := assignment(s[start:end]); ok && secretValue(name, value) {
				dst = append(dst, value)
			}
		}
		at = end
	}
	return dst
}

// mayName reports whether the text before a line's first "=" could end
// with a name that assignment takes: its last byte that is not ASCII
// white space is a letter, digit or underscore of a name, or not ASCII
// (white space in another script, which assignment trims too). false
// means assignment would not take the line.
func mayName(before string) bool {
	for i := len(before) - 1; i >= 0; i-- {
		switch c := before[i]; {
		case c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r':
			continue
		case c >= utf8.RuneSelf:
			return true
		default:
			return c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
		}
	}
	return false
}

// isEnvFile reports whether a file name is an environment file: .env,
// .env.*, *.env or .envrc.
func isEnvFile(name string) bool {
	base := path.Base(name)
	return base == ".env" || base == ".envrc" || strings.HasPrefix(base, ".env.") || strings.HasSuffix(base, ".env")
}

// skipDirs are never searched for environment files.
var skipDirs = map[string]bool{".git": true, "node_modules": true, ".venv": true, "venv": true, "__pycache__": true,
	".mypy_cache": true, ".pytest_cache": true, ".tox": true}

// addRepo learns the secret values of every environment file in a
// repository, three levels deep at most.
func (r *redactor) addRepo(fsys fs.FS) error {
	return fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable corners do not stop an export
		}
		if d.IsDir() {
			if p != "." && (skipDirs[d.Name()] || strings.Count(p, "/") >= 3) {
				return fs.SkipDir
			}
			return nil
		}
		if !isEnvFile(p) || !d.Type().IsRegular() {
			return nil
		}
		b, err := fs.ReadFile(fsys, p)
		if err == nil && len(b) < 1<<20 {
			r.addEnvFile(string(b))
		}
		return nil
	})
}

// redactAndCount returns s with every known value and token-shaped string replaced,
// adding the replacements to Count.
func (r *redactor) redactAndCount(s string) string {
	r.sortValues()
	out, n := r.redact(s)
	r.Count += n
	return out
}

// sortValues puts the values longest first, so that a value inside a
// longer one does not cut it: once, after the last value is learned.
// Redactions can run on several goroutines after it.
func (r *redactor) sortValues() {
	if r.sorted {
		return
	}
	slices.SortFunc(r.values, func(a, b string) int {
		if c := cmp.Compare(len(b), len(a)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	r.sorted = true
}

// redact is redactAndCount without touching r: it returns the redacted text and
// the number of replacements, and is safe on several goroutines once the
// values are sorted.
func (r *redactor) redact(s string) (string, int) {
	n := 0
	for _, v := range r.values {
		var k int
		s, k = replaceWord(s, v)
		n += k
	}
	hints := hintsIn(s)
	for i, re := range tokenShapes {
		if hints&(1<<i) == 0 || !re.MatchString(s) {
			continue
		}
		s = re.ReplaceAllStringFunc(s, func(m string) string {
			n++
			sub := re.FindStringSubmatch(m)
			out := redacted
			if len(sub) > 1 {
				out = sub[1] + out
			}
			if len(sub) > 2 {
				out += sub[2]
			}
			return out
		})
		hints = hintsIn(s) // a replacement can make or break a later shape's hint
	}
	return s, n
}

// replaceWord replaces v where it stands as a whole value: not inside a
// longer identifier, so a value like "hunter22" does not eat "hunter222".
// It returns the number of replacements.
func replaceWord(s, v string) (string, int) {
	if !strings.Contains(s, v) {
		return s, 0
	}
	var b strings.Builder
	n := 0
	for {
		i := strings.Index(s, v)
		if i < 0 {
			b.WriteString(s)
			return b.String(), n
		}
		end := i + len(v)
		if (i > 0 && isIdent(s[i-1])) || (end < len(s) && isIdent(s[end])) {
			b.WriteString(s[:i+1])
			s = s[i+1:]
			continue
		}
		b.WriteString(s[:i])
		b.WriteString(redacted)
		n++
		s = s[end:]
	}
}

func isIdent(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
