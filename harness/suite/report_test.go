package suite

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// textCommands are the default commands given as custom commands: the
// reader follows the runner that ran, so they ask for the same report.
var textCommands = map[Kind]string{
	Pytest: "{python} -m pytest -q -rfE -p no:cacheprovider",
	GoTest: "go test -v -count=1 ./...",
}

// Over every pytest and go test fixture of this package, the counts read
// from the runner's report agree with the text reader's: over the same run
// (the text of the run whose counts came from the report), and against a
// run of the same suite read from its text alone, failures included.
func TestStructuredCountsAgreeWithText(t *testing.T) {
	type fixture struct {
		name    string
		kind    Kind
		files   map[string]string
		timeout time.Duration
		// report says the runner leaves a complete report: not when
		// pytest stops before its session (a conftest that does not
		// import) or is killed.
		report bool
	}
	var fixtures []fixture
	for _, c := range pytestRunCases {
		fixtures = append(fixtures, fixture{name: "pytest/" + c.name, kind: Pytest, files: c.files, report: c.want.Exit != 4})
	}
	for _, c := range goTestRunCases {
		fixtures = append(fixtures, fixture{name: "go/" + c.name, kind: GoTest, files: c.files, report: true})
	}
	fixtures = append(fixtures, fixture{name: "pytest/no tests", kind: Pytest, files: emptyPython, report: true})
	for _, c := range largeOutputCases {
		if c.kind != Unittest {
			fixtures = append(fixtures, fixture{name: string(c.kind) + "/" + c.name, kind: c.kind, files: c.files, report: true})
		}
	}
	for _, c := range timeoutCases {
		if c.kind != Unittest {
			// go test's events come as they happen: a killed run has
			// them up to the kill, once the test binary started. Its
			// compile and link come first, and on a loaded machine take
			// more than the 3 s a Python suite is given.
			timeout := 3 * time.Second
			if c.kind == GoTest {
				timeout = 30 * time.Second
			}
			fixtures = append(fixtures, fixture{name: string(c.kind) + "/" + c.name, kind: c.kind, files: c.files, timeout: timeout, report: c.kind == GoTest})
		}
	}
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			if f.kind == Pytest {
				requirePytest(t)
			} else {
				requireGo(t)
			}
			ctx := context.Background()
			structured, err := Runner{Kind: f.kind, Timeout: f.timeout}.Run(ctx, writeTree(t, f.files))
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			logOnFailure(t, structured)
			text, err := Runner{Kind: f.kind, Command: textCommands[f.kind], Timeout: f.timeout}.Run(ctx, writeTree(t, f.files))
			if err != nil {
				t.Fatalf("Run %q: %v", textCommands[f.kind], err)
			}
			logOnFailure(t, text)

			wantFrom := fromOutput
			if f.report {
				wantFrom = map[Kind]string{Pytest: fromJUnitXML, GoTest: fromGoTestJSON}[f.kind]
			}
			if structured.CountsFrom != wantFrom {
				t.Errorf("default command: counts from %q, want %q", structured.CountsFrom, wantFrom)
			}
			// The reader follows what ran: a custom command of the same
			// runner asks for the same report.
			if text.CountsFrom != wantFrom {
				t.Errorf("custom command: counts from %q, want %q", text.CountsFrom, wantFrom)
			}
			if strings.Join(structured.Command, " ") != strings.Join(text.Command, " ") {
				t.Errorf("Command = %q, want the command a person runs, %q", structured.Command, text.Command)
			}

			// The same run, read from its text.
			rd := textReading(f.kind, structured, t.TempDir())
			sc := structured.Counts
			if got, want := [5]int{sc.Ran, sc.Passed, sc.Failed, sc.Errors, sc.Skipped}, [5]int{rd.ran, max(rd.passed, 0), rd.failed, rd.errors, rd.skipped}; got != want {
				t.Errorf("same run: ran, passed, failed, errors, skipped = %v from %s, %v from the text", got, structured.CountsFrom, want)
			}
			// Another run of the suite, read as before.
			if got, want := tallyOf(structured), tallyOf(text); got != want {
				t.Errorf("counts = %+v, read from the text alone %+v", got, want)
			}
			if got, want := structured.Counts.ImportError, text.Counts.ImportError; got != want {
				t.Errorf("ImportError = %q, read from the text alone %q", got, want)
			}
			if len(structured.Failures) != len(text.Failures) {
				t.Fatalf("%d failures, %d read from the text alone: %+v\n%+v", len(structured.Failures), len(text.Failures), structured.Failures, text.Failures)
			}
			for i, got := range structured.Failures {
				want := text.Failures[i]
				// A panic's message holds addresses that differ from run
				// to run; the start is what matters.
				if got.Test != want.Test || got.File != want.File || got.Line != want.Line || !hasPrefix(got.Message, strings.SplitN(want.Message, " [", 2)[0]) {
					t.Errorf("failure %d = %+v, read from the text alone %+v", i, got, want)
				}
			}
		})
	}
}

// textReading is what the text reader makes of a run's output.
func textReading(kind Kind, res *Result, dir string) reading {
	text := normalizeOutput(res.Output)
	rp := newRepoPaths(dir)
	switch kind {
	case Pytest:
		return readPytest(text, rp)
	case GoTest:
		return readGoTest(text, rp, "")
	}
	return readUnittest(text, rp, !res.Counts.TimedOut)
}

func TestJSONStringField(t *testing.T) {
	tests := []struct {
		name, obj, key, want string
		ok                   bool
	}{
		{name: "plain", obj: `{"Action":"output","Output":"ok\n"}`, key: "Output", want: "ok\n", ok: true},
		{name: "escapes", obj: `{"Output":"a\"b\\c\/d\te\r\n"}`, key: "Output", want: "a\"b\\c/d\te\r\n", ok: true},
		{name: "html escaped as go does", obj: `{"Output":"\u003cnil\u003e \u0026"}`, key: "Output", want: "<nil> &", ok: true},
		{name: "surrogate pair", obj: `{"Output":"\ud83d\ude00"}`, key: "Output", want: "😀", ok: true},
		{name: "lone surrogate", obj: `{"Output":"\ud83dx"}`, key: "Output", want: "\uFFFDx", ok: true},
		{name: "utf-8 kept", obj: `{"Output":"héllo"}`, key: "Output", want: "héllo", ok: true},
		{name: "key only as a key", obj: `{"Test":"T","Output":"\"Test\":\"x\""}`, key: "Test", want: "T", ok: true},
		{name: "missing", obj: `{"Action":"pass"}`, key: "Test", ok: false},
		{name: "unterminated", obj: `{"Output":"abc`, key: "Output", want: "abc", ok: false},
		{name: "bad escape", obj: `{"Output":"\u12"}`, key: "Output", ok: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := jsonStringField([]byte(tt.obj), tt.key, nil)
			if ok != tt.ok || (ok && string(got) != tt.want) {
				t.Errorf("jsonStringField(%s, %q) = %q, %v; want %q, %v", tt.obj, tt.key, got, ok, tt.want, tt.ok)
			}
		})
	}
}

// Events split anywhere across writes read the same as whole lines, and
// lines that are not events pass through.
func TestGoEventsAcrossWrites(t *testing.T) {
	stream := `{"Action":"run","Package":"m","Test":"TestA"}
{"Action":"output","Package":"m","Test":"TestA","Output":"=== RUN   TestA\n"}
# m [m.test]
./a_test.go:3:1: oops
{"Action":"output","Package":"m","Test":"TestA","Output":"--- PASS: TestA (0.00s)\n"}
{"Action":"pass","Package":"m","Test":"TestA"}
{"Action":"fail","Package":"m","Test":"TestB/sub"}
{"Action":"fail","Package":"m","Test":"TestB"}
{"Action":"skip","Package":"m","Test":"TestC"}
{"Action":"fail","Package":"m"}
{"Action":"fail","Package":"n","FailedBuild":"n [n.test]"}
{"Action":"output","Package":"o","Output":"no newline at the end"}`
	// Package m's text is held until m ends; the lines that are not events
	// go out as they come.
	wantText := "# m [m.test]\n./a_test.go:3:1: oops\n=== RUN   TestA\n--- PASS: TestA (0.00s)\nno newline at the end"
	for _, size := range []int{1, 2, 7, 64, len(stream)} {
		out := newCappedOutput(1 << 20)
		g := newGoEvents(out)
		for s := stream; s != ""; {
			n := min(size, len(s))
			g.Write([]byte(s[:n]))
			s = s[n:]
		}
		g.flush()
		if got := out.String(); got != wantText {
			t.Errorf("writes of %d: text = %q, want %q", size, got, wantText)
		}
		rd, ok := g.counts()
		got := [6]int{rd.ran, rd.passed, rd.failed, rd.errors, rd.skipped, map[bool]int{true: 1}[rd.summary]}
		if want := [6]int{3, 1, 1, 1, 1, 1}; !ok || got != want {
			t.Errorf("writes of %d: ran, passed, failed, errors, skipped, summary = %v, %v; want %v (the build failure is the error: package m failed with a failing test)", size, got, ok, want)
		}
		if g.raw != int64(len(stream)) {
			t.Errorf("writes of %d: raw = %d, want %d", size, g.raw, len(stream))
		}
	}
}

// go test -json interleaves the events of packages run in parallel, and
// they end in any order; each package's text comes out in one piece, in
// import-path order, so a panic in one package is not read as part of
// another and two runs of the same suite read the same.
func TestGoEventsInterleavedPackages(t *testing.T) {
	events := []struct{ pkg, test, action, output string }{
		{"m", "TestAdd", "output", "=== RUN   TestAdd\n"},
		{"m/store", "TestPut", "output", "=== RUN   TestPut\n"},
		{"m", "TestAdd", "output", "    calc_test.go:7: Add(1, 2) = 4, want 3\n"},
		{"m/store", "TestPut", "output", "--- FAIL: TestPut (0.00s)\n"},
		{"m", "TestAdd", "output", "--- FAIL: TestAdd (0.00s)\n"},
		{"m/store", "TestPut", "fail", ""},
		{"m", "TestAdd", "fail", ""},
		{"m/store", "", "output", "panic: assignment to entry in nil map\n\ngoroutine 21 [running]:\nm/store.Put(...)\n\t/repo/store/store.go:5\n"},
		{"m/store", "", "output", "FAIL\tm/store\t0.011s\n"},
		{"m/store", "", "fail", ""},
		{"m", "", "output", "FAIL\n"},
		{"m", "", "output", "FAIL\tm\t0.017s\n"},
		{"m", "", "fail", ""},
	}
	var stream strings.Builder
	for _, e := range events {
		b, err := json.Marshal(map[string]string{"Action": e.action, "Package": e.pkg, "Test": e.test, "Output": e.output})
		if err != nil {
			t.Fatal(err)
		}
		stream.Write(append(b, '\n'))
	}
	out := newCappedOutput(1 << 20)
	g := newGoEvents(out)
	g.Write([]byte(stream.String()))
	g.flush()
	want := "=== RUN   TestAdd\n    calc_test.go:7: Add(1, 2) = 4, want 3\n--- FAIL: TestAdd (0.00s)\nFAIL\nFAIL\tm\t0.017s\n" +
		"=== RUN   TestPut\n--- FAIL: TestPut (0.00s)\npanic: assignment to entry in nil map\n\ngoroutine 21 [running]:\nm/store.Put(...)\n\t/repo/store/store.go:5\nFAIL\tm/store\t0.011s\n"
	if got := out.String(); got != want {
		t.Fatalf("text =\n%s\nwant\n%s", got, want)
	}
	rd := readGoTest(out.String(), repoPaths{roots: []string{"/repo"}}, "m")
	var got []string
	for _, f := range rd.failures {
		got = append(got, fmt.Sprintf("%s %s:%d %s", f.Test, f.File, f.Line, f.Message))
	}
	wantFailures := []string{
		"TestAdd calc_test.go:7 Add(1, 2) = 4, want 3",
		"TestPut store/store.go:5 panic: assignment to entry in nil map",
	}
	if !slices.Equal(got, wantFailures) {
		t.Errorf("failures = %q, want %q", got, wantFailures)
	}
}
