package suite

import (
	"context"
	"slices"
	"strings"
	"testing"
)

func TestRunnerOfCommand(t *testing.T) {
	tests := []struct {
		command string
		kind    Kind
		word    string // argv[at], the runner's own word
		env     []string
	}{
		{"{python} -m pytest -q", Pytest, "pytest", nil},
		{"python3 -m pytest", Pytest, "pytest", nil},
		{"/opt/venv/bin/python3.12 -X dev -m pytest tests", Pytest, "pytest", nil},
		{"pytest -qq", Pytest, "pytest", nil},
		{"py.test tests/", Pytest, "py.test", nil},
		{"/usr/bin/pytest-3 -x", Pytest, "/usr/bin/pytest-3", nil},
		{"PYTHONPATH=src {python} -m pytest", Pytest, "pytest", []string{"PYTHONPATH=src"}},
		{"A=1 B='two words' pytest", Pytest, "pytest", []string{"A=1", "B=two words"}},
		{"env PYTHONPATH=src {python} -m pytest", Pytest, "pytest", nil},
		{"env -i PATH=/usr/bin pytest", Pytest, "pytest", nil},
		{"timeout -s KILL 60 pytest", Pytest, "pytest", nil},
		{"nice -n 10 python -m pytest", Pytest, "pytest", nil},
		{"coverage run --source=pkg -m pytest", Pytest, "pytest", nil},
		{"python -m coverage run -m pytest", Pytest, "pytest", nil},
		{"poetry run pytest", Pytest, "pytest", nil},
		{"{python} -m unittest discover -s tests", Unittest, "unittest", nil},
		{"go test ./...", GoTest, "test", nil},
		{"make test", unknown, "", nil},
		{"tox -e py3", unknown, "", nil},
		{"{python} tests/test_x.py", unknown, "", nil},
		{"{python} -c 'import pytest; pytest.main()'", unknown, "", nil},
		{"sh -c 'pytest -q'", unknown, "", nil},
		{"go vet ./...", unknown, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.command, func(t *testing.T) {
			inv, err := parseInvocation(tt.command)
			if err != nil {
				t.Fatal(err)
			}
			if inv.kind != tt.kind {
				t.Errorf("kind = %q, want %q", inv.kind, tt.kind)
			}
			word := ""
			if inv.at >= 0 {
				word = inv.argv[inv.at]
			}
			if word != tt.word {
				t.Errorf("runner's word = %q, want %q", word, tt.word)
			}
			if !slices.Equal(inv.env, tt.env) {
				t.Errorf("assignments = %q, want %q", inv.env, tt.env)
			}
		})
	}
	if _, err := parseInvocation("PYTHONPATH=src"); err == nil || !strings.Contains(err.Error(), "runs nothing") {
		t.Errorf("assignments alone: err = %v, want one saying it runs nothing", err)
	}
}

func TestJUnitInjectedAfterPytestsWord(t *testing.T) {
	j := &junitReport{path: "/tmp/r.xml", at: 2}
	got := j.command([]string{"py", "-m", "pytest", "-q", "--junitxml=mine.xml", "--junit-xml", "x.xml", "--", "-weird-file.py"})
	want := []string{"py", "-m", "pytest", "--junitxml=/tmp/r.xml", "-q", "--", "-weird-file.py"}
	if !slices.Equal(got, want) {
		t.Errorf("command = %q, want %q", got, want)
	}
}

// calcRepo is the most common layout there is: bare-assert pytest tests
// under tests/, no configuration file, no conftest.py.
func calcRepo(mean string, extra map[string]string) map[string]string {
	files := map[string]string{
		"calc.py": "def mean(xs):\n    return " + mean + "\n",
		"tests/test_calc.py": "from calc import mean\n\n\ndef test_mean():\n    assert mean([1, 2, 3]) == 2\n\n\n" +
			"def test_one():\n    assert mean([4]) >= 4\n\n\nclass TestMore:\n    def test_pair(self):\n        assert mean([1, 3]) == 2\n",
	}
	for k, v := range extra {
		files[k] = v
	}
	return files
}

// Whatever the command looks like, pytest's run is read from its own
// report: quiet runs that print no count line, addopts that stop at the
// first failure, assignments before the command, env, the detected default.
func TestPytestReadWhateverTheCommand(t *testing.T) {
	requirePytest(t)
	addopts := map[string]string{"pytest.ini": "[pytest]\naddopts = -q -x\n"}
	tests := []struct {
		name, command string
		extra         map[string]string
		broken        tally // counts when mean is wrong
		good          tally
	}{
		{"detected, no config", "", nil, tally{Ran: 3, Passed: 1, Failed: 2, Exit: 1}, tally{Ran: 3, Passed: 3}},
		{"-q", "{python} -m pytest -q", nil, tally{Ran: 3, Passed: 1, Failed: 2, Exit: 1}, tally{Ran: 3, Passed: 3}},
		{"-qq", "{python} -m pytest -qq -p no:cacheprovider", nil, tally{Ran: 3, Passed: 1, Failed: 2, Exit: 1}, tally{Ran: 3, Passed: 3}},
		{"-qq --tb=no -rN", "{python} -m pytest -qq --tb=no -rN -p no:cacheprovider", nil, tally{Ran: 3, Passed: 1, Failed: 2, Exit: 1}, tally{Ran: 3, Passed: 3}},
		{"addopts -q -x and a quiet suite", "{python} -m pytest -q -p no:cacheprovider", addopts, tally{Ran: 1, Failed: 1, Exit: 1}, tally{Ran: 3, Passed: 3}},
		{"env", "env FOO=1 {python} -m pytest -qq -p no:cacheprovider", nil, tally{Ran: 3, Passed: 1, Failed: 2, Exit: 1}, tally{Ran: 3, Passed: 3}},
		{"assignment", "FOO=1 {python} -m pytest -qq -p no:cacheprovider", nil, tally{Ran: 3, Passed: 1, Failed: 2, Exit: 1}, tally{Ran: 3, Passed: 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, c := range []struct {
				mean string
				want tally
			}{{"sum(xs) / len(xs) + 1", tt.broken}, {"sum(xs) / len(xs)", tt.good}} {
				res, err := Runner{Command: tt.command, Python: pytestInterpreter()}.Run(context.Background(), writeTree(t, calcRepo(c.mean, tt.extra)))
				if err != nil {
					t.Fatal(err)
				}
				logOnFailure(t, res)
				if res.Kind != Pytest || res.CountsFrom != fromJUnitXML {
					t.Errorf("read as %s from %s, want pytest from its junit report", res.Kind, res.CountsFrom)
				}
				if got := tallyOf(res); got != c.want {
					t.Errorf("mean = %s: counts = %+v, want %+v", c.mean, got, c.want)
				}
				if c.want.Failed == 0 {
					if !res.Passed() {
						t.Errorf("Passed() = false for a passing suite: %s", res.FirstFailure())
					}
					continue
				}
				if res.Passed() {
					t.Error("Passed() = true for a failing suite")
				}
				if len(res.Failures) == 0 || res.Failures[0].Test != "tests/test_calc.py::test_mean" {
					t.Errorf("failures = %+v, want tests/test_calc.py::test_mean first", res.Failures)
				}
				if tt.name == "-qq --tb=no -rN" && (len(res.Failures) != 2 || res.Failures[1].Test != "tests/test_calc.py::TestMore::test_pair") {
					t.Errorf("failures = %+v, want the class's test named by its node id too", res.Failures)
				}
				if strings.Contains(res.Output, "junit") {
					t.Errorf("the output shows the harness's report file:\n%s", res.Output)
				}
			}
		})
	}
}

func TestSrcLayoutImports(t *testing.T) {
	requirePytest(t)
	files := map[string]string{
		"pyproject.toml":             "[project]\nname = \"calc\"\n",
		"src/calc/__init__.py":       "from .stats import mean\n",
		"src/calc/stats.py":          "def mean(xs):\n    return sum(xs) / len(xs)\n",
		"tests/test_stats.py":        "from calc import mean\n\n\ndef test_mean():\n    assert mean([1, 2, 3]) == 2\n",
		"tests/test_unittest.py":     "import unittest\nfrom calc.stats import mean\n\n\nclass T(unittest.TestCase):\n    def test_one(self):\n        self.assertEqual(mean([5]), 5)\n",
		"src/calc.egg-info/PKG-INFO": "",
	}
	for _, command := range []string{"", "{python} -m pytest -q", "{python} -m unittest discover -s tests"} {
		res, err := Runner{Command: command, Python: pytestInterpreter()}.Run(context.Background(), writeTree(t, files))
		if err != nil {
			t.Fatal(err)
		}
		logOnFailure(t, res)
		if !res.Passed() || res.Counts.Ran == 0 {
			t.Errorf("%q: a src layout does not pass: %+v %s", command, tallyOf(res), res.FirstFailure())
		}
	}
	if got := ImportPath(writeTree(t, map[string]string{"src/README.md": "", "calc.py": ""})); got != nil {
		t.Errorf("ImportPath of a src/ with no Python in it = %q, want none", got)
	}
}

// A command whose runner its words do not tell is read from its exit status
// alone, and says so, unless its output holds a runner's own report.
func TestUnknownRunnerReadByExitStatus(t *testing.T) {
	py := requirePython(t)
	tests := []struct {
		name, command string
		passed        bool
		exitOnly      bool
		ran           int
	}{
		{"exits 0", "{python} -c 'print(\"all good\")'", true, true, 0},
		{"exits 3", "{python} -c 'import sys; print(\"bad\"); sys.exit(3)'", false, true, 0},
		{"unittest.main in a script", "{python} tests/test_u.py", true, false, 1},
	}
	files := map[string]string{"tests/test_u.py": "import unittest\n\n\nclass T(unittest.TestCase):\n    def test_x(self):\n        pass\n\n\nunittest.main()\n"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Runner{Command: tt.command, Python: py}.Run(context.Background(), writeTree(t, files))
			if err != nil {
				t.Fatal(err)
			}
			logOnFailure(t, res)
			if res.Kind != unknown {
				t.Errorf("kind = %q, want %q", res.Kind, unknown)
			}
			if res.Passed() != tt.passed || res.Counts.ExitStatusOnly != tt.exitOnly || res.Counts.Ran != tt.ran {
				t.Errorf("passed %v, exit status only %v, ran %d; want %v, %v, %d", res.Passed(), res.Counts.ExitStatusOnly, res.Counts.Ran, tt.passed, tt.exitOnly, tt.ran)
			}
			if tt.exitOnly && res.RanNoTest() {
				t.Error("RanNoTest() = true for a suite that says nothing of its tests")
			}
			if !tt.passed && !strings.Contains(res.FirstFailure(), "exited with code 3: bad") {
				t.Errorf("FirstFailure() = %q, want the exit code and the last line", res.FirstFailure())
			}
		})
	}
}

func TestDetectBareAssertTests(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  Kind
	}{
		{"bare asserts under tests/", map[string]string{"tests/test_a.py": "def test_a():\n    assert 1\n"}, Pytest},
		{"a Test class of its own", map[string]string{"test_a.py": "class TestA:\n    def test_a(self):\n        assert 1\n"}, Pytest},
		{"_test.py files", map[string]string{"pkg/calc_test.py": "import pytest\n"}, Pytest},
		{"unittest only", map[string]string{"tests/test_a.py": "import unittest\n\nclass TestA(unittest.TestCase):\n    def test_a(self):\n        pass\n"}, Unittest},
		{"a test function in a module that is no test file", map[string]string{"helpers.py": "def test_helper():\n    pass\n"}, Unittest},
		{"tests in a virtualenv are not the repository's", map[string]string{".venv/lib/test_x.py": "def test_x():\n    pass\n"}, Unittest},
	}
	for _, tt := range tests {
		if got := Detect(writeTree(t, tt.files)); got != tt.want {
			t.Errorf("%s: Detect = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestCheckRefusesWhatCannotStart(t *testing.T) {
	dir := writeTree(t, nil)
	for command, want := range map[string]string{
		"no-such-runner-here -q": "no-such-runner-here is not a program on PATH",
		"PYTHONPATH=src":         "runs nothing",
		"'unterminated":          "unterminated",
		"./run_tests.sh":         "not an executable file",
	} {
		err := Runner{Command: command}.Check(context.Background(), dir)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Check(%q) = %v, want an error saying %q", command, err, want)
		}
	}
	if err := (Runner{Command: "PYTHONPATH=src go version"}).Check(context.Background(), dir); err != nil {
		t.Errorf("Check of a leading assignment: %v", err)
	}
}
