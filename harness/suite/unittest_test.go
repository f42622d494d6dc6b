package suite

import (
	"context"
	"testing"
)

const initialsModule = `def initials(name):
    return " ".join(p[0] for p in name.split())


def shout(s):
    raise ValueError("shout is not written yet")
`

func TestRunUnittest(t *testing.T) {
	requirePython(t)
	tests := []struct {
		name        string
		files       map[string]string
		command     string
		want        tally
		wantPassed  bool
		wantImport  []string // substrings of Counts.ImportError; none means it must be empty
		wantFailure *Failure // the first failure, exactly
		wantFirst   string   // substring of FirstFailure()
	}{
		{
			name: "all pass",
			files: map[string]string{
				"wordcount.py": initialsModule,
				"tests/test_initials.py": `import unittest
from wordcount import initials

class InitialsTest(unittest.TestCase):
    def test_one(self):
        self.assertEqual(initials("Ada"), "A")

    def test_two(self):
        self.assertEqual(initials("Ada Lovelace"), "A L")
`,
			},
			want:       tally{Ran: 2, Passed: 2},
			wantPassed: true,
		},
		{
			name: "assertion fails in the test",
			files: map[string]string{
				"wordcount.py": initialsModule,
				"tests/test_initials.py": `import unittest
from wordcount import initials

class InitialsTest(unittest.TestCase):
    def test_dots(self):
        self.assertEqual(initials("Ada Lovelace"), "A. L.")
`,
			},
			want: tally{Ran: 1, Failed: 1, Exit: 1},
			wantFailure: &Failure{
				Test:    "test_initials.InitialsTest.test_dots",
				File:    "tests/test_initials.py",
				Line:    6,
				Message: `AssertionError: 'A L' != 'A. L.'`,
			},
			wantFirst: `AssertionError: 'A L' != 'A. L.'`,
		},
		{
			name: "exception raised in the code under test",
			files: map[string]string{
				"wordcount.py":      initialsModule,
				"tests/__init__.py": "",
				"tests/test_shout.py": `import unittest
from wordcount import shout

class ShoutTest(unittest.TestCase):
    def test_shout(self):
        self.assertEqual(shout("hi"), "HI")
`,
			},
			want: tally{Ran: 1, Errors: 1, Exit: 1},
			wantFailure: &Failure{
				Test:    "tests.test_shout.ShoutTest.test_shout",
				File:    "wordcount.py",
				Line:    6,
				Message: "ValueError: shout is not written yet",
			},
		},
		{
			name: "failures errors and skips counted from the FAILED line",
			files: map[string]string{
				"wordcount.py": initialsModule,
				"test_mixed.py": `import unittest
from wordcount import initials, shout

class MixedTest(unittest.TestCase):
    def test_pass(self):
        self.assertEqual(initials("Ada"), "A")

    def test_fail(self):
        self.assertEqual(initials("Ada Lovelace"), "A. L.")

    def test_error_one(self):
        shout("a")

    def test_error_two(self):
        {}["missing"]

    @unittest.skip("not yet")
    def test_skip(self):
        pass
`,
			},
			want:      tally{Ran: 5, Passed: 1, Failed: 1, Errors: 2, Skipped: 1, Exit: 1},
			wantFirst: "Error",
		},
		{
			name: "module under test is missing",
			files: map[string]string{
				"tests/__init__.py": "",
				"tests/test_wordcount.py": `import unittest
from wordcount import count_words

class CountTest(unittest.TestCase):
    def test_count(self):
        self.assertEqual(count_words("a b"), 2)
`,
			},
			want:       tally{Ran: 1, Errors: 1, Exit: 1},
			wantImport: []string{"tests.test_wordcount", "ModuleNotFoundError: No module named 'wordcount'", "tests/test_wordcount.py:2"},
			wantFirst:  "No module named 'wordcount'",
		},
		{
			name: "name missing from the module under test",
			files: map[string]string{
				"wordcount.py":      initialsModule,
				"tests/__init__.py": "",
				"tests/test_wordcount.py": `import unittest
from wordcount import count_words

class CountTest(unittest.TestCase):
    def test_count(self):
        self.assertEqual(count_words("a b"), 2)
`,
			},
			want:       tally{Ran: 1, Errors: 1, Exit: 1},
			wantImport: []string{"tests.test_wordcount", "ImportError: cannot import name 'count_words' from 'wordcount'"},
			wantFailure: &Failure{
				Test:    "tests.test_wordcount",
				File:    "tests/test_wordcount.py",
				Line:    2,
				Message: "ImportError: cannot import name 'count_words' from 'wordcount' (wordcount.py)",
			},
		},
		{
			name: "syntax error in the code under test",
			files: map[string]string{
				"wordcount.py":      "def initials(name):\n    return (\" \".join(p[0] for p in name.split())\n",
				"tests/__init__.py": "",
				"tests/test_initials.py": `import unittest
from wordcount import initials

class InitialsTest(unittest.TestCase):
    def test_one(self):
        self.assertEqual(initials("Ada"), "A")
`,
			},
			want:       tally{Ran: 1, Errors: 1, Exit: 1},
			wantImport: []string{"tests.test_initials", "SyntaxError", "wordcount.py:2"},
		},
		{
			name: "one module imports and one does not",
			files: map[string]string{
				"wordcount.py": initialsModule,
				"test_good.py": `import unittest
from wordcount import initials

class GoodTest(unittest.TestCase):
    def test_one(self):
        self.assertEqual(initials("Ada"), "A")
`,
				"test_bad.py": "import unittest\nimport nosuchmodule\n",
			},
			want:       tally{Ran: 2, Passed: 1, Errors: 1, Exit: 1},
			wantImport: []string{"test_bad", "No module named 'nosuchmodule'", "test_bad.py:2"},
		},
		{
			name: "script whose import fails before unittest starts",
			files: map[string]string{
				"tests/test_initials.py": `import unittest
from wordcount import initials

if __name__ == "__main__":
    unittest.main()
`,
			},
			command:    "{python} tests/test_initials.py",
			want:       tally{Exit: 1},
			wantImport: []string{"ModuleNotFoundError: No module named 'wordcount'", "tests/test_initials.py:2"},
		},
		{
			name: "explicit command with quotes",
			files: map[string]string{
				"wordcount.py": initialsModule,
				"checks/check_initials.py": `import unittest
from wordcount import initials

class InitialsTest(unittest.TestCase):
    def test_one(self):
        self.assertEqual(initials("Ada"), "A")
`,
			},
			command:    `{python} -m unittest discover -s checks -p "check_*.py"`,
			want:       tally{Ran: 1, Passed: 1},
			wantPassed: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := writeTree(t, tt.files)
			res, err := Runner{Kind: Unittest, Command: tt.command}.Run(context.Background(), dir)
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
			if tt.wantFailure != nil {
				if len(res.Failures) == 0 {
					t.Fatalf("no failures, want %+v", *tt.wantFailure)
				}
				if res.Failures[0] != *tt.wantFailure {
					t.Errorf("first failure = %+v, want %+v", res.Failures[0], *tt.wantFailure)
				}
			}
			checkContains(t, "FirstFailure()", res.FirstFailure(), tt.wantFirst)
		})
	}
}
