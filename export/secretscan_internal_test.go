package export

import (
	"slices"
	"strings"
	"testing"
)

// secretsByLine is appendSecrets as it read every line: what the scan
// from the "="s must find, value for value.
func secretsByLine(dst []string, s string) []string {
	for line := range strings.Lines(s) {
		if name, value, ok := assignment(line); ok && secretValue(name, value) {
			dst = append(dst, value)
		}
	}
	return dst
}

// FuzzAppendSecrets holds appendSecrets, which looks only at the lines
// an "=" may make assignments, to reading every line.
func FuzzAppendSecrets(f *testing.F) {
	for _, s := range []string{
		"API_KEY=sk-live-4f9a8b7c6d5e4f3a2b1c\n",
		"x = 1\nSTRIPE_KEY = \"rk-9911-tangerine\"\nSECRET = os.environ[\"SECRET\"]\n",
		"export GITHUB_TOKEN=ghp_abcdefghij0123456789\r\nno = here",
		"TOKEN\u00a0= abcdefghijklmnop1234567890",
		"PASSWORD\u2003=\u2003hunter2hunter2\nA==b\n==\n=\nB = c # note",
		"\tDB_PASS  =  'correct-horse-battery-9'\n\nlast_line_without_newline=abc",
		"a=b=c\nKEY=abc=def123456789012345\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := appendSecrets(nil, s), secretsByLine(nil, s); !slices.Equal(got, want) {
			t.Fatalf("appendSecrets(%q) = %q, reading every line finds %q", s, got, want)
		}
	})
}
