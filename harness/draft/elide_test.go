package draft

import (
	"strings"
	"testing"
)

const elideOld = `import re


def greet(name):
    return "Hello, " + name


def farewell(name):
    return "Goodbye, " + name


def shout(name):
    return greet(name).upper()
`

// The new greet, with the rest of the file elided by a marker.
const elideGreet = "def greet(name):\n    return \"Hello, \" + name.strip()\n"

// elideWant is the old file with greet's new body.
var elideWant = strings.Replace(elideOld, `"Hello, " + name`+"\n", `"Hello, " + name.strip()`+"\n", 1)

// TestMergeElidedForms writes the new greet with the rest of the file, or
// the part before it, left out, in the forms models write the marker in,
// and requires the old file with the new greet.
func TestMergeElidedForms(t *testing.T) {
	forms := []string{
		"# ... rest of the file unchanged ...",
		"# (unchanged)",
		"# rest of code",
		"# ... existing code ...",
		"# [omitted]",
		"# ...",
		"# …",
		"# … (rest unchanged)",
		"# Rest of the file remains unchanged.",
		"# other functions unchanged",
		"# ... (previous code) ...",
		"# same as before",
		"# (code omitted for brevity)",
		"# ... keep the rest as is ...",
		"# remaining functions stay the same",
		"# <unchanged>",
		"# ... snip ...",
		"# [... rest of file ...]",
		"# ... other functions ...",
		"# no changes below",
		"# [rest of the code]",
		"# farewell and shout stay as they were",
		"...  # unchanged",
		"pass  # rest of the module",
		"// ... existing code ...",
		"/* ... */",
		"<!-- rest of file unchanged -->",
	}
	for _, m := range forms {
		t.Run(m, func(t *testing.T) {
			// The marker after the new greet stands for the rest of the
			// file; before it, for the imports.
			after := "import re\n\n\n" + elideGreet + "\n\n" + m + "\n"
			got, n, err := MergeElided(elideOld, after)
			if err != nil || n != 1 || got != elideWant {
				t.Errorf("after greet: merged %d, %v:\n%s\nwant:\n%s", n, err, got, elideWant)
			}
			before := m + "\n\n\n" + elideGreet + "\n\ndef farewell(name):\n    return \"Goodbye, \" + name\n\n\ndef shout(name):\n    return greet(name).upper()\n"
			got, n, err = MergeElided(elideOld, before)
			if err != nil || n != 1 || got != elideWant {
				t.Errorf("before greet: merged %d, %v:\n%s\nwant:\n%s", n, err, got, elideWant)
			}
		})
	}
}

func TestMergeElided(t *testing.T) {
	cases := []struct {
		name, old, new, want string
		n                    int
		err                  string
	}{
		{name: "no marker", old: elideOld, new: elideWant, want: elideWant},
		{name: "new file", old: "", new: "# ... rest unchanged\n", want: "# ... rest unchanged\n"},
		{name: "bare ellipsis for a body", old: elideOld,
			new:  "import re\n\n\n" + elideGreet + "\n\ndef farewell(name):\n    ...\n\n\ndef shout(name):\n    return greet(name).upper()\n",
			want: elideWant, n: 1},
		{name: "a definition's head with its body elided", old: elideOld,
			new:  "import re\n\n\n" + elideGreet + "\n\ndef farewell(name): ...  # unchanged\n\n\ndef shout(name):\n    return greet(name).upper()\n",
			want: elideWant, n: 1},
		{name: "two markers", old: elideOld,
			new:  "# imports unchanged\n\n" + elideGreet + "\n\n# ... other functions unchanged ...\n",
			want: elideWant, n: 2},
		{name: "stub body of real Python is code", old: elideOld,
			new:  elideOld + "\n\nclass Greeter:\n    def greet(self, name):\n        ...\n",
			want: elideOld + "\n\nclass Greeter:\n    def greet(self, name):\n        ...\n"},
		{name: "an ellipsis the old file holds", old: "def f():\n    ...\n\n\ndef g():\n    return 1\n",
			new:  "def f():\n    ...\n\n\ndef g():\n    return 2\n",
			want: "def f():\n    ...\n\n\ndef g():\n    return 2\n"},
		{name: "subscript ellipsis is code", old: "import numpy as np\n\nx = np.zeros((2, 2))\n",
			new:  "import numpy as np\n\nx = np.zeros((2, 2))\ny = x[...]\n",
			want: "import numpy as np\n\nx = np.zeros((2, 2))\ny = x[...]\n"},
		{name: "the block before ends where it ends in the file", old: "def a():\n    return 1\n\n\ndef b():\n    return 1\n\n\ndef c():\n    return 3\n",
			new:  "def a():\n    return 1\n# ... rest unchanged ...\ndef c():\n    return 4\n",
			want: "def a():\n    return 1\n\n\ndef b():\n    return 1\n\n\ndef c():\n    return 4\n", n: 1},
		{name: "anchor twice in the file", old: "x = 1\ny = 2\nx = 1\nz = 3\n",
			new: "x = 1\n# ...\nz = 4\n", err: "is in the file 2 times"},
		{name: "changed line inside a function", old: elideOld,
			new: "def greet(name):\n    name = name.strip()\n    # ... existing code ...\n", err: "is not in the file"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, n, err := MergeElided(tc.old, tc.new)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("merged %d, %v:\n%s\nwant an error with %q", n, err, got, tc.err)
				}
				return
			}
			if err != nil || n != tc.n || got != tc.want {
				t.Errorf("merged %d, %v:\n%s\nwant %d:\n%s", n, err, got, tc.n, tc.want)
			}
		})
	}
}
