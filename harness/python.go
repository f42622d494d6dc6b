package harness

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
)

// pyDef is one class or function definition found in Python source.
type pyDef struct {
	Kind string // def or class
	Name string
	Line int
	// Depth is how deep the definition is shown in an outline: the
	// functions and classes around it (by ast), or its indentation in
	// steps of four (by pattern).
	Depth int
	// Top says the definition is the module's own: not inside a function
	// or class (by ast; under an if or try counts), or at column 0 (by
	// pattern).
	Top bool
}

var defRe = regexp.MustCompile(`^(\s*)(async\s+def|def|class)\s+([A-Za-z_][A-Za-z0-9_]*)`)
var bareTestRe = regexp.MustCompile(`^def (test_[A-Za-z0-9_]*)\((.*)\)(.*)$`)

var assignRe = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)\s*(?::[^=]*)?=[^=]`)

// patternDefs lists the class and function definitions of a Python source
// found line by line by a regular expression, in order: the fallback when
// the source does not parse or no interpreter can parse it. It is fooled by
// a "def" inside a multi-line string and misses what is indented under an
// if at module level.
func patternDefs(src string) []pyDef {
	var defs []pyDef
	for i, line := range strings.Split(src, "\n") {
		m := defRe.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		kind := "def"
		if m[2] == "class" {
			kind = "class"
		}
		indent := len(strings.ReplaceAll(m[1], "\t", "    "))
		defs = append(defs, pyDef{Kind: kind, Name: m[3], Line: i + 1, Depth: indent / 4, Top: indent == 0})
	}
	return defs
}

// patternModule reads a source's definitions and module-level names by
// pattern: functions and classes at column 0, and plain assignments.
func patternModule(src string) pyModule {
	m := pyModule{defs: patternDefs(src), names: map[string]bool{}}
	for _, d := range m.defs {
		if d.Top {
			m.names[d.Name] = true
		}
	}
	for _, line := range strings.Split(src, "\n") {
		if a := assignRe.FindStringSubmatch(line); a != nil {
			m.names[a[1]] = true
		}
	}
	return m
}

// vagueNames are names that say nothing about what a thing does. Short
// generic verbs (process, handle) are left out: real code uses them in
// context, and a refusal there would block a correct draft.
var vagueNames = map[string]bool{
	"foo": true, "bar": true, "baz": true, "qux": true, "helper": true, "helpers": true, "util": true, "utils": true,
	"new_function": true, "newfunction": true, "my_function": true, "myfunction": true, "function": true, "func": true,
	"do_stuff": true, "do_something": true, "stuff": true, "thing": true, "temp": true, "tmp": true, "test_function": true,
	"main2": true,
}

var vagueRe = regexp.MustCompile(`^(foo|bar|baz|helper|func|function|new_function|my_function|temp|tmp|thing|stuff|util)_?[0-9]+$`)

// isVague reports whether a new top-level name says nothing.
func isVague(name string) bool {
	n := strings.ToLower(strings.Trim(name, "_"))
	return vagueNames[n] || vagueRe.MatchString(n)
}

// newVagueNames lists top-level functions or classes that the new source
// adds and whose names say nothing.
func newVagueNames(old, updated pyModule) []string {
	var out []string
	for _, d := range updated.defs {
		if d.Top && !old.names[d.Name] && isVague(d.Name) {
			out = append(out, d.Name)
		}
	}
	return out
}

// isTestFile reports whether a path names a Python test module.
func isTestFile(rel string) bool {
	base := path.Base(rel)
	return strings.HasSuffix(base, ".py") && (strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py"))
}

// wrapTestClass wraps bare top-level test_* functions of a unittest module in
// the TestCase class they need (seed #326: suites that ran no test). It
// leaves pytest-style modules alone: only a module that imports unittest and
// has no TestCase class is changed. The second result says whether it did.
func wrapTestClass(rel, src string) (string, bool) {
	if !isTestFile(rel) || !strings.Contains(src, "unittest") || strings.Contains(src, "TestCase") {
		return src, false
	}
	lines := strings.Split(src, "\n")
	var bare []int
	for i, l := range lines {
		if strings.HasPrefix(l, "def test_") {
			bare = append(bare, i)
		}
	}
	if len(bare) == 0 {
		return src, false
	}
	// Everything from the first bare test to the end (or to a trailing
	// `if __name__` block) goes into the class.
	start, end := bare[0], len(lines)
	for i := start; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "if __name__") {
			end = i
			break
		}
	}
	class := "Test" + camel(strings.TrimSuffix(strings.TrimPrefix(path.Base(rel), "test_"), ".py"))
	var b strings.Builder
	b.WriteString(strings.Join(lines[:start], "\n"))
	if start > 0 {
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "class %s(unittest.TestCase):\n", class)
	for _, l := range lines[start:end] {
		switch {
		case strings.TrimSpace(l) == "":
			b.WriteString("\n")
		case bareTestRe.MatchString(l):
			m := bareTestRe.FindStringSubmatch(l)
			params := "self"
			if strings.TrimSpace(m[2]) != "" {
				params += ", " + m[2]
			}
			fmt.Fprintf(&b, "    def %s(%s)%s\n", m[1], params, m[3])
		default:
			b.WriteString("    " + l + "\n")
		}
	}
	rest := strings.Join(lines[end:], "\n")
	b.WriteString(rest)
	return b.String(), true
}

func camel(s string) string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == '_' || r == '-' || r == '.' }) {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

// moduleName turns a workspace path of a .py file into its dotted module.
func moduleName(rel string) string {
	m := strings.TrimSuffix(rel, ".py")
	m = strings.TrimSuffix(m, "/__init__")
	return strings.ReplaceAll(m, "/", ".")
}

// sameDefinitions reports whether two modules define (mostly) the same
// top-level functions and classes: a second module written to do the first
// one's job.
func sameDefinitions(a, b pyModule) []string {
	na, nb := topLevelDefs(a), topLevelDefs(b)
	var shared []string
	for n := range na {
		if nb[n] {
			shared = append(shared, n)
		}
	}
	slices.Sort(shared)
	if len(shared) == 0 || 2*len(shared) < min(len(na), len(nb)) {
		return nil
	}
	return shared
}

func topLevelDefs(m pyModule) map[string]bool {
	out := map[string]bool{}
	for _, d := range m.defs {
		if d.Top && !strings.HasPrefix(d.Name, "test") && !strings.HasPrefix(d.Name, "Test") {
			out[d.Name] = true
		}
	}
	return out
}
