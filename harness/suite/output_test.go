package suite

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCappedOutput(t *testing.T) {
	tests := []struct {
		name      string
		capacity  int
		writes    []string
		want      string
		wantTotal int64
	}{
		{name: "nothing written", capacity: 8, want: "", wantTotal: 0},
		{name: "fits", capacity: 8, writes: []string{"abc", "de"}, want: "abcde", wantTotal: 5},
		{name: "exactly full", capacity: 8, writes: []string{"abcdefgh"}, want: "abcdefgh", wantTotal: 8},
		{name: "one byte over", capacity: 8, writes: []string{"abcdefghi"}, want: "abcd\n[... 1 bytes cut ...]\nfghi", wantTotal: 9},
		{name: "many small writes wrap the tail", capacity: 8, writes: []string{"ab", "cd", "ef", "gh", "ij", "kl", "m"}, want: "abcd\n[... 5 bytes cut ...]\njklm", wantTotal: 13},
		{name: "one huge write", capacity: 8, writes: []string{strings.Repeat("x", 1000) + "OK!!"}, want: "xxxx\n[... 996 bytes cut ...]\nOK!!", wantTotal: 1004},
		{name: "tail write larger than the tail", capacity: 8, writes: []string{"abcd", "0123456789"}, want: "abcd\n[... 6 bytes cut ...]\n6789", wantTotal: 14},
		{name: "head ending inside a rune stops before it", capacity: 8, writes: []string{"abcé" + strings.Repeat("-", 10) + "ééé"}, want: "abc\n[... 14 bytes cut ...]\néé", wantTotal: 21},
		{name: "tail starting inside a rune starts after it", capacity: 8, writes: []string{"abcd----éabc"}, want: "abcd\n[... 6 bytes cut ...]\nabc", wantTotal: 13},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCappedOutput(tt.capacity)
			for _, w := range tt.writes {
				if n, err := c.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(w))
				}
			}
			if got := c.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
			if got := c.Total(); got != tt.wantTotal {
				t.Errorf("Total() = %d, want %d", got, tt.wantTotal)
			}
		})
	}
}

// A suite that prints megabytes costs a fixed amount of memory, and its
// counts, printed last, are still read. Not parallel: it measures this
// process's allocations while the suite runs.
var largeOutputCases = []struct {
	name  string
	kind  Kind
	needs func(*testing.T)
	files map[string]string
	want  tally
}{
	{
		name: "unittest test printing ten megabytes", kind: Unittest, needs: func(t *testing.T) { requirePython(t) },
		files: map[string]string{
			"test_loud.py": "import unittest\n\nclass LoudTest(unittest.TestCase):\n    def test_loud(self):\n        print('x' * 10_000_000)\n\n    def test_fails(self):\n        self.assertEqual(1, 2)\n",
		},
		want: tally{Ran: 2, Passed: 1, Failed: 1, Exit: 1},
	},
	{
		name: "pytest failure with ten megabytes captured", kind: Pytest, needs: requirePytest,
		files: map[string]string{
			"test_loud.py": "def test_loud():\n    print('x' * 10_000_000)\n    assert 1 == 2\n\ndef test_ok():\n    pass\n",
		},
		want: tally{Ran: 2, Passed: 1, Failed: 1, Exit: 1},
	},
	{
		name: "go test printing ten megabytes", kind: GoTest, needs: requireGo,
		files: map[string]string{
			"go.mod":       goMod,
			"loud_test.go": "package calc\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n\t\"testing\"\n)\n\nfunc TestLoud(t *testing.T) { fmt.Println(strings.Repeat(\"x\", 10_000_000)) }\n\nfunc TestQuiet(t *testing.T) {}\n",
		},
		want: tally{Ran: 2, Passed: 2},
	},
}

func TestLargeOutputIsCapped(t *testing.T) {
	const printed = 10_000_000
	for _, tt := range largeOutputCases {
		t.Run(tt.name, func(t *testing.T) {
			tt.needs(t)
			dir := writeTree(t, tt.files)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			res, err := Runner{Kind: tt.kind}.Run(context.Background(), dir)
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			logOnFailure(t, res)
			if got := tallyOf(res); got != tt.want {
				t.Errorf("counts = %+v, want %+v", got, tt.want)
			}
			if res.OutputBytes < printed {
				t.Errorf("OutputBytes = %d, want at least %d", res.OutputBytes, printed)
			}
			if len(res.Output) > defaultOutputCap+100 {
				t.Errorf("len(Output) = %d, want at most the cap %d and a marker", len(res.Output), defaultOutputCap)
			}
			if !strings.Contains(res.Output, " bytes cut ...]") {
				t.Error("Output has no cut marker")
			}
			if !utf8.ValidString(res.Output) {
				t.Error("Output is not valid UTF-8")
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > printed/4 {
				t.Errorf("allocated %d bytes while the suite printed %d; the output is not capped", alloc, res.OutputBytes)
			}
		})
	}
}
