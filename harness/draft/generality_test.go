package draft

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/schemas"
)

// A wrapper writes one call (a tool name and string arguments, in order)
// as one documented format would.
type wrapper struct {
	name string
	wrap func(name string, args [][2]string) string
}

func jsonObj(args [][2]string) string {
	var parts []string
	for _, a := range args {
		parts = append(parts, js(a[0])+": "+js(a[1]))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func pyArgs(args [][2]string) string {
	var parts []string
	for _, a := range args {
		parts = append(parts, a[0]+"="+js(a[1]))
	}
	return strings.Join(parts, ", ")
}

var wrappers = []wrapper{
	{"json-call", func(n string, a [][2]string) string {
		return `{"name": ` + js(n) + `, "arguments": ` + jsonObj(a) + `}`
	}},
	{"tool-call-tag", func(n string, a [][2]string) string {
		return "I will do it.\n<tool_call>\n{\"name\": " + js(n) + ", \"arguments\": " + jsonObj(a) + "}\n</tool_call>"
	}},
	{"mistral-list", func(n string, a [][2]string) string {
		return `[TOOL_CALLS] [{"name": ` + js(n) + `, "arguments": ` + jsonObj(a) + `}]`
	}},
	{"mistral-args", func(n string, a [][2]string) string { return "[TOOL_CALLS]" + n + "[ARGS]" + jsonObj(a) }},
	{"deepseek", func(n string, a [][2]string) string {
		return dsCallsBegin + dsCallBegin + "function" + dsSep + n + "\n```json\n" + jsonObj(a) + "\n```" + dsCallEnd + dsCallsEnd
	}},
	{"phi4", func(n string, a [][2]string) string {
		return `<|tool_call|>[{"name": ` + js(n) + `, "arguments": ` + jsonObj(a) + `}]<|/tool_call|>`
	}},
	{"python-tag", func(n string, a [][2]string) string {
		return `<|python_tag|>{"name": ` + js(n) + `, "parameters": ` + jsonObj(a) + `}<|eom_id|>`
	}},
	{"json-fence", func(n string, a [][2]string) string {
		return "```json\n{\"name\": " + js(n) + ", \"arguments\": " + jsonObj(a) + "}\n```"
	}},
	{"tool-code", func(n string, a [][2]string) string {
		return "```tool_code\nprint(default_api." + n + "(" + pyArgs(a) + "))\n```"
	}},
	{"dotted-call", func(n string, a [][2]string) string { return "functions." + n + "(" + pyArgs(a) + ")" }},
	{"pythonic-list", func(n string, a [][2]string) string { return "[" + n + "(" + pyArgs(a) + ")]" }},
	{"xml-tool", func(n string, a [][2]string) string {
		s := "<" + n + ">\n"
		for _, x := range a {
			s += "<" + x[0] + ">" + x[1] + "</" + x[0] + ">\n"
		}
		return s + "</" + n + ">"
	}},
	{"parameter-tags", func(n string, a [][2]string) string {
		s := "<tool_call>\n<function=" + n + ">\n"
		for _, x := range a {
			s += "<parameter=" + x[0] + ">\n" + x[1] + "\n</parameter>\n"
		}
		return s + "</function>\n</tool_call>"
	}},
	{"function-tag-json", func(n string, a [][2]string) string { return "<function=" + n + ">" + jsonObj(a) + "</function>" }},
	{"command-r", func(n string, a [][2]string) string {
		return "Action: ```json\n[\n    {\n        \"tool_name\": " + js(n) + ",\n        \"parameters\": " + jsonObj(a) + "\n    }\n]\n```"
	}},
	{"functionary", func(n string, a [][2]string) string { return ">>>" + n + "\n" + jsonObj(a) }},
	{"harmony", func(n string, a [][2]string) string {
		return "<|channel|>analysis<|message|>plan<|end|><|start|>assistant<|channel|>commentary to=functions." + n + " <|constrain|>json<|message|>" + jsonObj(a) + "<|call|>"
	}},
	{"json-action", func(n string, a [][2]string) string {
		return `{"action": ` + js(n) + `, "action_input": ` + jsonObj(a) + `}`
	}},
	{"react", func(n string, a [][2]string) string {
		return "Thought: next step.\nAction: " + n + "\nAction Input: " + jsonObj(a)
	}},
}

// TestGenerality writes one action in every wrapper, under every tool name
// the lexicon has for it, with every spelling of each argument it takes,
// and requires the same action from each.
func TestGenerality(t *testing.T) {
	type role struct {
		names []string
		value string
	}
	type group struct {
		verb string
		// editor is the command an editor tool names the operation by.
		editor string
		shell  bool
		roles  []role
		want   Action
	}
	path := role{argPath, "greet.py"}
	groups := []group{
		{verb: VerbRead, editor: "view", roles: []role{path}, want: Action{Verb: VerbRead, Path: "greet.py"}},
		{verb: VerbWrite, editor: "create", roles: []role{path, {argContent, "x = 1\n"}}, want: Action{Verb: VerbWrite, Path: "greet.py", Body: "x = 1\n"}},
		{verb: VerbPatch, editor: "str_replace", roles: []role{path, {argFind, "x = 1"}, {argReplace, "x = 2"}}, want: Action{Verb: VerbPatch, Path: "greet.py", Find: "x = 1", Replace: "x = 2"}},
		{verb: VerbRun, roles: nil, want: Action{Verb: VerbRun, Args: []string{"tests"}}},
		{shell: true, roles: []role{{argCommand, "python -m pytest tests"}}, want: Action{Verb: VerbRun, Args: []string{"tests"}}},
		{verb: VerbAsk, roles: []role{{argAsk, "Keep the dots?"}}, want: Action{Verb: VerbAsk, Text: "Keep the dots?"}},
		{verb: VerbDone, roles: []role{{argDone, "greet strips the name"}}, want: Action{Verb: VerbDone, Text: "greet strips the name"}},
	}
	n := 0
	for _, g := range groups {
		// Every tool name for the group, the editor tools with their
		// command.
		type toolName struct {
			name  string
			extra [][2]string
		}
		var names []toolName
		for _, row := range toolTable {
			switch {
			case row.kind == kindShell && g.shell, row.kind == kindVerb && row.verb == g.verb && g.verb != "":
				for _, nm := range row.names {
					names = append(names, toolName{name: nm})
				}
			case row.kind == kindEditor && g.editor != "":
				for _, nm := range row.names {
					names = append(names, toolName{nm, [][2]string{{"command", g.editor}}})
				}
			}
		}
		// Every spelling of each argument, the others at their first.
		var argSets [][][2]string
		if len(g.roles) == 0 {
			argSets = append(argSets, nil)
		}
		for i, r := range g.roles {
			for _, spelling := range r.names {
				var args [][2]string
				for j, o := range g.roles {
					k := o.names[0]
					if j == i {
						k = spelling
					}
					args = append(args, [2]string{k, o.value})
				}
				argSets = append(argSets, args)
			}
		}
		for _, tn := range names {
			for _, args := range argSets {
				all := append(append([][2]string{}, tn.extra...), args...)
				for _, w := range wrappers {
					n++
					draft := w.wrap(tn.name, all)
					a, err := Parse(draft, nil)
					if err != nil {
						t.Errorf("%s %s %v: %v\n%s", w.name, tn.name, all, err, draft)
						continue
					}
					if !sameAction(a, g.want) {
						t.Errorf("%s %s %v: got %s, want %s\n%s", w.name, tn.name, all, show(a), show(g.want), draft)
					}
				}
				// And as a native tool call.
				m := map[string]any{}
				for _, x := range all {
					m[x[0]] = x[1]
				}
				a, err := Parse("", []schemas.ToolCall{{Name: tn.name, Arguments: m}})
				if err != nil || !sameAction(a, g.want) {
					t.Errorf("native %s %v: got %s, %v; want %s", tn.name, all, show(a), err, show(g.want))
				}
			}
		}
	}
	t.Logf("%d drafts read alike", n)
}

func sameAction(a, b Action) bool {
	return a.Verb == b.Verb && a.Path == b.Path && a.Body == b.Body && a.Find == b.Find &&
		a.Replace == b.Replace && a.Text == b.Text && slices.Equal(a.Args, b.Args)
}

func show(a Action) string {
	return fmt.Sprintf("%s path=%q body=%q find=%q replace=%q text=%q args=%q", a.Verb, a.Path, a.Body, a.Find, a.Replace, a.Text, a.Args)
}
