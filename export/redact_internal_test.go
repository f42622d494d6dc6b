package export

import "testing"

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
		if !mayMatch(s, i) {
			t.Errorf("shape %d: sample %q holds none of the hints %q", i, s, tokenHints[i])
		}
	}
}
