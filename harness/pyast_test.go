package harness

import (
	"context"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/harness/suite"
	"github.com/pyharness/pyharness/internal/testkit/needs"
	"github.com/pyharness/pyharness/schemas"
)

// pythonForTest is the interpreter a run would parse with, or the test
// fails in CI (skips elsewhere) without one.
func pythonForTest(t testing.TB) string {
	t.Helper()
	py, err := suite.FindPython(context.Background(), "", false)
	if err != nil {
		needs.Missing(t, "no python 3 here (apt-get install -y python3): %v", err)
	}
	return py
}

func sortedNames(m map[string]bool) []string {
	var out []string
	for n := range m {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func topNames(m pyModule) []string {
	var out []string
	for _, d := range m.topDefs() {
		out = append(out, d.Kind+" "+d.Name)
	}
	return out
}

// The interpreter's parser reads what the patterns get wrong; each row
// also states what the patterns read, so that the row shows the difference.
func TestPyParserReadsWhatPatternsMiss(t *testing.T) {
	py := pythonForTest(t)
	tests := []struct {
		name string
		src  string
		// top-level definitions and module names by ast, and by pattern
		wantDefs, patternDefs   []string
		wantNames, patternNames []string
	}{
		{
			name:      "def under if TYPE_CHECKING",
			src:       "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    def typed(x: int) -> int: ...\nelse:\n    def typed(x):\n        return x\n",
			wantDefs:  []string{"def typed", "def typed"},
			wantNames: []string{"typed"},
		},
		{
			name:         "def inside a multi-line string",
			src:          "USAGE = \"\"\"\ndef x():\n    pass\ny = 2\n\"\"\"\n\ndef real():\n    return USAGE\n",
			wantDefs:     []string{"def real"},
			patternDefs:  []string{"def x", "def real"},
			wantNames:    []string{"USAGE", "real"},
			patternNames: []string{"USAGE", "real", "x", "y"},
		},
		{
			name:         "decorated and async functions",
			src:          "import functools\n\n@functools.cache\ndef cached(n):\n    return n\n\nasync def fetch():\n    pass\n\n@dataclass\nclass Point:\n    x: int = 0\n",
			wantDefs:     []string{"def cached", "def fetch", "class Point"},
			patternDefs:  []string{"def cached", "def fetch", "class Point"},
			wantNames:    []string{"Point", "cached", "fetch"},
			patternNames: []string{"Point", "cached", "fetch"},
		},
		{
			name:         "assignments: tuples, annotations, not comparisons",
			src:          "a, (b, *c) = 1, (2, 3)\nd: int = 4\ne: int\nf = g = 5\nif a == 1:\n    h = 6\n",
			wantNames:    []string{"a", "b", "c", "d", "f", "g", "h"},
			patternNames: []string{"d", "f"},
		},
		{
			name:         "fallback under try/except ImportError",
			src:          "try:\n    from fast import parse\nexcept ImportError:\n    def parse(s):\n        return s\n",
			wantDefs:     []string{"def parse"},
			wantNames:    []string{"parse"},
			patternNames: nil,
		},
		{
			name:         "methods are not the module's",
			src:          "class Store:\n    def put(self, k):\n        self.k = k\n\n    limit = 3\n",
			wantDefs:     []string{"class Store"},
			patternDefs:  []string{"class Store"},
			wantNames:    []string{"Store"},
			patternNames: []string{"Store"},
		},
	}
	p := newPyParser(py, nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mods, unparsed, broken := p.parse(context.Background(), []pySource{{name: "m.py", text: tt.src}})
			if unparsed != "" || broken != "" {
				t.Fatalf("warnings %q %q for a source that parses", unparsed, broken)
			}
			m := mods[0]
			if !m.exact {
				t.Fatal("exact = false for a source that parses")
			}
			if got := topNames(m); !slices.Equal(got, tt.wantDefs) {
				t.Errorf("ast top-level defs = %q, want %q", got, tt.wantDefs)
			}
			if got := sortedNames(m.names); !slices.Equal(got, tt.wantNames) {
				t.Errorf("ast names = %q, want %q", got, tt.wantNames)
			}
			pm := patternModule(tt.src)
			if got := topNames(pm); !slices.Equal(got, tt.patternDefs) {
				t.Errorf("pattern top-level defs = %q, want %q", got, tt.patternDefs)
			}
			if got := sortedNames(pm.names); !slices.Equal(got, tt.patternNames) {
				t.Errorf("pattern names = %q, want %q", got, tt.patternNames)
			}
		})
	}
}

// A source that does not parse is read by pattern, as before, and the
// warning names it; a batch is one process, and a source read before
// costs none.
func TestPyParserFallsBackOnSyntaxError(t *testing.T) {
	p := newPyParser(pythonForTest(t), nil)
	ctx := context.Background()
	broken := "def initials(name):\n    return (\" \".join(p[0] for p in name.split())\n\ndef other():\n    pass\n"
	srcs := []pySource{{name: "ok.py", text: "def fine():\n    pass\n"}, {name: "initials.py", text: broken}}
	mods, unparsed, why := p.parse(ctx, srcs)
	if why != "" {
		t.Fatalf("interpreter warning %q", why)
	}
	if !mods[0].exact || mods[1].exact {
		t.Errorf("exact = %v, %v; want true, false", mods[0].exact, mods[1].exact)
	}
	if got, want := sortedNames(mods[1].names), sortedNames(patternModule(broken).names); !slices.Equal(got, want) {
		t.Errorf("names of the broken source = %q, want the pattern's %q", got, want)
	}
	for _, w := range []string{string(schemas.CodeRegexFallback) + ": ", "initials.py (SyntaxError", "line 2", "read by pattern"} {
		if !strings.Contains(unparsed, w) {
			t.Errorf("warning %q does not contain %q", unparsed, w)
		}
	}
	if strings.Contains(unparsed, "ok.py") {
		t.Errorf("warning %q names a source that parsed", unparsed)
	}
	if p.processes != 1 {
		t.Errorf("%d processes for one batch, want 1", p.processes)
	}
	_, again, _ := p.parse(ctx, srcs)
	if p.processes != 1 {
		t.Errorf("%d processes after parsing the same sources again, want still 1", p.processes)
	}
	if again != unparsed {
		t.Errorf("the second parse warned %q, want the same warning %q", again, unparsed)
	}
}

// Without an interpreter every source is read by pattern; the run is told
// once, with why.
func TestPyParserWithoutInterpreter(t *testing.T) {
	p := newPyParser("/nonexistent/bin/python3", nil)
	src := "USAGE = \"\"\"\ndef x():\n\"\"\"\n"
	mods, unparsed, broken := p.parse(context.Background(), []pySource{{name: "m.py", text: src}})
	if mods[0].exact || !mods[0].names["x"] {
		t.Errorf("module = %+v, want the pattern's reading (x defined)", mods[0])
	}
	if unparsed != "" {
		t.Errorf("unparsed warning %q, want none: the source was not tried", unparsed)
	}
	for _, w := range []string{string(schemas.CodeRegexFallback) + ": ", "/nonexistent/bin/python3", "rest of the run"} {
		if !strings.Contains(broken, w) {
			t.Errorf("warning %q does not contain %q", broken, w)
		}
	}
	_, _, again := p.parse(context.Background(), []pySource{{name: "n.py", text: "y = 1\n"}})
	if again != "" {
		t.Errorf("second parse warned again: %q", again)
	}
	if p.processes != 1 {
		t.Errorf("%d interpreters started, want 1 (none after it failed)", p.processes)
	}
}

// Through the real loop: a required name defined under `if TYPE_CHECKING`
// is found, so DONE is accepted, where the pattern would have refused it;
// a draft with a syntax error is judged by pattern, and its turn says so.
func TestRunReadsDefinitionsByAST(t *testing.T) {
	pythonForTest(t)
	underIf := "WRITE initials.py\n```python\nimport sys\n\nif sys.version_info >= (3,):\n    def initials(name):\n        return \" \".join(p[0] + \".\" for p in name.split())\n```"
	out := runScripted(t, fixture, Config{TaskSpec: schemas.TaskSpec{Targets: []string{"initials.py"}, Names: []string{"initials"}}}, underIf, runTests, doneSummary)
	if code := out.turns[len(out.turns)-1].Outcome.Code; code != "" || out.res.End.StopReason != "done" {
		t.Errorf("last outcome code %q, stop %q; want DONE accepted", code, out.res.End.StopReason)
	}

	syntaxError := "WRITE initials.py\n```python\ndef initials(name):\n    return (\" \".join(p[0] for p in name.split())\n```"
	out = runScripted(t, fixture, Config{TaskSpec: schemas.TaskSpec{Targets: []string{"initials.py"}, Names: []string{"initials"}}}, syntaxError, runTests, doneSummary)
	var warned bool
	for _, w := range out.turns[0].Warnings {
		warned = warned || strings.HasPrefix(w, string(schemas.CodeRegexFallback)+": initials.py (SyntaxError")
	}
	if !warned {
		t.Errorf("turn 1 warnings = %q, want a %s warning naming initials.py", out.turns[0].Warnings, schemas.CodeRegexFallback)
	}
	if status := out.turns[0].Outcome.Status; status != "applied" {
		t.Errorf("the draft with a syntax error was %s, want applied (judged by pattern as before)", status)
	}
}

// The cost of reading definitions by ast for a run: one interpreter for a
// batch of sources the size of a small repository.
func BenchmarkPyParse(b *testing.B) {
	py := pythonForTest(b)
	var srcs []pySource
	for i := range 20 {
		srcs = append(srcs, pySource{name: "m.py", text: strings.Repeat("def f():\n    return 1\n\n", 20+i)})
	}
	for b.Loop() {
		p := newPyParser(py, nil) // a new run: nothing cached
		if mods, _, _ := p.parse(context.Background(), srcs); !mods[0].exact {
			b.Fatal("not parsed")
		}
	}
}

// A cancelled run reads by pattern without blaming the interpreter, which
// is tried again by the next parse.
func TestPyParserCancelled(t *testing.T) {
	p := newPyParser(pythonForTest(t), nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	src := "if True:\n    def hidden():\n        pass\n"
	mods, unparsed, broken := p.parse(ctx, []pySource{{name: "m.py", text: src}})
	if mods[0].exact || unparsed != "" || broken != "" {
		t.Errorf("cancelled parse = exact %v, warnings %q %q; want the pattern's reading and no warning", mods[0].exact, unparsed, broken)
	}
	mods, _, broken = p.parse(context.Background(), []pySource{{name: "m.py", text: src}})
	if !mods[0].exact || !mods[0].names["hidden"] || broken != "" {
		t.Errorf("parse after a cancelled one = %+v, warning %q; want the ast's reading (hidden defined)", mods[0], broken)
	}
}
