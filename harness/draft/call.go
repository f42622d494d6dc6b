package draft

import (
	"encoding/json"
	"fmt"
	"math"
	"path"
	"strconv"
	"strings"

	"github.com/pyharness/pyharness/schemas"
)

// bareWord is an unquoted call argument: a name the model typed (x.py), or
// a placeholder (content, ...) that stands for a block after the call.
type bareWord string

// callArgs are the arguments of a call, positional and by keyword.
type callArgs struct {
	pos []any
	kw  map[string]any
}

// get is the argument under any of keys (name keys, see nameKey), else
// the positional one at pos.
func (c callArgs) get(keys []string, pos int) (any, bool) {
	for _, k := range keys {
		if v, ok := c.kw[nameKey(k)]; ok {
			return v, true
		}
	}
	if pos >= 0 && pos < len(c.pos) {
		return c.pos[pos], true
	}
	return nil, false
}

// str reads a string argument. A bare word counts unless text is set: file
// content must be a string literal, and a bare "content" or "..." is a
// placeholder.
func (c callArgs) str(keys []string, pos int, text bool) (string, bool, string) {
	v, ok := c.get(keys, pos)
	if !ok || v == nil {
		return "", false, ""
	}
	switch v := v.(type) {
	case string:
		return v, true, ""
	case bareWord:
		if text {
			return "", false, ""
		}
		return string(v), true, ""
	}
	return "", false, "argument " + keys[0] + " must be a string"
}

// shellNames are the shells whose "-c LINE" runs LINE.
var shellNames = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true}

// envelopeArg is the edit envelope a string argument holds, at any depth
// of a list.
func (c callArgs) envelopeArg() (string, bool) {
	var find func(v any) (string, bool)
	find = func(v any) (string, bool) {
		switch v := v.(type) {
		case string:
			return v, envelopeLineRE.MatchString(v)
		case []any:
			for _, x := range v {
				if s, ok := find(x); ok {
					return s, true
				}
			}
		}
		return "", false
	}
	for _, v := range c.kw {
		if s, ok := find(v); ok {
			return s, true
		}
	}
	for _, v := range c.pos {
		if s, ok := find(v); ok {
			return s, true
		}
	}
	return "", false
}

// argv reads an argument given as a list of words (a command's argument
// vector).
func (c callArgs) argv(keys []string) ([]string, bool) {
	v, ok := c.get(keys, -1)
	list, isList := v.([]any)
	if !ok || !isList || len(list) == 0 {
		return nil, false
	}
	out := make([]string, 0, len(list))
	for _, x := range list {
		s, ok := x.(string)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// keyed builds call arguments from named ones, keyed by nameKey. An
// argument found by what it is may sit a level or two deeper than a flat
// schema has it: an object ({"edit": {"old_text": …, "new_text": …}}) or
// a list of one object ({"edits": [{…}]}) lends its keys to the call,
// where the call has no argument of that name itself.
func keyed(args map[string]any) callArgs {
	c := callArgs{kw: make(map[string]any, len(args))}
	for k, v := range args {
		if _, dup := c.kw[nameKey(k)]; !dup {
			c.kw[nameKey(k)] = v
		}
	}
	return c.lendNested()
}

// lendNested gives the call the arguments its object arguments hold (see
// keyed). An object that holds arguments is their container, not an
// argument of its own name ({"replacement": {"old_string": …}} is no
// replacement text).
func (c callArgs) lendNested() callArgs {
	var nested []map[string]any
	for k, v := range c.kw {
		m, ok := v.(map[string]any)
		if l, isList := v.([]any); isList && len(l) == 1 {
			m, ok = l[0].(map[string]any)
		}
		if !ok {
			continue
		}
		nested = append(nested, m)
		for ik := range m {
			if knownArg(ik) {
				delete(c.kw, k)
				break
			}
		}
	}
	for depth := 0; depth < 2 && len(nested) > 0; depth++ {
		var deeper []map[string]any
		for _, m := range nested {
			for k, v := range m {
				if !knownArg(k) {
					if inner, ok := v.(map[string]any); ok {
						deeper = append(deeper, inner)
					}
					continue
				}
				if _, dup := c.kw[nameKey(k)]; !dup {
					c.kw[nameKey(k)] = v
				}
			}
		}
		nested = deeper
	}
	return c
}

func (c callArgs) num(keys []string, pos int) (int, bool, string) {
	v, ok := c.get(keys, pos)
	if !ok || v == nil {
		return 0, false, ""
	}
	var (
		n   int
		err error
	)
	switch v := v.(type) {
	case float64:
		if v != math.Trunc(v) || v < 0 || v > 1e9 {
			err = fmt.Errorf("not a line number")
		}
		n = int(v)
	case int:
		n = v
	case json.Number:
		n, err = strconv.Atoi(string(v))
	case string:
		n, err = strconv.Atoi(strings.TrimSpace(v))
	case bareWord:
		n, err = strconv.Atoi(string(v))
	default:
		err = fmt.Errorf("not a number")
	}
	if err != nil {
		return 0, false, "argument " + keys[0] + " must be a line number"
	}
	return n, true, ""
}

// list reads a list of words: a list value, or a string split on spaces.
func (c callArgs) list(keys []string) ([]string, string) {
	v, ok := c.get(keys, -1)
	if !ok || v == nil {
		return nil, ""
	}
	switch v := v.(type) {
	case string:
		// A list written as JSON inside a text argument (templates that
		// print every value as text: <arg_value>["a"]</arg_value>).
		if t := strings.TrimSpace(v); strings.HasPrefix(t, "[") {
			var l []any
			if json.Unmarshal([]byte(t), &l) == nil {
				return callArgs{kw: map[string]any{"list": l}}.list([]string{"list"})
			}
			// Or in Python's notation (['a', 'b']), the whole value.
			r := relaxed{s: t}
			if v, ok := r.value(0); ok && r.i == len(t) {
				if l, isList := v.([]any); isList {
					return callArgs{kw: map[string]any{"list": l}}.list([]string{"list"})
				}
			}
		}
		return strings.Fields(v), ""
	case bareWord:
		return strings.Fields(string(v)), ""
	case []any:
		var out []string
		for _, x := range v {
			switch x := x.(type) {
			case string:
				out = append(out, x)
			case bareWord:
				out = append(out, string(x))
			case json.Number:
				out = append(out, string(x))
			default:
				return nil, "argument " + keys[0] + " must be a list of strings"
			}
		}
		return out, ""
	}
	return nil, "argument " + keys[0] + " must be a list of strings"
}

// fromArgs builds the action a call names. needBody and needBlocks say
// that a WRITE or PATCH gave no content; a text call may still have it in
// blocks after the call, a native tool call may not.
func (p *parser) fromArgs(verb, name string, c callArgs) (a Action, needBody, needBlocks bool, err *Error) {
	a.Verb = verb
	switch verb {
	case VerbRead, VerbWrite, VerbPatch:
		raw, ok, bad := c.str(argPath, 0, false)
		if bad != "" {
			return a, false, false, p.fail(name + ": " + bad)
		}
		if !ok {
			return a, false, false, p.fail(name + " without a path")
		}
		if verb == VerbRead {
			s, sok, bad := c.num(argStart, 1)
			if bad != "" {
				return a, false, false, p.fail(name + ": " + bad)
			}
			e, eok, bad := c.num(argEnd, 2)
			if bad != "" {
				return a, false, false, p.fail(name + ": " + bad)
			}
			if !eok {
				if rs, re, ok, bad := c.lineRange(); bad != "" {
					return a, false, false, p.fail(name + ": " + bad)
				} else if ok {
					s, sok, e, eok = rs, true, re, re > 0
				}
			}
			if n, nok, bad := c.num(argLimit, -1); bad != "" {
				return a, false, false, p.fail(name + ": " + bad)
			} else if nok && n > 0 && !eok {
				if !sok || s < 1 {
					s, sok = 1, true
				}
				e, eok = s+n-1, true
			}
			if sok || eok {
				if !sok {
					s = 1
				}
				es := ""
				if eok {
					es = strconv.Itoa(e)
				}
				if s, e, bad = window(strconv.Itoa(s), es); bad != "" {
					return a, false, false, p.fail(bad)
				}
				a.Start, a.End = s, e
			} else if rest, s, e, ok, bad := splitWindow(raw); ok {
				if bad != "" {
					return a, false, false, p.fail(bad)
				}
				raw, a.Start, a.End = rest, s, e
			}
		}
		if a.Path, err = p.clean(raw); err != nil {
			return a, false, false, err
		}
		switch verb {
		case VerbWrite:
			body, ok, bad := c.str(argContent, 1, true)
			if bad != "" {
				return a, false, false, p.fail(name + ": " + bad)
			}
			if !ok {
				return a, true, false, nil
			}
			if holdsSearchReplace(body) {
				// Another edit format as the content: the change it
				// describes, not a file of markers.
				a.Verb, p.verb = VerbPatch, VerbPatch
				return p.diffArg(a, name, body)
			}
			body, reps := stripFenced(body)
			p.repair(reps...)
			a.Body = fileBody(body)
		case VerbPatch:
			find, fok, bad := c.str(argFind, 1, true)
			if bad != "" {
				return a, false, false, p.fail(name + ": " + bad)
			}
			replace, rok, bad := c.str(argReplace, 2, true)
			if bad != "" {
				return a, false, false, p.fail(name + ": " + bad)
			}
			if !fok && !rok {
				if diff, ok, _ := c.str(argDiff, -1, true); ok {
					return p.diffArg(a, name, diff)
				}
				if diff, ok, _ := c.str(argContent, -1, true); ok && (holdsSearchReplace(diff) || diffLike(strings.Split(diff, "\n"), true)) {
					return p.diffArg(a, name, diff)
				}
				return a, false, true, nil
			}
			if !fok || strings.TrimSpace(find) == "" {
				return a, false, false, p.fail(name + " without find text: copy the lines to change from the file")
			}
			if !rok {
				return a, false, false, p.fail(name + " without replace text")
			}
			find, reps := stripFenced(find)
			p.repair(reps...)
			replace, reps = stripFenced(replace)
			p.repair(reps...)
			a.Find, a.Replace = find, replace
		}
	case VerbRun:
		args, bad := c.list(argTarget)
		if bad != "" {
			return a, false, false, p.fail(name + ": " + bad)
		}
		if len(args) == 0 {
			if s, ok, _ := c.str(argTarget, 0, false); ok {
				args = strings.Fields(s)
			}
		}
		if t, _ := lookupTool(name); len(args) == 0 && t.verb == VerbRun {
			args = []string{"tests"}
		}
		a.Args = args
	case VerbSkill:
		s, ok, bad := c.str(argName, 0, false)
		if bad != "" {
			return a, false, false, p.fail(name + ": " + bad)
		}
		if !ok || !isSkillName(s) {
			return a, false, false, p.fail(name + " without a skill name, e.g. skill(\"locate\", \"parse_args\")")
		}
		a.Skill = s
		args, bad := c.list(argArgs)
		if bad != "" {
			return a, false, false, p.fail(name + ": " + bad)
		}
		if _, kw := c.get(argArgs, -1); !kw {
			for _, v := range c.pos[min(1, len(c.pos)):] {
				switch v := v.(type) {
				case string:
					args = append(args, v)
				case bareWord:
					args = append(args, string(v))
				}
			}
		}
		a.Args = args
	case VerbAsk:
		q, _, bad := c.str(argAsk, 0, false)
		if bad != "" {
			return a, false, false, p.fail(name + ": " + bad)
		}
		if a.Text = strings.TrimSpace(q); a.Text == "" {
			return a, false, false, p.fail(name + " without a question")
		}
	case VerbDone:
		s, _, bad := c.str(argDone, 0, false)
		if bad != "" {
			return a, false, false, p.fail(name + ": " + bad)
		}
		a.Text = strings.TrimSpace(s)
	}
	return a, false, false, nil
}

// callAction reads a call written as text: read_file(path="x.py"),
// write_file("x.py", """..."""), run_tests(), done("summary").
func (p *parser) callAction(d *doc, i int, h head) (Action, int, *Error) {
	src := h.rest
	if i+1 < len(d.lines) {
		src += "\n" + strings.Join(d.lines[i+1:], "\n")
	}
	c, n, reason := parseCall(src)
	if reason != "" {
		return Action{}, i, p.fail(strings.ToLower(h.word) + "(...): " + reason)
	}
	last := i + strings.Count(src[:n], "\n")
	d.use(i, last)
	if after, _, _ := strings.Cut(src[n:], "\n"); strings.Trim(after, " \t.;`*") != "" {
		p.shape(shapeReasonAfterVerb)
	}
	a, needBody, needBlocks, err := p.fromCall(strings.ToLower(h.word), c)
	if err != nil {
		return Action{}, i, err
	}
	switch {
	case needBody:
		a.Body, last, err = p.bodyAfter(d, last)
	case needBlocks:
		a.Find, a.Replace, last, err = p.patchBlocks(d, last)
	}
	return a, last, err
}

// decodeArgs reads call arguments given as an object, or as a string that
// holds one (the OpenAI wire form).
func decodeArgs(raw json.RawMessage) (map[string]any, bool) {
	args := map[string]any{}
	if len(raw) == 0 || string(raw) == "null" {
		return args, true
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if strings.TrimSpace(s) == "" {
			return args, true
		}
		raw = json.RawMessage(s)
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if dec.Decode(&args) != nil {
		return nil, false
	}
	return args, true
}

// toolAction maps one named call with keyword arguments to an action;
// native tool calls and the JSON of ReAct's Action Input come through here.
func (p *parser) toolAction(name string, args map[string]any) (Action, error) {
	a, err := p.callToAction(name, keyed(args))
	if err != nil {
		return Action{}, err
	}
	return p.done(a), nil
}

// callToAction is the action of a call that must carry all it needs in
// its arguments (no block after it to take the content from).
func (p *parser) callToAction(name string, c callArgs) (Action, *Error) {
	a, needBody, needBlocks, err := p.fromCall(name, c)
	if err != nil {
		return Action{}, err
	}
	n := strings.ToLower(strings.TrimSpace(name))
	if needBody {
		return Action{}, p.fail(n + " without content: give the whole file as content")
	}
	if needBlocks {
		return Action{}, p.fail(n + " without find and replace text")
	}
	return a, nil
}

// fromCall builds the action a named call asks for, through the lexicon:
// a verb's tool, a shell tool whose command is read as a shell block is,
// or an editor tool whose command names the operation.
func (p *parser) fromCall(name string, c callArgs) (a Action, needBody, needBlocks bool, err *Error) {
	t, ok := lookupTool(name)
	if !ok {
		return a, false, false, p.fail("unknown tool " + quote(name) + "; the tools are read_file, write_file, patch_file, run_tests, skill, ask and done")
	}
	// An edit envelope given to any tool (apply_patch, a shell's
	// argument) is read as the envelope.
	if env, ok := c.envelopeArg(); ok {
		a, err := p.envelope(env)
		return a, false, false, err
	}
	switch t.kind {
	case kindShell:
		cmd, ok, bad := c.str(argCommand, -1, false)
		if argv, isList := c.argv(argCommand); bad != "" && isList {
			// An argument vector is the command a shell would run; a
			// shell given a command line runs that line.
			cmd, ok, bad = shellJoin(argv), true, ""
			if len(argv) == 3 && shellNames[path.Base(argv[0])] && strings.HasPrefix(argv[1], "-") && strings.HasSuffix(argv[1], "c") {
				cmd = argv[2]
			}
		}
		if bad != "" {
			return a, false, false, p.fail(name + ": " + bad)
		}
		if !ok || strings.TrimSpace(cmd) == "" {
			p.verb = VerbRun
			return p.fromArgs(VerbRun, name, c)
		}
		a, err := p.shellBlock(strings.Split(cmd, "\n"))
		return a, false, false, err
	case kindEditor:
		sub, _, _ := c.str(argCommand, -1, false)
		verb, ok := editorCommands[nameKey(sub)]
		if !ok {
			return a, false, false, p.fail(name + " with command " + quote(sub) + ", which this harness does not have: use view, create or str_replace (or READ, WRITE and PATCH)")
		}
		p.verb = verb
		return p.fromArgs(verb, name, c)
	}
	p.verb = t.verb
	return p.fromArgs(t.verb, name, c)
}

func parseToolCalls(content string, calls []schemas.ToolCall) (Action, error) {
	p := newParser(renderCalls(content, calls), ViaToolCall)
	p.shape(ShapeToolCall)
	var first Action
	seen := map[string]bool{}
	var read []string
	for i, c := range calls {
		a, err := p.callToAction(c.Name, keyed(c.Arguments))
		if err != nil {
			return Action{}, err
		}
		if i == 0 {
			first = a
		}
		a.Shape, a.Via, a.Repairs = "", "", nil
		key, _ := json.Marshal(a)
		if !seen[string(key)] {
			seen[string(key)] = true
			read = append(read, Canonical(a))
		}
	}
	if len(read) > 1 {
		p.verb = first.Verb
		return Action{}, p.refuse(codeAmbiguous, "it holds "+strconv.Itoa(len(read))+" different calls ("+strings.Join(read, "; ")+"), and which one you meant is not for the harness to guess")
	}
	if len(calls) > 1 {
		p.repair(repairExtraActionsIgnored)
	}
	p.verb = first.Verb
	return p.done(first), nil
}

// renderCalls is what a tool-call draft records as its text: the content,
// then each call as its name and JSON arguments.
func renderCalls(content string, calls []schemas.ToolCall) string {
	var b strings.Builder
	b.WriteString(content)
	for _, c := range calls {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		args, err := json.Marshal(c.Arguments)
		if err != nil {
			args = []byte("{}")
		}
		b.WriteString(c.Name)
		b.WriteByte('(')
		b.Write(args)
		b.WriteByte(')')
	}
	return b.String()
}

// lineRange reads a window given as one argument: a list [start, end]
// (end -1 for the end of the file), or a string "[1, 20]" or "1-20".
func (c callArgs) lineRange() (start, end int, ok bool, bad string) {
	v, found := c.get(argRange, -1)
	if !found || v == nil {
		return 0, 0, false, ""
	}
	var parts []any
	switch v := v.(type) {
	case []any:
		parts = v
	case string:
		t := strings.Trim(strings.TrimSpace(v), "[]()")
		for _, f := range strings.FieldsFunc(t, func(r rune) bool { return r == ',' || r == ' ' }) {
			parts = append(parts, f)
		}
		if len(parts) == 1 {
			if a, b, cut := strings.Cut(t, "-"); cut {
				parts = []any{strings.TrimSpace(a), strings.TrimSpace(b)}
			}
		}
	default:
		return 0, 0, false, "argument " + argRange[0] + " must be two line numbers"
	}
	if len(parts) != 2 {
		return 0, 0, false, "argument " + argRange[0] + " must be two line numbers"
	}
	w := callArgs{pos: parts}
	start, sok, b1 := w.num(argRange, 0)
	if s, isStr := parts[1].(string); isStr && strings.TrimSpace(s) == "-1" {
		parts[1] = "0"
	}
	if f, isNum := parts[1].(json.Number); isNum && string(f) == "-1" {
		parts[1] = "0"
	}
	if f, isNum := parts[1].(float64); isNum && f == -1 {
		parts[1] = 0.0
	}
	end, eok, b2 := w.num(argRange, 1)
	if b1 != "" || b2 != "" || !sok || !eok {
		return 0, 0, false, "argument " + argRange[0] + " must be two line numbers"
	}
	return start, end, true, ""
}

// holdsSearchReplace reports whether a text holds a SEARCH/REPLACE block.
func holdsSearchReplace(s string) bool {
	if !strings.Contains(s, "=======") {
		return false
	}
	for _, l := range strings.Split(s, "\n") {
		if searchMarkRE.MatchString(l) {
			return true
		}
	}
	return false
}

// diffArg reads a PATCH whose change came as one diff argument: SEARCH
// and REPLACE blocks (Aider's and Cline's markers, Roo Code's with a
// :start_line: line), or a unified diff.
func (p *parser) diffArg(a Action, name, diff string) (Action, bool, bool, *Error) {
	lines := strings.Split(strings.ReplaceAll(diff, "\r\n", "\n"), "\n")
	for j, l := range lines {
		if !searchMarkRE.MatchString(l) {
			continue
		}
		// Roo Code: ":start_line:N" and "-------" open the search text.
		k := j + 1
		for k < len(lines) && (isLineMarker(lines[k]) || strings.TrimSpace(lines[k]) == "-------") {
			k++
		}
		body := append([]string{lines[j]}, lines[k:]...)
		d := newDoc(body)
		find, replace, _, err := p.markerBlocks(d, 0, len(body))
		if err != nil {
			return a, false, false, err
		}
		a.Find, a.Replace = find, replace
		return a, false, false, nil
	}
	if diffLike(lines, true) {
		pd, err := p.parseDiff(lines, a.Path)
		if err != nil {
			return a, false, false, err
		}
		if pd.isNew {
			return a, false, false, p.fail(name + " with a diff that creates " + a.Path + ": write the whole file instead")
		}
		p.shape(ShapeUnifiedDiff)
		a.Hunks = pd.hunks
		return a, false, false, nil
	}
	return a, false, false, p.fail(name + ": the diff has no SEARCH/REPLACE block and is not a unified diff")
}
