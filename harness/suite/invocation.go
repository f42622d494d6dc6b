package suite

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// invocation is a suite command line as it will run: the variables its
// leading VAR=value words set (as a shell reads "PYTHONPATH=src pytest"),
// the argument vector after them, and the runner it starts.
type invocation struct {
	env  []string
	argv []string
	// kind is the runner the command starts, told from its words; unknown
	// when they do not say (make test, tox, a script).
	kind Kind
	// at is the index in argv of the runner's own word ("pytest" in
	// "python -m pytest -q", "test" in "go test ./..."): the arguments that
	// ask it for its report go right after it. -1 when kind is unknown.
	at int
}

// assignment is a shell variable assignment word: NAME=value.
var assignment = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

// parseInvocation splits a command line (see splitCommand) and tells which
// runner it starts.
func parseInvocation(line string) (invocation, error) {
	words, err := splitCommand(line)
	if err != nil {
		return invocation{}, err
	}
	inv := invocation{kind: unknown, at: -1}
	i := 0
	for i < len(words) && assignment.MatchString(words[i]) {
		inv.env = append(inv.env, words[i])
		i++
	}
	if i == len(words) {
		return invocation{}, fmt.Errorf("command sets %s and runs nothing", strings.Join(inv.env, " "))
	}
	inv.argv = words[i:]
	inv.kind, inv.at = runnerOf(inv.argv)
	return inv, nil
}

// pythonName is an interpreter's file name: python, python3, python3.12,
// pypy3, python3.12d.
var pythonName = regexp.MustCompile(`^(?:python|pypy)(?:\d+(?:\.\d+)*)?[a-z]?$`)

// runnerOf tells the runner an argument vector starts, looking through the
// commands that run another one (env, timeout, nice, coverage run, poetry
// run and the like) and through "python -m". It returns the runner and the
// index of its own word, or unknown and -1.
func runnerOf(argv []string) (Kind, int) {
	i := 0
	for i < len(argv) {
		name := filepath.Base(argv[i])
		switch {
		case name == "env":
			i = skipEnv(argv, i+1)
		case name == "timeout":
			i = skipOptions(argv, i+1, "-s", "--signal", "-k", "--kill-after") + 1 // then the duration
		case name == "nice":
			i = skipOptions(argv, i+1, "-n", "--adjustment")
		case name == "nohup", name == "time", name == "stdbuf", name == "ionice", name == "xvfb-run":
			i = skipOptions(argv, i+1)
		case (name == "poetry" || name == "uv" || name == "pipenv" || name == "pdm" || name == "hatch" || name == "rye") &&
			i+1 < len(argv) && argv[i+1] == "run":
			i = skipOptions(argv, i+2)
		case name == "coverage" && i+1 < len(argv) && argv[i+1] == "run":
			return moduleOrScript(argv, skipOptions(argv, i+2, "--rcfile", "--source", "--include", "--omit", "--context", "--data-file"))
		case name == "pytest" || name == "py.test" || strings.HasPrefix(name, "pytest-3"):
			return Pytest, i
		case name == "go":
			if i+1 < len(argv) && argv[i+1] == "test" {
				return GoTest, i + 1
			}
			return unknown, -1
		case pythonName.MatchString(name) || strings.Contains(argv[i], "{python}"):
			return moduleOrScript(argv, skipOptions(argv, i+1, "-X", "-W", "--check-hash-based-pycs"))
		default:
			return unknown, -1
		}
	}
	return unknown, -1
}

// moduleOrScript reads what an interpreter (or coverage run) is asked to
// run from argv[i]: "-m pytest", "-m unittest", "-m coverage run ...".
func moduleOrScript(argv []string, i int) (Kind, int) {
	if i+1 >= len(argv) || argv[i] != "-m" {
		return unknown, -1 // a script, -c code: its runner is its own
	}
	switch argv[i+1] {
	case "pytest", "py.test":
		return Pytest, i + 1
	case "unittest":
		return Unittest, i + 1
	case "coverage":
		if i+2 < len(argv) && argv[i+2] == "run" {
			return moduleOrScript(argv, skipOptions(argv, i+3, "--rcfile", "--source", "--include", "--omit", "--context", "--data-file"))
		}
	}
	return unknown, -1
}

// skipEnv skips env(1)'s options and assignments.
func skipEnv(argv []string, i int) int {
	for i < len(argv) {
		a := argv[i]
		switch {
		case a == "-u" || a == "--unset" || a == "-C" || a == "--chdir" || a == "-S" || a == "--split-string":
			i += 2
		case strings.HasPrefix(a, "-"):
			i++
		case assignment.MatchString(a):
			i++
		default:
			return i
		}
	}
	return i
}

// skipOptions skips the option words at argv[i:], and the value after each
// of withValue given apart ("-n 5"; "-n5" and "--adjustment=5" are one word).
func skipOptions(argv []string, i int, withValue ...string) int {
	for i < len(argv) && strings.HasPrefix(argv[i], "-") && argv[i] != "-m" && argv[i] != "-" {
		if argv[i] == "--" {
			return i + 1
		}
		takes := false
		for _, o := range withValue {
			takes = takes || argv[i] == o
		}
		i++
		if takes {
			i++
		}
	}
	return i
}

// KindOf is the runner a suite of the repository at dir runs: the one its
// command starts (unknown when the command does not say), or, with no
// command, Detect's choice. A command that does not split is unknown;
// Runner.Run reports why.
func KindOf(command, dir string) Kind {
	if command == "" {
		return Detect(dir)
	}
	inv, err := parseInvocation(command)
	if err != nil {
		return unknown
	}
	return inv.kind
}
