package draft

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// guards are the byte checks Parse makes before a regexp runs: each must
// hold for every string the regexp matches, or a shortcut would skip a
// match the regexp alone finds.
var guards = []struct {
	name string
	re   *regexp.Regexp
	may  func(string) bool
}{
	{"heading", headingRE, mayOpenHeading},
	{"list", listRE, mayOpenList},
	{"label", labelRE, mayOpenLabel},
	{"label line", labelLineRE, mayOpenLabelLine},
	{"python name", pyNameRE, mayBePyCall},
	{"python call", pyCallStartRE, mayBePyCall},
	{"function tag", functionOpenRE, mayHoldFunctionTag},
	{"xml tool", xmlOpenRE, func(s string) bool { return strings.Contains(s, "<") }},
	{"name comment", nameCommentRE, func(s string) bool { return strings.ContainsAny(s, "#/") }},
	{"react action", reactActionRE, func(s string) bool { return strings.Contains(s, "Action") }},
	{"window", windowRE, func(s string) bool { return strings.IndexByte(s, ':') >= 0 }},
	{"hunk head", hunkHeadRE, func(s string) bool { return strings.HasPrefix(s, "@@") }},
}

// guardSamples are lines every guard is tried on: each line of every
// golden draft, trimmed as matchHead trims it, and the spellings at the
// edges of the guards (letters (?i) folds from outside ASCII, "•").
func guardSamples(t testing.TB) []string {
	samples := []string{
		"", "ſtep: READ x.py", "ſearch:", "STEP 2: READ x.py", "• READ x.py", "(1) READ x.py",
		"12) RUN tests", "#### READ x.py", "Next action: READ x.py", "**Action:** read_file",
		"x.py:10-20", "@@ -1,2 +1,2 @@", "@@", "read_file(path='x.py')", "os.path.join(a)",
		"write_file[ARGS]{}", "<｜tool▁call▁begin｜>", ">>>read_file\n{}", "<|channel|>commentary to=functions.read",
		"Find:", "print(x)", "_x(1)", "<invoke name=\"read\">", "<function=read_file>", "# x.py", "// a/b.go", "original code:", "With:", "K", "\u212a", "Response: DONE",
	}
	names, err := filepath.Glob(filepath.Join("testdata", "*.draft"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		samples = append(samples, string(b))
		for _, l := range strings.Split(string(b), "\n") {
			samples = append(samples, l, strings.TrimSpace(l), strings.TrimLeft(l, " \t#>*-0123456789.) "))
		}
	}
	return samples
}

func checkGuards(t *testing.T, s string) {
	t.Helper()
	for _, g := range guards {
		if g.re.MatchString(s) && !g.may(s) {
			t.Errorf("%s: %q matches %v, but its guard says it cannot", g.name, s, g.re)
		}
	}
	// fileBody without splitting is the split, trimmed and joined text.
	want := strings.Join(trimBlankLines(strings.Split(s, "\n")), "\n") + "\n"
	if got := fileBody(s); got != want {
		t.Errorf("fileBody(%q) = %q; the lines trimmed of blank ones are %q", s, got, want)
	}
	d := textDoc(s)
	if d.joined() != strings.Join(d.lines, "\n") {
		t.Errorf("textDoc(%q) keeps text that is not its lines joined", s)
	}
	// A block's content taken from the text is the one made of its lines.
	for _, b := range d.blocks {
		got, gotDedented := d.content(b)
		want, wantDedented := b.content(d.lines)
		if got != want || gotDedented != wantDedented {
			t.Errorf("block at line %d of %q: content %q, %v; from its lines %q, %v", b.open, s, got, gotDedented, want, wantDedented)
		}
	}
}

// TestFastPathsAgreeWithRegexps checks every shortcut Parse takes against
// the general path on the golden drafts' lines.
func TestFastPathsAgreeWithRegexps(t *testing.T) {
	for _, s := range guardSamples(t) {
		checkGuards(t, s)
	}
}

// FuzzFastPaths checks the shortcuts against the general path on
// arbitrary strings.
func FuzzFastPaths(f *testing.F) {
	for _, s := range guardSamples(f) {
		f.Add(s)
	}
	f.Fuzz(checkGuards)
}
