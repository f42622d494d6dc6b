package draft

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pyharness/pyharness/schemas"
)

// toolNames maps native tool names to verbs. Only these names are accepted
// as calls: an unknown tool is an error rather than a guess.
var toolNames = map[string]string{
	"read_file": VerbRead, "read": VerbRead,
	"write_file": VerbWrite, "write": VerbWrite,
	"patch_file": VerbPatch, "patch": VerbPatch, "edit_file": VerbPatch,
	"run_tests": VerbRun, "run": VerbRun,
	"skill": VerbSkill,
	"ask":   VerbAsk,
	"done":  VerbDone,
}

// Argument names, the documented one first, then the spellings models use.
var (
	argPath    = []string{"path", "file_path", "filename", "file"}
	argContent = []string{"content", "contents", "body", "code", "text"}
	argFind    = []string{"find", "search", "old", "old_str", "old_string"}
	argReplace = []string{"replace", "replacement", "new", "new_str", "new_string"}
	argStart   = []string{"start", "start_line", "line_start"}
	argEnd     = []string{"end", "end_line", "line_end"}
	argName    = []string{"name", "skill"}
	argArgs    = []string{"args", "arguments"}
	argTarget  = []string{"target", "targets", "args"}
	argAsk     = []string{"question", "text", "message"}
	argDone    = []string{"summary", "text", "message", "result"}
)

// bareWord is an unquoted call argument: a name the model typed (x.py), or
// a placeholder (content, ...) that stands for a block after the call.
type bareWord string

// callArgs are the arguments of a call, positional and by keyword.
type callArgs struct {
	pos []any
	kw  map[string]any
}

func (c callArgs) get(keys []string, pos int) (any, bool) {
	for _, k := range keys {
		if v, ok := c.kw[k]; ok {
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
		if len(args) == 0 && name == "run_tests" {
			args = []string{"tests"}
		}
		a.Args = args
	case VerbSkill:
		s, ok, bad := c.str(argName, 0, false)
		if bad != "" {
			return a, false, false, p.fail(name + ": " + bad)
		}
		if !ok || !skillRE.MatchString(s) {
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
		p.shape(ShapeReasonAfterVerb)
	}
	a, needBody, needBlocks, err := p.fromArgs(h.verb, strings.ToLower(h.word), c)
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

// jsonCall reads a tool call a model wrote as text instead of making it:
// {"name": "read_file", "arguments": {...}}, bare or inside <tool_call>
// tags, as llama3.1 and qwen2.5 do when the server does not parse them.
func (p *parser) jsonCall(text string) (Action, bool, error) {
	t := strings.TrimSpace(text)
	if s, ok := strings.CutPrefix(t, "<tool_call>"); ok {
		t = strings.TrimSpace(s)
		if i := strings.Index(t, "</tool_call>"); i >= 0 {
			t = t[:i] + t[i+len("</tool_call>"):]
		}
	}
	if !strings.HasPrefix(t, "{") {
		return Action{}, false, nil
	}
	dec := json.NewDecoder(strings.NewReader(t))
	dec.UseNumber()
	var call struct {
		Name       string          `json:"name"`
		Arguments  json.RawMessage `json:"arguments"`
		Parameters json.RawMessage `json:"parameters"`
	}
	if err := dec.Decode(&call); err != nil || call.Name == "" {
		return Action{}, false, nil
	}
	// {"name": "read_file", "path": "x.py"} is an action object with its
	// arguments at the top: jsonAction reads it.
	if len(call.Arguments) == 0 && len(call.Parameters) == 0 {
		return Action{}, false, nil
	}
	raw := call.Arguments
	if len(raw) == 0 {
		raw = call.Parameters
	}
	args, ok := decodeArgs(raw)
	if !ok {
		return Action{}, false, nil
	}
	p.shape(ShapeJSONCall)
	if strings.TrimSpace(t[dec.InputOffset():]) != "" {
		p.shape(ShapeChatter)
	}
	a, err := p.toolAction(call.Name, args)
	return a, true, err
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

// toolAction maps one named call with keyword arguments to an action; both
// native tool calls and JSON written as text come through here.
func (p *parser) toolAction(name string, args map[string]any) (Action, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	n = strings.TrimPrefix(n, "functions.")
	verb, ok := toolNames[n]
	if !ok {
		return Action{}, p.fail("unknown tool " + quote(name) + "; the tools are read_file, write_file, patch_file, run_tests, skill, ask and done")
	}
	p.verb = verb
	a, needBody, needBlocks, err := p.fromArgs(verb, n, callArgs{kw: args})
	if err != nil {
		return Action{}, err
	}
	if needBody {
		return Action{}, p.fail(n + " without content: give the whole file as content")
	}
	if needBlocks {
		return Action{}, p.fail(n + " without find and replace text")
	}
	return p.done(a), nil
}

func parseToolCalls(content string, calls []schemas.ToolCall) (Action, error) {
	p := newParser(renderCalls(content, calls), ViaToolCall)
	p.shape(ShapeToolCall)
	if len(calls) > 1 {
		p.repair(RepairExtraActionsIgnored)
	}
	return p.toolAction(calls[0].Name, calls[0].Arguments)
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
