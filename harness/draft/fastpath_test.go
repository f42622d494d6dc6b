package draft

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
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
	{"list", listRE, mayOpenList},
	{"label", labelRE, mayOpenLabel},
	{"label line", labelLineRE, mayOpenLabelLine},
	{"python call", pyCallStartRE, mayBePyCall},
	{"function tag", functionOpenRE, mayHoldFunctionTag},
	{"xml tool", xmlOpenRE, func(s string) bool { return strings.Contains(s, "<") }},
	{"name comment", nameCommentRE, func(s string) bool { return strings.ContainsAny(s, "#/") }},
	{"react action", reactActionRE, func(s string) bool { return strings.Contains(s, "Action") }},
	{"window", windowRE, func(s string) bool { return strings.IndexByte(s, ':') >= 0 }},
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

// plainTests are string tests that stand for a regular expression: each
// must agree with it on every sample.
var plainTests = []struct {
	name string
	re   *regexp.Regexp
	test func(string) string
}{
	{"heading", regexp.MustCompile(`^#{1,6}\s+`), headingMark},
	{"python call name", regexp.MustCompile(`^([A-Za-z_]\w*)\s*\(`), func(s string) string {
		if n := pyCallName(s); n != "" {
			return s[:strings.IndexByte(s, '(')+1]
		}
		return ""
	}},
	{"hunk head", regexp.MustCompile(`^@@.*@@|^@@\s*$`), func(s string) string { return yes(isHunkHead(s)) }},
	{"divider", regexp.MustCompile(`^\s*={5,9}\s*$`), func(s string) string { return yes(isDivider(s)) }},
	{"python", regexp.MustCompile(`^(?:python(?:3(?:\.\d+)?)?|py)$`), func(s string) string { return yes(isPython(s)) }},
	{"lead word", regexp.MustCompile(`^[A-Za-z_]+`), leadWord},
	{"names reasoning", regexp.MustCompile(`(?i)think|thought|reason|analysis`), func(s string) string { return yes(NamesReasoning(s)) }},
	{"mark", regexp.MustCompile(`[^\w\s]`), func(s string) string { return yes(hasMark(s)) }},
}

// yes stands for a match of a test that only says whether one exists.
func yes(ok bool) string {
	if ok {
		return "match"
	}
	return ""
}

// TestPlainTestsAgreeWithRegexps checks each plain string test against
// the expression it stands for, on the golden drafts' lines and on
// spellings at their edges.
func TestPlainTestsAgreeWithRegexps(t *testing.T) {
	samples := append(guardSamples(t), "####### x", "#\tx", "x\f(", "\f===== ", "=====", "==========", " ===== ", "python3.12", "python3.", "python3.x", "py", "pythons",
		"THOUGHT", "ReAsOnInG", "<|think|>", "analysi", "x(", "x (", "1x(", "@@ -1 +1 @@", "@@  ", "@@x")
	for _, s := range samples {
		for _, p := range plainTests {
			m := p.re.FindString(s)
			if p.re.MatchString(s) && m == "" {
				m = "match"
			}
			got := p.test(s)
			if (got == "") != !p.re.MatchString(s) || (got != "match" && got != m) {
				t.Errorf("%s: %q: the string test gives %q, the expression %q", p.name, s, got, m)
			}
		}
	}
	// tagStarts finds where </?[A-Za-z_] matches.
	re := regexp.MustCompile(`</?[A-Za-z_]`)
	for _, s := range samples {
		var want []int
		for _, m := range re.FindAllStringIndex(s, -1) {
			want = append(want, m[0])
		}
		if got := tagStarts(s); !slices.Equal(got, want) {
			t.Errorf("tagStarts(%q) = %v; the expression finds %v", s, got, want)
		}
	}
}
