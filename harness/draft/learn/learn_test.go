package learn

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/harness/chattemplate"
	"github.com/pyharness/pyharness/harness/draft"
	"github.com/pyharness/pyharness/schemas"
)

var update = flag.Bool("update", false, "rewrite the golden syntaxes in testdata/golden")

// templateFiles are every test template: testdata/templates and
// testdata/extra.
func templateFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, dir := range []string{"templates", "extra"} {
		m, err := filepath.Glob(filepath.Join("testdata", dir, "*.jinja"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	sort.Strings(files)
	if len(files) < 70 {
		t.Fatalf("found %d test templates, want the 77 of testdata", len(files))
	}
	return files
}

func name(file string) string { return strings.TrimSuffix(filepath.Base(file), ".jinja") }

// hardCode is a file body with what breaks naive readers: quotes of both
// kinds, escapes, backslashes, text outside ASCII, a closing tag inside a
// string, a line that looks like a fence.
const hardCode = "import re\n\n\ndef greet(name):\n    \"\"\"Say hi — to 世界.\"\"\"\n    pattern = re.compile(r\"\\d+\\s*\")\n    html = '<b>' + name + '</b></parameter></arg_value></tool_call>'\n    return f\"hi {name!r}\\n\" + html.replace('\\\\', '/')\n"

// harnessCalls are one call of each tool the harness offers, with hard
// arguments.
func harnessCalls() []schemas.ToolCall {
	return []schemas.ToolCall{
		{Name: "read_file", Arguments: map[string]any{"path": "src/ünï code/app.py"}},
		{Name: "write_file", Arguments: map[string]any{"path": "src/greet.py", "content": hardCode}},
		{Name: "patch_file", Arguments: map[string]any{"path": "src/greet.py", "find": "    return f\"hi {name!r}\\n\" + html", "replace": "    return 'hi \\'%s\\'</x>' % name  # «quoted»"}},
		{Name: "run_tests", Arguments: map[string]any{}},
		{Name: "skill", Arguments: map[string]any{"name": "locate", "args": []any{"parse_args"}}},
		{Name: "ask", Arguments: map[string]any{"question": "Should \"--all\" stay\non by default?"}},
		{Name: "done", Arguments: map[string]any{"summary": "greet() escapes </b> now; tests pass ✓"}},
	}
}

func harnessTools() []any {
	var out []any
	for _, tl := range draft.NativeTools() {
		params, _ := json.Marshal(tl.Parameters)
		var p map[string]any
		_ = json.Unmarshal(params, &p)
		// Templates test "name in parameters.required", which a null breaks.
		if p["required"] == nil {
			p["required"] = []any{}
		}
		out = append(out, obj("type", "function", "function", obj("name", tl.Name, "description", tl.Description, "parameters", toObject(p))))
	}
	return out
}

// toObject makes decoded JSON the ordered objects templates are given
// (keys sorted), so that a template may call .items() on any of them.
func toObject(v any) any {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		o := obj()
		for _, k := range keys {
			o.Set(k, toObject(v[k]))
		}
		return o
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = toObject(x)
		}
		return out
	}
	return v
}

func toCall(c schemas.ToolCall, id string) *chattemplate.Object {
	args := obj()
	keys := make([]string, 0, len(c.Arguments))
	for k := range c.Arguments {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		args.Set(k, c.Arguments[k])
	}
	return obj("id", id, "type", "function", "function", obj("name", c.Name, "arguments", args))
}

// reply is what a model writes for an assistant message: the rendering of
// the conversation with it, after the generation prompt and before what
// the template writes after every answer.
func reply(t *testing.T, tp Renderer, vars map[string]any, assistant *chattemplate.Object) (string, bool) {
	user := obj("role", "user", "content", "Fix greet.")
	tools := harnessTools()
	conv := func(msgs ...any) chattemplate.Conversation {
		return chattemplate.Conversation{Tools: tools, Vars: vars, Messages: msgs}
	}
	full, err := tp.Render(conv(user, assistant))
	if err != nil {
		// GigaChat reads a schema's "items" as the dict method, which
		// the Go engine gives the key: the calls render without tools.
		tools = nil
		if full, err = tp.Render(conv(user, assistant)); err != nil {
			return "", false
		}
	}
	pc := conv(user)
	pc.AddGenerationPrompt = true
	prompt, err := tp.Render(pc)
	if err != nil {
		return "", false
	}
	other, err := tp.Render(conv(user, obj("role", "assistant", "content", "Zq")))
	if err != nil {
		return "", false
	}
	n := prefixLen(prompt, full)
	m := 0
	for m < len(full)-n && m < len(other) && full[len(full)-1-m] == other[len(other)-1-m] {
		m++
	}
	end := len(full) - m
	// A model writes whole tokens: a cut inside "<|END_ACTION|>" is moved
	// to the token's edge.
	if k := strings.LastIndexAny(full[:n], "<["); k >= 0 && !strings.ContainsAny(full[k:n], ">]") {
		n = k
	}
	if k := strings.LastIndexAny(full[:end], "<["); k >= n && !strings.ContainsAny(full[k:end], ">]") {
		if e := strings.IndexAny(full[end:], ">]"); e >= 0 {
			end += e + 1
		}
	}
	return full[n:end], true
}

func prefixLen(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	for n > 0 && n < len(b) && b[n]&0xC0 == 0x80 {
		n--
	}
	return n
}

// callReply is a reply that makes one call, as the template writes it.
// Where the generation prompt opens reasoning, the model reasons before
// it calls: the call comes after reasoning the template renders, or,
// for a template that drops reasoning from its history, after the
// reasoning's close.
func callReply(t *testing.T, tp Renderer, syn *draft.Syntax, c *chattemplate.Object) (string, bool) {
	var vars map[string]any
	msg := func(kv ...any) *chattemplate.Object {
		return obj(append([]any{"role", "assistant"}, kv...)...)
	}
	r := syn.Reasoning
	opens := r != nil && r.PromptOpens
	extra := []any{}
	if opens && r.Field != "" {
		extra = []any{r.Field, "I will make the call."}
		vars = map[string]any{"enable_thinking": true, "thinking": true}
	}
	text, ok := reply(t, tp, vars, msg(append([]any{"content", "", "tool_calls", []any{c}}, extra...)...))
	if !ok {
		text, ok = reply(t, tp, vars, msg(append([]any{"tool_calls", []any{c}}, extra...)...))
	}
	if ok && opens && !strings.Contains(text, r.Close) {
		text = "I will make the call.\n" + r.Close + "\n\n" + text
	}
	return text, ok
}

// same compares what an action does, not how it was read.
func same(a, b draft.Action) bool {
	a.Shape, a.Via, a.Repairs, b.Shape, b.Via, b.Repairs = "", "", nil, "", "", nil
	return reflect.DeepEqual(a, b)
}

// rendersCalls reports whether the template writes an assistant's tool
// calls, as chattemplate's probe finds it.
func rendersCalls(tp *chattemplate.Template) bool {
	return string(chattemplate.NewChecker(tp).Traits.Tools) == "rendered"
}

func TestEveryTemplateReadsBackItsCalls(t *testing.T) {
	var templates, learned, plain, asRun, total int
	var missPlain []string
	for _, file := range templateFiles(t) {
		tp, err := chattemplate.Load(file)
		if err != nil {
			t.Fatal(err)
		}
		syn := learnSyntax(tp)
		if !rendersCalls(tp) {
			if syn.Calls != nil {
				t.Errorf("%s: the template renders no tool call, yet a call syntax was learned: %+v", name(file), syn.Calls)
			}
			continue
		}
		if syn.Calls == nil {
			t.Errorf("%s: renders tool calls, but no call syntax was learned", name(file))
			continue
		}
		templates++
		for i, c := range harnessCalls() {
			want, err := draft.Parse("", []schemas.ToolCall{c})
			if err != nil {
				t.Fatalf("%s as a native call: %v", c.Name, err)
			}
			text, ok := callReply(t, tp, syn, toCall(c, "c"+string(rune('A'+i))+"bcdefgh"))
			if !ok {
				t.Errorf("%s: cannot render a call to %s", name(file), c.Name)
				continue
			}
			total++
			got, err := draft.ParseWith(syn, text, nil)
			if err == nil && same(got, want) {
				learned++
			} else {
				t.Errorf("%s: %s read with the learned syntax as %+v, %v; want %+v\nreply: %q", name(file), c.Name, got, err, want, text)
			}
			got, err = draft.Parse(text, nil)
			if err == nil && same(got, want) {
				plain++
			} else {
				missPlain = append(missPlain, name(file)+" "+c.Name)
			}
			// A run reads it with the syntax for the reply as the server
			// handed it on (Syntax.ForReply), the reasoning in the content.
			if got, err := draft.ParseWith(syn.ForReply(schemas.Reply{Content: text, FinishReason: "stop"}), text, nil); err == nil && same(got, want) {
				asRun++
			} else {
				t.Errorf("%s: %s as a run reads it: %+v, %v", name(file), c.Name, got, err)
			}
		}
	}
	t.Logf("tool calls through %d templates that render them: %d/%d read with the learned syntax, %d/%d with no template, %d/%d as a run reads them", templates, learned, total, plain, total, asRun, total)
	if len(missPlain) > 0 {
		t.Errorf("read wrong or not at all with no template: %s", strings.Join(missPlain, ", "))
	}
}

// thought is reasoning that drafts an action: read as an action, it
// would write a file.
const thought = "The test fails because greet() does not escape.\nI could just write the file:\nWRITE src/greet.py\n```python\nprint('draft')\n```\nbut first I will look."

const answer = "DONE greet escapes now; tests pass"

// reasoningReply is a reply that reasons and then answers DONE, as the
// template writes it; thinking says it was rendered with thinking on. A
// template that drops reasoning from its history (the generation prompt
// opens it) is given the reply its model writes: the reasoning, the
// close mark, the answer.
func reasoningReply(t *testing.T, tp *chattemplate.Template, r *draft.ReasoningSyntax) (string, bool, bool) {
	if r.Field != "" {
		varsets := []map[string]any{nil, {"enable_thinking": true, "thinking": true, "reasoning_effort": "high"}}
		if r.OpensWhenThinking && !r.PromptOpens {
			// A model reasons when thinking is on.
			varsets[0], varsets[1] = varsets[1], varsets[0]
		}
		for _, vars := range varsets {
			text, ok := reply(t, tp, vars, obj("role", "assistant", "content", answer, r.Field, thought))
			if ok && strings.Contains(text, "print('draft')") {
				return text, vars != nil, true
			}
		}
	}
	if r.PromptOpens || r.OpensWhenThinking {
		return thought + "\n" + r.Close + "\n\n" + answer, !r.PromptOpens, true
	}
	return "", false, false
}

func TestEveryTemplateKeepsReasoningApart(t *testing.T) {
	var templates, learned, plain, cuts, cutLearned, cutPlain, cutPlainTotal int
	for _, file := range templateFiles(t) {
		tp, err := chattemplate.Load(file)
		if err != nil {
			t.Fatal(err)
		}
		syn := learnSyntax(tp)
		if syn.Reasoning == nil {
			continue
		}
		templates++
		text, thinking, ok := reasoningReply(t, tp, syn.Reasoning)
		if !ok {
			t.Errorf("%s: a reasoning syntax was learned, but no reply renders with reasoning", name(file))
			continue
		}
		if thinking {
			syn = syn.Thinking()
		}
		got, err := draft.ParseWith(syn, text, nil)
		if err == nil && got.Verb == draft.VerbDone {
			learned++
		} else {
			t.Errorf("%s: reasoning then DONE read with the learned syntax as %+v, %v\nreply: %q", name(file), got, err, text)
		}
		if got, err := draft.Parse(text, nil); err == nil && got.Verb == draft.VerbDone {
			plain++
		} else {
			t.Errorf("%s: reasoning then DONE read with no template as %+v, %v\nreply: %q", name(file), got, err, text)
		}
		// Cut inside the reasoning, just after its drafted WRITE.
		cut := text[:strings.Index(text, "print('draft')")]
		cuts++
		_, err = draft.ParseWith(syn, cut, nil)
		if e, ok := err.(*draft.Error); ok && e.Code == draft.CodeReasoningCut {
			cutLearned++
		} else {
			t.Errorf("%s: a reply cut inside its reasoning was not refused as cut with the learned syntax: %v\nreply: %q", name(file), err, cut)
		}
		if _, err := draft.ParseWith(syn.ForReply(schemas.Reply{Content: cut, FinishReason: "length"}), cut, nil); !isCut(err) {
			t.Errorf("%s: a reply cut inside its reasoning, as a run reads it, was not refused as cut: %v", name(file), err)
		}
		// With no template, a reply cut inside reasoning that the prompt
		// opened holds no mark of it: only the rest can be asked.
		if strings.Contains(cut, syn.Reasoning.Open) && syn.Reasoning.Open != "" {
			cutPlainTotal++
			if _, err := draft.Parse(cut, nil); err != nil {
				if e, ok := err.(*draft.Error); ok && e.Code == draft.CodeReasoningCut {
					cutPlain++
					continue
				}
			}
			t.Errorf("%s: a reply cut inside its reasoning, which shows the open mark, was not refused as cut with no template\nreply: %q", name(file), cut)
		}
	}
	t.Logf("reasoning through %d templates that render it: %d/%d answers read apart from it with the learned syntax, %d/%d with no template; cut inside it: %d/%d refused with the learned syntax, %d/%d (replies that show the open mark) with no template",
		templates, learned, templates, plain, templates, cutLearned, cuts, cutPlain, cutPlainTotal)
}

func isCut(err error) bool {
	e, ok := err.(*draft.Error)
	return ok && e.Code == draft.CodeReasoningCut
}

func TestLearnedSyntaxGolden(t *testing.T) {
	for _, file := range templateFiles(t) {
		tp, err := chattemplate.Load(file)
		if err != nil {
			t.Fatal(err)
		}
		syn := learnSyntax(tp)
		syn.Template, syn.Name = Digest(tp.Source), name(file)
		got, err := json.MarshalIndent(syn, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, '\n')
		golden := filepath.Join("testdata", "golden", name(file)+".json")
		if *update {
			if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(golden, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run go test ./harness/draft/learn -run Golden -update)", err)
		}
		if string(got) != string(want) {
			t.Errorf("%s: the learned syntax changed:\ngot  %s\nwant %s", name(file), got, want)
		}
	}
}

// readScore ranks a reading against the action wanted: 2 read right, 1
// refused, 0 read as another action.
func readScore(got draft.Action, err error, want draft.Action) int {
	switch {
	case err != nil:
		return 1
	case same(got, want):
		return 2
	}
	return 0
}

// TestTemplateNeverReadsWorse reads every template's calls, and the
// same calls written the ways models write them beside their template's
// syntax (an extra argument the tool does not take, a Python call inside
// the template's tags, chatter around the call, this protocol's own
// line), with the template and without it: with it, no reply is read
// worse.
func TestTemplateNeverReadsWorse(t *testing.T) {
	var total, better, worse int
	for _, file := range templateFiles(t) {
		tp, err := chattemplate.Load(file)
		if err != nil {
			t.Fatal(err)
		}
		syn := learnSyntax(tp)
		if syn.Calls == nil {
			continue
		}
		for i, c := range harnessCalls() {
			want, err := draft.Parse("", []schemas.ToolCall{c})
			if err != nil {
				t.Fatal(err)
			}
			id := "c" + string(rune('A'+i)) + "bcdefgh"
			extra := schemas.ToolCall{Name: c.Name, Arguments: map[string]any{"reason": "to see it"}}
			for k, v := range c.Arguments {
				extra.Arguments[k] = v
			}
			var variants []string
			if text, ok := callReply(t, tp, syn, toCall(c, id)); ok {
				variants = append(variants, text, "I will make the change now.\n\n"+text+"\n\nThat should do it.")
			}
			if text, ok := callReply(t, tp, syn, toCall(extra, id)); ok {
				variants = append(variants, text)
			}
			if c.Name == "read_file" {
				variants = append(variants,
					`<tool_call>read_file(path="src/ünï code/app.py", reason="look first")</tool_call>`,
					"<tool_call>\nread_file(path=\"src/ünï code/app.py\")\n</tool_call>",
					"<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"src/ünï code/app.py\", \"reason\": \"look first\"}}\n</tool_call>",
					"READ src/ünï code/app.py")
			}
			for _, text := range variants {
				total++
				plain, perr := draft.Parse(text, nil)
				// As a run reads it: the syntax for the reply as the
				// server handed it on.
				with, werr := draft.ParseWith(syn.ForReply(schemas.Reply{Content: text, FinishReason: "stop"}), text, nil)
				p, w := readScore(plain, perr, want), readScore(with, werr, want)
				switch {
				case w < p:
					worse++
					t.Errorf("%s: %s read worse with the template (%v, %v) than without (%v, %v)\nreply: %q", name(file), c.Name, with, werr, plain, perr, text)
				case w > p:
					better++
				}
			}
		}
	}
	t.Logf("%d replies through the templates' syntax: %d read better with the template, %d worse", total, better, worse)
}
