package suite

import (
	"context"
	"testing"
)

// pytestRunCases are pytest suites and what reading them must find.
var pytestRunCases = []runCase{
	{
		name: "all pass",
		files: map[string]string{
			"wordcount.py":           initialsModule,
			"tests/test_initials.py": "from wordcount import initials\n\ndef test_one():\n    assert initials('Ada') == 'A'\n\ndef test_two():\n    assert initials('Ada Lovelace') == 'A L'\n",
		},
		want:       tally{Ran: 2, Passed: 2},
		wantPassed: true,
	},
	{
		name: "failed passed skipped and errors from the summary line",
		files: map[string]string{
			"wordcount.py": initialsModule,
			"tests/test_mixed.py": `import unittest
import pytest
from wordcount import initials, shout

class InitialsTest(unittest.TestCase):
    def test_dots(self):
        self.assertEqual(initials("Ada Lovelace"), "A. L.")

def test_plain():
    assert initials("Ada Lovelace") == "A. L."

def test_shout():
    shout("hi")

def test_ok():
    pass

@pytest.mark.skip(reason="later")
def test_later():
    pass

@pytest.fixture
def broken():
    raise RuntimeError("fixture broke")

def test_uses_broken(broken):
    pass

@pytest.mark.parametrize("x", [1, 2])
def test_param(x):
    assert x == 1
`,
		},
		want: tally{Ran: 8, Passed: 2, Failed: 4, Errors: 1, Skipped: 1, Exit: 1},
		wantFailures: []Failure{
			{Test: "tests/test_mixed.py::InitialsTest::test_dots", File: "tests/test_mixed.py", Line: 7, Message: `AssertionError: 'A L' != 'A. L.'`},
			{Test: "tests/test_mixed.py::test_plain", File: "tests/test_mixed.py", Line: 10, Message: `AssertionError: assert 'A L' == 'A. L.'`},
			{Test: "tests/test_mixed.py::test_shout", File: "wordcount.py", Line: 6, Message: "ValueError: shout is not written yet"},
			{Test: "tests/test_mixed.py::test_param[2]", File: "tests/test_mixed.py", Line: 31, Message: "AssertionError: assert 2 == 1"},
			{Test: "tests/test_mixed.py::test_uses_broken", File: "tests/test_mixed.py", Line: 24, Message: "RuntimeError: fixture broke"},
		},
		wantFirst: `AssertionError: 'A L' != 'A. L.'`,
	},
	{
		name: "module under test is missing",
		files: map[string]string{
			"tests/test_wordcount.py": "from wordcount import count_words\n\ndef test_count():\n    assert count_words('a b') == 2\n",
		},
		want:       tally{Errors: 1, Exit: 2},
		wantImport: []string{"tests/test_wordcount.py", "ModuleNotFoundError: No module named 'wordcount'"},
		wantFirst:  "No module named 'wordcount'",
	},
	{
		name: "name missing from the module under test",
		files: map[string]string{
			"wordcount.py":            initialsModule,
			"tests/test_wordcount.py": "from wordcount import count_words\n\ndef test_count():\n    assert count_words('a b') == 2\n",
		},
		want:       tally{Errors: 1, Exit: 2},
		wantImport: []string{"tests/test_wordcount.py:1", "ImportError: cannot import name 'count_words' from 'wordcount'"},
		wantFailures: []Failure{
			{Test: "tests/test_wordcount.py", File: "tests/test_wordcount.py", Line: 1, Message: "ImportError: cannot import name 'count_words' from 'wordcount' (wordcount.py)"},
		},
	},
	{
		name: "syntax error in the code under test",
		files: map[string]string{
			"wordcount.py":           "def initials(name):\n    return (\" \".join(p[0] for p in name.split())\n",
			"tests/test_initials.py": "from wordcount import initials\n\ndef test_one():\n    assert initials('Ada') == 'A'\n",
		},
		want:       tally{Errors: 1, Exit: 2},
		wantImport: []string{"tests/test_initials.py", "SyntaxError", "wordcount.py:2"},
	},
	{
		name: "conftest that does not import",
		files: map[string]string{
			"conftest.py":        "import nosuchplugin\n",
			"tests/test_one.py":  "def test_one():\n    pass\n",
			"tests/__init__.py":  "",
			"tests/conftest.py":  "",
			"tests/test_more.py": "def test_more():\n    pass\n",
		},
		want:       tally{Exit: 4},
		wantImport: []string{"conftest.py", "No module named 'nosuchplugin'"},
	},
}

func TestRunPytest(t *testing.T) {
	requirePytest(t)
	for _, tt := range pytestRunCases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := writeTree(t, tt.files)
			res, err := Runner{Kind: Pytest}.Run(context.Background(), dir)
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
					if res.Failures[i] != tt.wantFailures[i] {
						t.Errorf("failure %d = %+v, want %+v", i, res.Failures[i], tt.wantFailures[i])
					}
				}
			}
			checkContains(t, "FirstFailure()", res.FirstFailure(), tt.wantFirst)
		})
	}
}
