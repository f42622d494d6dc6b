package draft

import (
	"regexp"
	"strconv"
	"strings"
)

// Shell-agent replies (SWE-agent, mini-swe-agent) are one fenced bash block
// holding one command. The harness runs no shell: a command that only
// shows a file is read as READ with its window, one that runs the tests as
// RUN tests, and any other is refused, never run, with the action to use
// instead.

// shellTags are the info strings of a block meant for a shell.
var shellTags = map[string]bool{
	"bash": true, "sh": true, "shell": true, "zsh": true, "console": true,
	"terminal": true, "shell-session": true, "mswea_bash_command": true, "bash_command": true,
}

// shellWord is one word of a command, or an operator (|, &&, >, ...).
// escaped is set when a backslash escape made its text: the text is then
// not what the draft wrote.
type shellWord struct {
	text    string
	op      bool
	escaped bool
}

// splitShell splits one command line into words and operators, honouring
// quotes. It is not a shell: it only needs to tell a plain command from
// one with pipes, redirections or substitutions.
func splitShell(s string) ([]shellWord, bool) {
	var (
		out     []shellWord
		cur     strings.Builder
		have    bool
		escaped bool
	)
	word := func() {
		if have {
			out = append(out, shellWord{text: cur.String(), escaped: escaped})
			cur.Reset()
			have, escaped = false, false
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			word()
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, false
			}
			cur.WriteString(s[i+1 : i+1+j])
			have, i = true, i+1+j
		case c == '"':
			j := i + 1
			for j < len(s) && s[j] != '"' {
				if s[j] == '\\' && j+1 < len(s) {
					j++
					escaped = true
				}
				if s[j] == '$' || s[j] == '`' {
					return append(out, shellWord{text: "$", op: true}), true
				}
				cur.WriteByte(s[j])
				j++
			}
			if j >= len(s) {
				return nil, false
			}
			have, i = true, j
		case c == '\\' && i+1 < len(s):
			cur.WriteByte(s[i+1])
			have, escaped, i = true, true, i+1
		case strings.ContainsRune("|&;<>()`$", rune(c)):
			word()
			op := string(c)
			if i+1 < len(s) && (s[i:i+2] == "&&" || s[i:i+2] == "||" || s[i:i+2] == ">>" || s[i:i+2] == "<<") {
				op = s[i : i+2]
				i++
			}
			out = append(out, shellWord{text: op, op: true})
		default:
			cur.WriteByte(c)
			have = true
		}
	}
	word()
	return out, true
}

var (
	sedPrintRE = regexp.MustCompile(`^(\d+)(?:,(\d+|\$))?p$`)
)

// shellBlock reads the command of a shell block whose lines are lines.
func (p *parser) shellBlock(lines []string) (Action, *Error) {
	p.shape(shapeShellBlock)
	var cmds []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		t = strings.TrimSpace(strings.TrimPrefix(t, "$ "))
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		cmds = append(cmds, t)
	}
	if len(cmds) == 0 {
		return Action{}, p.fail("the shell block is empty")
	}
	shown := strings.Join(cmds, "; ")
	if len(cmds) > 1 {
		return Action{}, p.refuseShell(shown, cmds[0])
	}
	// A test run whose output is merged and trimmed ("pytest -x 2>&1 |
	// tail -20") is still a test run: the harness reports the suite its
	// own way.
	if t := trimOutputFilter(cmds[0]); t != cmds[0] {
		if w, ok := splitShell(t); ok && !hasOp(w) && testCommand(words(w)) {
			p.verb = VerbRun
			return Action{Verb: VerbRun, Args: []string{"tests"}}, nil
		}
	}
	words, ok := splitShell(cmds[0])
	if !ok {
		return Action{}, p.refuseShell(shown, cmds[0])
	}
	var stages [][]string
	var stage []string
	escaped := false
	for _, w := range words {
		escaped = escaped || w.escaped
		if w.op {
			if w.text != "|" {
				return Action{}, p.refuseShell(shown, cmds[0])
			}
			stages, stage = append(stages, stage), nil
			continue
		}
		stage = append(stage, w.text)
	}
	stages = append(stages, stage)
	if a, ok, err := p.shellRead(stages); ok {
		// A path is read as the draft wrote it: one a backslash escape
		// would change ("cat 0\0" is the file 00 to a shell) is not
		// read, as the harness runs no shell.
		if escaped {
			return Action{}, p.refuseShell(shown, cmds[0])
		}
		return a, err
	}
	if len(stages) == 1 && testCommand(stages[0]) {
		p.verb = VerbRun
		return Action{Verb: VerbRun, Args: []string{"tests"}}, nil
	}
	return Action{}, p.refuseShell(shown, cmds[0])
}

var (
	mergeStderrRE = regexp.MustCompile(`\s+2>&1\b`)
	outputPipeRE  = regexp.MustCompile(`\s*\|\s*(?:tail|head|grep|cat|less|more)\b[^|]*$`)
)

// trimOutputFilter takes "2>&1" and trailing pipes into a pager or filter
// off a command.
func trimOutputFilter(cmd string) string {
	t := mergeStderrRE.ReplaceAllString(cmd, "")
	for {
		u := outputPipeRE.ReplaceAllString(t, "")
		if u == t {
			return strings.TrimSpace(t)
		}
		t = u
	}
}

func hasOp(w []shellWord) bool {
	for _, x := range w {
		if x.op {
			return true
		}
	}
	return false
}

func words(w []shellWord) []string {
	out := make([]string, 0, len(w))
	for _, x := range w {
		out = append(out, x.text)
	}
	return out
}

// testCommand is python -m unittest|pytest ..., or pytest ...
func testCommand(w []string) bool {
	if len(w) == 0 {
		return false
	}
	if w[0] == "pytest" || w[0] == "py.test" {
		return true
	}
	return isPython(w[0]) && len(w) >= 3 && w[1] == "-m" && (w[2] == "unittest" || w[2] == "pytest")
}

// shellRead reads the commands that show a file: cat, head, tail,
// sed -n 'a,bp', and nl -ba | sed -n 'a,bp'.
func (p *parser) shellRead(stages [][]string) (Action, bool, *Error) {
	if len(stages) == 0 || len(stages) > 2 || len(stages[0]) == 0 {
		return Action{}, false, nil
	}
	first := stages[0]
	var (
		a     Action
		files []string
	)
	switch first[0] {
	case "cat", "nl":
		for _, w := range first[1:] {
			switch {
			case w == "-n" || w == "-ba" || w == "-b" || w == "a" || w == "--number":
			case strings.HasPrefix(w, "-"):
				return Action{}, false, nil
			default:
				files = append(files, w)
			}
		}
	case "head", "tail":
		n, rest, ok := countFlag(first[1:])
		if !ok {
			return Action{}, false, nil
		}
		files = rest
		if first[0] == "head" {
			a.Start, a.End = 1, n
		} else if n < 0 { // tail -n +K
			a.Start = -n
		} else {
			a.Last = n
		}
	case "sed":
		if len(first) < 3 || first[1] != "-n" {
			return Action{}, false, nil
		}
		s, e, ok := sedWindow(first[2])
		if !ok {
			return Action{}, false, nil
		}
		a.Start, a.End, files = s, e, first[3:]
	default:
		return Action{}, false, nil
	}
	if len(stages) == 2 {
		// nl -ba x.py | sed -n '10,20p', cat x.py | head -n 20
		if first[0] != "cat" && first[0] != "nl" {
			return Action{}, false, nil
		}
		second := stages[1]
		switch {
		case len(second) == 3 && second[0] == "sed" && second[1] == "-n":
			s, e, ok := sedWindow(second[2])
			if !ok {
				return Action{}, false, nil
			}
			a.Start, a.End = s, e
		case len(second) >= 1 && second[0] == "head":
			n, rest, ok := countFlag(second[1:])
			if !ok || len(rest) > 0 {
				return Action{}, false, nil
			}
			a.Start, a.End = 1, n
		default:
			return Action{}, false, nil
		}
	}
	p.verb = VerbRead
	switch len(files) {
	case 0:
		return Action{}, false, nil
	case 1:
	default:
		return Action{}, true, p.refuse(codeAmbiguous, "the command shows "+strconv.Itoa(len(files))+" files ("+strings.Join(files, ", ")+"); READ one file a reply")
	}
	if a.End > 0 && a.End < a.Start {
		return Action{}, true, p.fail("the line window " + quote(strconv.Itoa(a.Start)+"-"+strconv.Itoa(a.End)) + " does not end at or after its start")
	}
	path, err := p.clean(files[0])
	if err != nil {
		return Action{}, true, err
	}
	a.Verb, a.Path = VerbRead, path
	return a, true, nil
}

// countFlag reads head/tail's line count: -n N, -N, --lines=N, or none
// (10). tail's "-n +K" (from line K on) is returned as -K.
func countFlag(w []string) (int, []string, bool) {
	n := 10
	for len(w) > 0 && strings.HasPrefix(w[0], "-") {
		f := w[0]
		var v string
		switch {
		case f == "-n" && len(w) > 1:
			v, w = w[1], w[2:]
		case strings.HasPrefix(f, "--lines="):
			v, w = strings.TrimPrefix(f, "--lines="), w[1:]
		case strings.HasPrefix(f, "-n"):
			v, w = f[2:], w[1:]
		default:
			v, w = f[1:], w[1:]
		}
		from := strings.HasPrefix(v, "+")
		k, err := strconv.Atoi(strings.TrimPrefix(v, "+"))
		if err != nil || k < 1 || k > 1e9 {
			return 0, nil, false
		}
		n = k
		if from {
			n = -k
		}
	}
	return n, w, true
}

// sedWindow reads sed's print script 'a,bp' ('ap' is one line; 'a,$p' is
// from a to the end).
func sedWindow(s string) (int, int, bool) {
	m := sedPrintRE.FindStringSubmatch(s)
	if m == nil {
		return 0, 0, false
	}
	a, err := strconv.Atoi(m[1])
	if err != nil || a < 1 || a > 1e9 {
		return 0, 0, false
	}
	switch m[2] {
	case "":
		return a, a, true
	case "$":
		return a, 0, true
	}
	b, err := strconv.Atoi(m[2])
	if err != nil || b > 1e9 {
		return 0, 0, false
	}
	return a, b, true
}

// refuseShell refuses a command the harness will not run, naming the
// action that does what the command was for.
func (p *parser) refuseShell(shown, first string) *Error {
	first = trimOutputFilter(first)
	fields := strings.Fields(first)
	name := ""
	if len(fields) > 0 {
		name = fields[0]
	}
	edits := strings.Contains(first, ">") || strings.Contains(first, "sed -i") || strings.Contains(first, "perl -i") || name == "tee"
	var instead string
	switch {
	case edits:
		instead = "To change a file, PATCH path with FIND: and REPLACE: blocks; to create or replace one, WRITE path with the whole file in a fenced block."
	case name == "rm" || name == "mv" || name == "cp" || name == "mkdir" || name == "touch" || name == "chmod" || name == "ln" || name == "git" || name == "rmdir":
		instead = "Files change only through WRITE path (with the whole file) and PATCH path (with FIND: and REPLACE: blocks); nothing is deleted or moved."
	case name == "ls" || name == "find" || name == "tree" || name == "grep" || name == "rg" || name == "ag" || name == "ack" || name == "git-grep":
		instead = "The files are listed in the repository map; to find where a name is defined, SKILL locate NAME; to see a file, READ path."
	case isPython(name) || name == "pip" || name == "make" || name == "tox" || name == "nox":
		instead = "To check your change, RUN tests."
	case name == "echo" && strings.Contains(first, "COMPLETE_TASK"):
		instead = "To finish, DONE summary."
	default:
		instead = "Use one action: READ path, WRITE path, PATCH path, RUN tests, SKILL name args, ASK question or DONE summary."
	}
	if len(shown) > 200 {
		shown = shown[:200] + "..."
	}
	return p.refuse(codeShellCommand, "`"+shown+"` is a shell command, and this harness runs no shell commands: nothing was run. "+instead)
}

// isPython reports whether a command names Python: python, python3,
// python3.12 or py.
func isPython(name string) bool {
	if name == "py" || name == "python" || name == "python3" {
		return true
	}
	minor, ok := strings.CutPrefix(name, "python3.")
	return ok && minor != "" && strings.Trim(minor, "0123456789") == ""
}
