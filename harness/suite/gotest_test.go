package suite

import (
	"context"
	"testing"
)

const goMod = "module example.com/calc\n\ngo 1.22\n"

// goTestRunCases are Go suites and what reading them must find.
var goTestRunCases = []runCase{
	{
		name: "all pass",
		files: map[string]string{
			"go.mod":       goMod,
			"calc.go":      "package calc\n\nfunc Add(a, b int) int { return a + b }\n",
			"calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"bad\")\n\t}\n}\n\nfunc TestZero(t *testing.T) {}\n",
		},
		want:       tally{Ran: 2, Passed: 2},
		wantPassed: true,
	},
	{
		name: "failures skips subtests and a panic in a subpackage",
		files: map[string]string{
			"go.mod":  goMod,
			"calc.go": "package calc\n\nfunc Add(a, b int) int { return a + b + 1 }\n",
			"calc_test.go": `package calc

import "testing"

func TestAdd(t *testing.T) {
	if got := Add(1, 2); got != 3 {
		t.Errorf("Add(1, 2) = %d, want 3", got)
	}
}

func TestOK(t *testing.T) {}

func TestLater(t *testing.T) { t.Skip("later") }

func TestTable(t *testing.T) {
	t.Run("small", func(t *testing.T) {
		t.Fatal("small broke")
	})
	t.Run("large", func(t *testing.T) {})
}
`,
			"store/store.go":      "package store\n\nvar m map[string]int\n\nfunc Put(k string) { m[k] = 1 }\n",
			"store/store_test.go": "package store\n\nimport \"testing\"\n\nfunc TestPut(t *testing.T) {\n\tPut(\"a\")\n}\n",
		},
		want: tally{Ran: 5, Passed: 1, Failed: 3, Skipped: 1, Exit: 1},
		wantFailures: []Failure{
			{Test: "TestAdd", File: "calc_test.go", Line: 7, Message: "Add(1, 2) = 4, want 3"},
			{Test: "TestTable/small", File: "calc_test.go", Line: 17, Message: "small broke"},
			{Test: "TestPut", File: "store/store.go", Line: 5, Message: "panic: assignment to entry in nil map"},
		},
		wantFirst: "Add(1, 2) = 4, want 3",
	},
	{
		name: "package that does not build",
		files: map[string]string{
			"go.mod":       goMod,
			"calc.go":      "package calc\n",
			"calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\t_ = Add(1, 2)\n}\n",
		},
		want:       tally{Errors: 1, Exit: 1},
		wantImport: []string{"example.com/calc", "calc_test.go:6", "undefined: Add"},
	},
	{
		name: "no test files",
		files: map[string]string{
			"go.mod":  goMod,
			"calc.go": "package calc\n",
		},
		want:      tally{NoTests: true},
		wantFirst: "no tests ran",
	},
}

func TestRunGoTest(t *testing.T) {
	requireGo(t)
	for _, tt := range goTestRunCases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := writeTree(t, tt.files)
			res, err := Runner{}.Run(context.Background(), dir) // Detect finds go.mod
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			logOnFailure(t, res)
			if got := tallyOf(res); got != tt.want {
				t.Errorf("counts = %+v, want %+v", got, tt.want)
			}
			if got := res.Passed(); got != tt.wantPassed {
				t.Errorf("Passed() = %v, want %v", got, tt.wantPassed)
			}
			if len(tt.wantImport) == 0 && res.Counts.ImportError != "" {
				t.Errorf("ImportError = %q, want none", res.Counts.ImportError)
			}
			checkContains(t, "ImportError", res.Counts.ImportError, tt.wantImport...)
			if tt.wantFailures != nil {
				if len(res.Failures) != len(tt.wantFailures) {
					t.Errorf("got %d failures, want %d: %+v", len(res.Failures), len(tt.wantFailures), res.Failures)
				}
				for i := range min(len(res.Failures), len(tt.wantFailures)) {
					got := res.Failures[i]
					want := tt.wantFailures[i]
					// A panic's message grows suffixes across Go releases
					// ("[recovered]"); the start is what matters.
					if got.Test != want.Test || got.File != want.File || got.Line != want.Line || !hasPrefix(got.Message, want.Message) {
						t.Errorf("failure %d = %+v, want %+v", i, got, want)
					}
				}
			}
			checkContains(t, "FirstFailure()", res.FirstFailure(), tt.wantFirst)
		})
	}
}

func hasPrefix(s, prefix string) bool { return len(s) >= len(prefix) && s[:len(prefix)] == prefix }

// A panic's frame names the repository's file whether or not the build
// trims paths: GOFLAGS=-trimpath (a user's, or a build script's carried
// into the suite) prints "example.com/calc/store/store.go" for the
// module's file and "testing/testing.go" for the standard library's.
func TestRunGoTestPanicFrameWithAndWithoutTrimpath(t *testing.T) {
	requireGo(t)
	panicCase := goTestRunCases[1]
	if panicCase.name != "failures skips subtests and a panic in a subpackage" {
		t.Fatalf("goTestRunCases[1] is %q: the panic case moved", panicCase.name)
	}
	want := Failure{Test: "TestPut", File: "store/store.go", Line: 5, Message: "panic: assignment to entry in nil map"}
	for _, goflags := range []string{"", "-trimpath"} {
		t.Run("GOFLAGS="+goflags, func(t *testing.T) {
			t.Setenv("GOFLAGS", goflags)
			dir := writeTree(t, panicCase.files)
			res, err := Runner{}.Run(context.Background(), dir)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			logOnFailure(t, res)
			var got *Failure
			for i := range res.Failures {
				if res.Failures[i].Test == want.Test {
					got = &res.Failures[i]
				}
			}
			if got == nil {
				t.Fatalf("no failure of %s in %+v", want.Test, res.Failures)
			}
			if got.File != want.File || got.Line != want.Line || !hasPrefix(got.Message, want.Message) {
				t.Errorf("failure = %+v, want %+v", *got, want)
			}
		})
	}
}
