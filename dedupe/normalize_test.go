package dedupe

import (
	"encoding/binary"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

func TestAppendNormalized(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"plain", "READ a.py", "READ a.py"},
		{"crlf", "a\r\nb\r\n", "a\nb"},
		{"lone cr kept inside a line", "a\rb", "a\rb"},
		{"trailing spaces and tabs", "x = 1  \t\ny = 2 \n", "x = 1\ny = 2"},
		{"indentation kept", "def f():\n    return 1\n\treturn 2", "def f():\n    return 1\n\treturn 2"},
		{"blank-line run collapsed", "a\n\n\n\nb", "a\n\nb"},
		{"one blank line kept", "a\n\nb", "a\n\nb"},
		{"whitespace-only lines are blank", "a\n  \n\t\n \r\nb", "a\n\nb"},
		{"leading and trailing blank lines dropped", "\n\n  \na\n\n\n", "a"},
		{"unittest duration", "Ran 3 tests in 0.002s\n\nOK", "Ran 3 tests in <dur>\n\nOK"},
		{"pytest duration", "5 passed in 0.12s", "5 passed in <dur>"},
		{"go test duration", "--- PASS: TestX (0.00s)", "--- PASS: TestX (<dur>)"},
		{"milliseconds", "took 340ms and 1.5ms", "took <dur> and <dur>"},
		{"whole seconds are content", "sleep 3s", "sleep 3s"},
		{"float in code kept", "time.sleep(0.5)", "time.sleep(0.5)"},
		{"version not a duration", "v1.2s", "v1.2s"},
		{"identifier with digits kept", "x1.5s", "x1.5s"},
		{"timestamp utc", "at 2026-11-29T23:34:57.497559078Z done", "at <time> done"},
		{"timestamp offset", "2026-01-02 03:04:05+01:00", "<time>"},
		{"timestamp minutes", "2026-01-02T03:04", "<time>"},
		{"date alone is content", "released 2026-01-02", "released 2026-01-02"},
		{"temp path", "File \"/tmp/pyharness-ws-123456/app/config.py\", line 4", "File \"/tmp/<tmp>/app/config.py\", line 4"},
		{"var tmp path", "/var/tmp/abc/x", "/var/tmp/<tmp>/x"},
		{"relative tmp dir kept", "src/tmp/x.py", "src/tmp/x.py"},
		{"workspace name alone", "cd pyharness-ws-98765 now", "cd <tmp> now"},
		{"case copy name", "pyharness-case-42_a", "<tmp>"},
		{"run id", "run bench-csv-export-p1-4f693842bd39 ended", "run <run-id> ended"},
		{"dogfood run id", "dogfood-my_tool-p12-0123456789ab", "<run-id>"},
		{"not a run id: short hash", "bench-csv-export-p1-4f69", "bench-csv-export-p1-4f69"},
		{"not a run id: no pass", "bench-csv-export-4f693842bd39", "bench-csv-export-4f693842bd39"},
		{"not a run id: inside a word", "xbench-a-p1-4f693842bd39", "xbench-a-p1-4f693842bd39"},
		{"object address", "<Foo object at 0x7f3b2c1d0e80>", "<Foo object at <addr>>"},
		{"hex constant in code kept", "MASK = 0xDEADBEEF", "MASK = 0xDEADBEEF"},
		{"unicode kept", "naïve — ok  ", "naïve — ok"},
		{"tab-only trailing", "x\t", "x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := normalizeString(tt.in)
			if got != tt.want {
				t.Errorf("normalise %q\n got %q\nwant %q", tt.in, got, tt.want)
			}
			if again := normalizeString(got); again != got {
				t.Errorf("not idempotent: %q → %q", got, again)
			}
			if ref := referenceNormalize(tt.in); ref != tt.want {
				t.Errorf("the reference normaliser disagrees with the table: %q", ref)
			}
		})
	}
}

// referenceNormalize is an independent, slow statement of the same rules
// with regular expressions, against which the single-pass one is checked.
func referenceNormalize(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		l = strings.TrimRight(l, " \t\r")
		for _, r := range refRules {
			l = r.re.ReplaceAllString(l, r.to)
		}
		lines[i] = l
	}
	s = strings.Join(lines, "\n")
	s = regexp.MustCompile(`\n\n\n+`).ReplaceAllString(s, "\n\n")
	return strings.Trim(s, "\n")
}

var refRules = []struct {
	re *regexp.Regexp
	to string
}{
	{regexp.MustCompile(`(^|[^A-Za-z0-9_.\-])(/tmp/|/var/tmp/)[^/ \t"'` + "`" + `)\]>,:;<][^/ \t"'` + "`" + `)\]>,:;]*`), "$1$2<tmp>"},
	{regexp.MustCompile(`(^|[^A-Za-z0-9_\-])pyharness-(ws|case)-[A-Za-z0-9_]+`), "$1<tmp>"},
	{regexp.MustCompile(`(^|[^A-Za-z0-9_\-])(bench|dogfood|adhoc)-[A-Za-z0-9_\-]*-p[0-9]+-[0-9a-f]{12}($|[^A-Za-z0-9_\-])`), "$1<run-id>$3"},
	{regexp.MustCompile(`(^|[^A-Za-z0-9_.])[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}(:[0-9]{2}([.,][0-9]+)?)?(Z|[+-][0-9]{2}:?[0-9]{2})?($|[^A-Za-z0-9_])`), "$1<time>$5"},
	{regexp.MustCompile(`(^|[^A-Za-z0-9_.])([0-9]+\.[0-9]+m?s|[0-9]+ms)($|[^A-Za-z0-9_])`), "$1<dur>$3"},
	{regexp.MustCompile(`(at )0x[0-9a-fA-F]{6,}($|[^A-Za-z0-9_])`), "$1<addr>$2"},
}

func FuzzAppendNormalized(f *testing.F) {
	for _, s := range []string{"a\r\n\n\nb  ", "Ran 1 test in 0.001s", "/tmp/x/y", "bench-a-p1-0123456789ab", "at 0x7f00000000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := normalizeString(s)
		if again := normalizeString(got); again != got {
			t.Fatalf("not idempotent: %q → %q → %q", s, got, again)
		}
		if strings.Contains(got, "\r\n") || strings.Contains(got, "\n\n\n") || strings.HasSuffix(got, " ") {
			t.Fatalf("not normal: %q → %q", s, got)
		}
	})
}

// appendLineBytewise is appendLine as it was before it scanned eight bytes
// at a time: one byte at a time, word runs skipped whole. The fuzz target
// below holds the two to the same output.
func appendLineBytewise(dst, line []byte) []byte {
	start := 0
	i := 0
	for i < len(line) {
		cl := class[line[i]]
		if cl == clOther {
			i++
			continue
		}
		if cl != clWord {
			var prev byte
			switch {
			case i > 0 && i == start:
				prev = dst[len(dst)-1]
			case i > 0:
				prev = line[i-1]
			}
			if !word[prev] {
				if n, ph, keep := volatile(line, i, prev); n > 0 {
					dst = append(dst, line[start:i+keep]...)
					dst = append(dst, ph...)
					i += n
					start = i
					continue
				}
			}
			if cl == clSlash {
				i++
				continue
			}
		}
		for i++; i < len(line) && word[line[i]]; i++ {
		}
	}
	return append(dst, line[start:]...)
}

// The eight-bytes-at-a-time scan finds every token the byte-by-byte one
// finds, and nothing else.
func FuzzAppendLineMatchesBytewise(f *testing.F) {
	for _, s := range []string{"Ran 1 test in 0.001s", "x/tmp/x/y /tmp/abc", "id=bench-a-p1-0123456789ab;", "at 0x7f00000000",
		"2026-01-02T03:04:05Z and 12.5ms", "pyharness-ws-abc123 pyharness-case-x", "éé/tmp/é 0.1s", "_0.1s a0.1s .0.1s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := appendLine(nil, []byte(s))
		want := appendLineBytewise(nil, []byte(s))
		if string(got) != string(want) {
			t.Fatalf("%q: eight at a time %q, byte by byte %q", s, got, want)
		}
	})
}

// startsIn marks every byte a byte-by-byte test marks (it may mark more:
// appendLine checks each mark again).
func TestStartsInMarksEveryStart(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("/09abcdepyzAZ_ .-:<>\x80\xff`@[{")
	extra := 0
	for range 100_000 {
		var b [8]byte
		for k := range b {
			if rng.IntN(4) == 0 {
				b[k] = byte(rng.IntN(256))
			} else {
				b[k] = alphabet[rng.IntN(len(alphabet))]
			}
		}
		prevWord := rng.IntN(2) == 0
		got := startsIn(binary.LittleEndian.Uint64(b[:]), prevWord)
		for k, c := range b {
			pw := prevWord
			if k > 0 {
				pw = word[b[k-1]]
			}
			cl := class[c]
			want := (cl == clTrigger || cl == clSlash) && !pw
			mark := got>>(8*k+7)&1 == 1
			if want && !mark {
				t.Fatalf("%q (prev word %v): byte %d is a start and not marked", b, prevWord, k)
			}
			if mark && !want {
				extra++
			}
		}
	}
	if extra > 100_000 { // about one byte in eight of these random ones
		t.Fatalf("%d marks of 800000 bytes are not starts: the scan passes over too little", extra)
	}
}
