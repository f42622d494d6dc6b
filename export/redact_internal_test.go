package export

import (
	"strings"
	"testing"
)

// TestTokenHintsCoverEveryShape keeps the hints in step with the shapes:
// a text that matches a shape must hold one of its hints.
func TestTokenHintsCoverEveryShape(t *testing.T) {
	if len(tokenHints) != len(tokenShapes) {
		t.Fatalf("%d hints for %d shapes", len(tokenHints), len(tokenShapes))
	}
	samples := []string{
		"-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----",
		"sk-proj-abcdefghijklmnopqrstuvwx",
		"ghs_abcdefghijklmnopqrstuvwxyz0123456789",
		"github_pat_abcdefghijklmnopqrstuvwxyz0123456789",
		"glpat-abcdefghijklmnopqrstu",
		"xoxb-1234567890-abc",
		"ASIAABCDEFGHIJKLMNOP",
		"AIzaabcdefghijklmnopqrstuvwxyz012345678",
		"hf_abcdefghijklmnopqrstuvwxyz0123456789",
		"npm_abcdefghijklmnopqrstuvwxyz0123456789",
		"rk_test_abcdefghijklmnop",
		"eyJabcdefghijk.eyJabcdefghijk.abcdefghijk",
		"Authorization: BeArEr abcdefghijklmnopqrstuvwxyz",
		"postgres://user:hunter2@db",
	}
	for i, re := range tokenShapes {
		s := samples[i]
		if !re.MatchString(s) {
			t.Errorf("shape %d does not match its sample %q", i, s)
		}
		if !mayMatch(s, i) || hintsIn(s)&(1<<i) == 0 {
			t.Errorf("shape %d: sample %q holds none of the hints %q", i, s, tokenHints[i])
		}
	}
}

// mayMatch reports whether s holds a hint of tokenShapes[i], as hintsIn
// must find it.
func mayMatch(s string, i int) bool {
	hints := tokenHints[i]
	if hints == nil {
		return containsFoldASCII(s, "bearer")
	}
	for _, h := range hints {
		if strings.Contains(s, h) {
			return true
		}
	}
	return false
}

// containsFoldASCII reports whether s contains the lower-case ASCII word
// w in any case.
func containsFoldASCII(s, w string) bool {
	for i := 0; i+len(w) <= len(s); i++ {
		j := 0
		for j < len(w) && s[i+j]|0x20 == w[j] {
			j++
		}
		if j == len(w) {
			return true
		}
	}
	return false
}

// hintTexts put every hint, and near misses of each, at the start, in the
// middle and at the end of a text.
func hintTexts() []string {
	var words []string
	for _, hints := range tokenHints {
		for _, h := range hints {
			words = append(words, h, h[:len(h)-1], strings.ToLower(h), strings.ToUpper(h))
		}
	}
	words = append(words, "bearer", "BEARER", "BeArEr", "beare", "bEaReR", "gh_", "ghx_", "ghp", "ghp-", ":/", "-----")
	var out []string
	for _, w := range words {
		out = append(out, w, "x"+w, "text before "+w+" and after", "ends with "+w, w+w)
	}
	return out
}

func TestHintsInIsMayMatch(t *testing.T) {
	for _, s := range hintTexts() {
		checkHintsIn(t, s)
	}
}

func FuzzHintsIn(f *testing.F) {
	for _, s := range hintTexts() {
		f.Add(s)
	}
	f.Fuzz(checkHintsIn)
}

func checkHintsIn(t *testing.T, s string) {
	got := hintsIn(s)
	for i := range tokenShapes {
		if want := mayMatch(s, i); (got&(1<<i) != 0) != want {
			t.Fatalf("%q: shape %d hinted %v, mayMatch says %v", s, i, got&(1<<i) != 0, want)
		}
	}
	if got>>len(tokenShapes) != 0 {
		t.Fatalf("%q: bits %b beyond the shapes", s, got)
	}
}
