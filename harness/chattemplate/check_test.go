package chattemplate

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// testTokens stand for a tokenizer's special tokens: the same in Go and
// Python, which is all the comparison needs.
var testTokens = map[string]string{"bos_token": "<s>", "eos_token": "</s>"}

var testNow = time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC)

func loadTestTemplate(t testing.TB, name string) *Template {
	t.Helper()
	return loadTemplateFile(t, filepath.Join("testdata", "templates", name+".jinja"))
}

func loadTemplateFile(t testing.TB, path string) *Template {
	t.Helper()
	tp, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	tp.Name = strings.TrimSuffix(filepath.Base(path), ".jinja")
	tp.Tokens = testTokens
	tp.Now = func() time.Time { return testNow }
	return tp
}

// exportRow is one line of an export directory.
type exportRow struct {
	where string // file:line
	line  []byte
}

// readExportDir reads every data row of an export directory (its *.jsonl,
// meta.jsonl aside), in file order.
func readExportDir(t testing.TB, dir string) []exportRow {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	var rows []exportRow
	for _, f := range files {
		if filepath.Base(f) == "meta.jsonl" {
			continue
		}
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 64<<20)
		for n := 1; sc.Scan(); n++ {
			rows = append(rows, exportRow{where: fmt.Sprintf("%s:%d", filepath.Base(f), n), line: slices.Clone(sc.Bytes())})
		}
		fh.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	if len(rows) == 0 {
		t.Fatalf("no rows in %s", dir)
	}
	return rows
}

// outcome is what checking one row under one template gave.
type outcome struct {
	checked Checked
	err     error
}

// checkExportDir checks every row of an export directory against a
// template and asserts what a trainer needs of each row that renders:
// the system prompt and what the user said present, every trained answer
// present unaltered, each tool call's name and string arguments rendered
// once by the call itself and never double-encoded. It returns each row's
// outcome by file:line, for the caller to hold against what it expects of
// the template (which rows it must refuse). Point it at a real export.
func checkExportDir(t *testing.T, dir string, c *Checker) map[string]outcome {
	t.Helper()
	got := map[string]outcome{}
	for _, r := range readExportDir(t, dir) {
		ch, err := c.Check(r.line)
		got[r.where] = outcome{ch, err}
		if err != nil {
			var re *rowError
			if !errors.As(err, &re) || re.Template != c.T.Name {
				t.Errorf("%s: %v is no *RowError naming the template", r.where, err)
			}
			continue
		}
		assertRendersRow(t, r.where, c.T, ch.Row)
	}
	return got
}

// rowConversations reads an export row: its conversations and its tools.
func rowConversations(t testing.TB, where string, line []byte) ([]conversation, []any) {
	t.Helper()
	v, err := decodeJSON(line)
	if err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	row := v.(*Object)
	convs, err := conversations(row)
	if err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	tools, _ := row.vals["tools"].([]any)
	return convs, tools
}

// assertRendersRow renders an adapted row itself and checks it: the
// independent statement of what Check promises.
func assertRendersRow(t *testing.T, where string, tp *Template, line []byte) {
	t.Helper()
	convs, tools := rowConversations(t, where, line)
	for _, cv := range convs {
		msgs := append(append([]any{}, cv.context...), cv.trained...)
		out, err := tp.Render(Conversation{Messages: msgs, Tools: tools})
		if err != nil {
			t.Errorf("%s %s: adapted row raises: %v", where, cv.part, err)
			continue
		}
		for _, m := range objects(cv.context) {
			if r := m.String("role"); (r == "system" || r == "user") && !strings.Contains(out, strings.TrimSpace(m.String("content"))) {
				t.Errorf("%s %s: %s message %.40q… is not in the rendering", where, cv.part, r, m.String("content"))
			}
		}
		for _, m := range objects(cv.trained) {
			if s := strings.TrimSpace(m.String("content")); s != "" && !strings.Contains(out, s) {
				t.Errorf("%s %s: trained content %.40q… is altered in the rendering", where, cv.part, s)
			}
			calls := objects(asList(m.vals["tool_calls"]))
			if len(calls) == 0 {
				continue
			}
			var without string
			var err error
			m.without("tool_calls", func() { without, err = tp.Render(Conversation{Messages: msgs, Tools: tools}) })
			if err != nil {
				t.Errorf("%s: without its tool calls the row raises: %v", where, err)
				continue
			}
			for _, call := range calls {
				f := call.vals["function"].(*Object)
				name := f.String("name")
				if n := strings.Count(out, name) - strings.Count(without, name); n != 1 {
					t.Errorf("%s %s: tool call %s rendered %d times", where, cv.part, name, n)
				}
				args := f.vals["arguments"].(*Object)
				for _, k := range args.keys {
					if strings.Contains(out, `\"`+k+`\"`) {
						t.Errorf("%s %s: argument %s of %s double-encoded", where, cv.part, k, name)
					}
					if s, ok := args.vals[k].(string); ok && s != "" {
						// Once, as written or as JSON writes it; as often
						// again as it is part of an argument of this answer
						// (a PATCH's FIND is often in its REPLACE).
						if n, want := countArgument(out, s)-countArgument(without, s), occurrences(calls, s); n != want {
							t.Errorf("%s %s: argument %s=%q of %s rendered %d times, want %d", where, cv.part, k, s, name, n, want)
						}
					}
				}
			}
		}
	}
}

// countArgument counts s in a rendering, as written or JSON-encoded (by
// encoding/json, apart from the package's own tojson).
func countArgument(out, s string) int {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic(err)
	}
	esc := strings.TrimSuffix(b.String(), "\n")
	esc = esc[1 : len(esc)-1]
	n := strings.Count(out, s)
	if esc != s {
		n += strings.Count(out, esc)
	}
	return n
}

// occurrences counts s in the string arguments of calls.
func occurrences(calls []*Object, s string) int {
	n := 0
	for _, call := range calls {
		args := call.vals["function"].(*Object).vals["arguments"].(*Object)
		for _, v := range args.vals {
			if a, ok := v.(string); ok {
				n += strings.Count(a, s)
			}
		}
	}
	return n
}

// Rows of testdata/rows by file:line, to name what a template must refuse.
const (
	rowReasoning = "reasoning.jsonl:1"
	rowToolPC    = "tools.jsonl:1"
	rowToolMsgs  = "tools.jsonl:2"
	rowThink     = "think.jsonl:1"
)

var (
	noReasoning = "renders neither reasoning_content nor thinking"
	dropsTools  = "drops the answer's tool calls"
	stripsThink = "holds a <think> block, which the template strips"
)

// The test templates, what each must refuse (every other row must
// check clean) and the adaptations it needs. A refusal is loud by design:
// a template that renders no reasoning field, or drops tool calls, cannot
// train what such a row holds.
var templateCases = []struct {
	name    string
	refuses map[string]string // row → part of the error
	adapts  []Adaptation      // adaptations seen over all rows
	// notPrefix are the rows whose prompt stays no prefix of the
	// conversation: the template renders an answer otherwise than its
	// generation prompt begins one, whatever the answer.
	notPrefix []string
}{
	{name: "meta-llama-Llama-3.1-8B-Instruct", refuses: map[string]string{rowReasoning: noReasoning}},
	{name: "meta-llama-Llama-3.2-3B-Instruct", refuses: map[string]string{rowReasoning: noReasoning}},
	{name: "meta-llama-Llama-3.3-70B-Instruct", refuses: map[string]string{rowReasoning: noReasoning}},
	{name: "Qwen-Qwen2.5-7B-Instruct", refuses: map[string]string{rowReasoning: noReasoning}},
	{name: "Qwen-Qwen3-0.6B"},
	{name: "Qwen3-Coder", refuses: map[string]string{rowReasoning: noReasoning}},
	{name: "Qwen-QwQ-32B", refuses: map[string]string{rowReasoning: noReasoning}, adapts: []Adaptation{adaptGenerationTail},
		notPrefix: []string{rowToolPC, rowToolMsgs, rowThink}},
	{name: "deepseek-ai-DeepSeek-R1-Distill-Llama-8B", refuses: map[string]string{rowReasoning: noReasoning, rowThink: stripsThink, rowToolPC: dropsTools, rowToolMsgs: dropsTools}, adapts: []Adaptation{adaptGenerationTail}},
	{name: "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B", refuses: map[string]string{rowReasoning: noReasoning, rowThink: stripsThink},
		notPrefix: []string{"dpo.jsonl:1", "prompt-completion.jsonl:1", "prompt-completion.jsonl:2", "sft.jsonl:1", "sft.jsonl:2", rowToolPC, rowToolMsgs}},
	{name: "deepseek-ai-DeepSeek-V3.1", refuses: map[string]string{rowReasoning: noReasoning, rowThink: stripsThink}},
	{name: "mistralai-Mistral-Nemo-Instruct-2407", refuses: map[string]string{rowReasoning: noReasoning}, adapts: []Adaptation{adaptSystemFolded}},
	{name: "Mistral-Small-3.2-24B-Instruct-2506", refuses: map[string]string{rowReasoning: noReasoning}},
	{name: "unsloth-mistral-Devstral-Small-2507", refuses: map[string]string{rowReasoning: noReasoning}},
	{name: "google-gemma-7b-it", refuses: map[string]string{rowReasoning: noReasoning, rowToolPC: dropsTools, rowToolMsgs: "roles must alternate"}, adapts: []Adaptation{adaptSystemFolded}},
	{name: "google-gemma-2-2b-it", refuses: map[string]string{rowReasoning: noReasoning, rowToolPC: dropsTools, rowToolMsgs: "roles must alternate"}, adapts: []Adaptation{adaptSystemFolded}},
	{name: "google-gemma-3-it", refuses: map[string]string{rowReasoning: noReasoning, rowToolPC: dropsTools, rowToolMsgs: "roles must alternate"}},
	{name: "microsoft-Phi-3-mini", refuses: map[string]string{rowReasoning: noReasoning, rowToolPC: dropsTools, rowToolMsgs: dropsTools}, adapts: []Adaptation{adaptSystemFolded}},
	{name: "microsoft-Phi-3.5-mini-instruct", refuses: map[string]string{rowReasoning: noReasoning, rowToolPC: dropsTools, rowToolMsgs: dropsTools}},
	{name: "microsoft-phi-4", refuses: map[string]string{rowReasoning: noReasoning, rowToolPC: dropsTools, rowToolMsgs: dropsTools}},
	{name: "ibm-granite-granite-3.3-2B-Instruct", refuses: map[string]string{rowReasoning: noReasoning, rowToolPC: dropsTools, rowToolMsgs: dropsTools}},
	{name: "ibm-granite-granite-4.0", refuses: map[string]string{rowReasoning: noReasoning}},
	{name: "HuggingFaceTB-SmolLM3-3B", refuses: map[string]string{rowReasoning: noReasoning, rowToolPC: dropsTools, rowToolMsgs: dropsTools}},
	{name: "openai-gpt-oss-120b", adapts: []Adaptation{adaptReasoningField}},
	// Nemotron-3 writes <think></think> before an answer without
	// reasoning, its generation prompt <think>\n: only the row with
	// reasoning is a prefix.
	{name: "NVIDIA-Nemotron-3-Nano-30B-A3B-BF16",
		notPrefix: []string{"dpo.jsonl:1", "prompt-completion.jsonl:1", "prompt-completion.jsonl:2", "sft.jsonl:1", "sft.jsonl:2", rowToolPC, rowToolMsgs}},
}

func TestCheckRealTemplates(t *testing.T) {
	for _, tc := range templateCases {
		t.Run(tc.name, func(t *testing.T) {
			c := NewChecker(loadTestTemplate(t, tc.name))
			got := checkExportDir(t, filepath.Join("testdata", "rows"), c)
			var adapts []Adaptation
			var notPrefix []string
			for where, o := range got {
				if o.checked.NotPrefix != "" {
					notPrefix = append(notPrefix, where)
				}
				want, refused := tc.refuses[where]
				switch {
				case refused && o.err == nil:
					t.Errorf("%s: checked clean, want an error with %q (traits: %s)", where, want, c.Traits)
				case refused && !strings.Contains(o.err.Error(), want):
					t.Errorf("%s: error %q, want one with %q", where, o.err, want)
				case !refused && o.err != nil:
					t.Errorf("%s: %v (traits: %s)", where, o.err, c.Traits)
				}
				for _, a := range o.checked.Adaptations {
					if !slices.Contains(adapts, a) {
						adapts = append(adapts, a)
					}
				}
			}
			slices.Sort(adapts)
			want := slices.Clone(tc.adapts)
			slices.Sort(want)
			if !slices.Equal(adapts, want) {
				t.Errorf("adaptations %q, want %q", adapts, want)
			}
			slices.Sort(notPrefix)
			wantNP := slices.Clone(tc.notPrefix)
			slices.Sort(wantNP)
			if !slices.Equal(notPrefix, wantNP) {
				t.Errorf("rows whose prompt is no prefix %q, want %q", notPrefix, wantNP)
			}
		})
	}
}

// No real test template both strips <think> from content and renders a
// reasoning field; one that does gets the block moved to the field, and
// the reasoning and the answer both reach the rendering.
func TestCheckMovesThinkToField(t *testing.T) {
	tp, err := Parse("think-field", `{% for m in messages %}<|{{ m.role }}|>{% if m.role == 'assistant' %}{% if m.reasoning_content %}<think>{{ m.reasoning_content }}</think>{% endif %}{{ m.content.split('</think>')[-1] | trim }}{% else %}{{ m.content }}{% endif %}{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := NewChecker(tp)
	if !c.Traits.StripsThink || c.Traits.ReasoningField != "reasoning_content" {
		t.Fatalf("probe: %s", c.Traits)
	}
	rows := readExportDir(t, filepath.Join("testdata", "rows"))
	var think []byte
	for _, r := range rows {
		if r.where == rowThink {
			think = r.line
		}
	}
	ch, err := c.Check(think)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ch.Adaptations, []Adaptation{adaptThinkToField}) {
		t.Errorf("adaptations %q", ch.Adaptations)
	}
	want := `"completion":[{"role":"assistant","content":"READ cli.py:1-40","reasoning_content":"The parser is built in cli.py; read it before patching."}]`
	if !strings.Contains(string(ch.Row), want) {
		t.Errorf("adapted row %s\nlacks %s", ch.Row, want)
	}
}

// An adapted row keeps its keys where they were: checking a native call
// takes the calls out for a moment and puts them back in place.
func TestCheckKeepsKeyOrder(t *testing.T) {
	c := NewChecker(loadTestTemplate(t, "mistralai-Mistral-Nemo-Instruct-2407"))
	completion := `"completion":[{"role":"assistant","tool_calls":[{"id":"rdcl1xq7Z","type":"function","function":{"name":"read_file","arguments":{"path":"cli.py","start":1}}}],"content":""}]`
	row := `{"prompt":[{"role":"system","content":"S"},{"role":"user","content":"U"}],` + completion + `}`
	ch, err := c.Check([]byte(row))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"prompt":[{"role":"user","content":"S\n\nU"}],` + completion + `}`
	if !slices.Equal(ch.Adaptations, []Adaptation{adaptSystemFolded}) || string(ch.Row) != want {
		t.Errorf("adaptations %q, row\n%s\nwant\n%s", ch.Adaptations, ch.Row, want)
	}
}

// Arguments written as a JSON string (the old export) crash Qwen3-Coder
// ('str object' has no attribute 'items') and come out double-encoded
// under Llama 3.1: Check decodes them to the object both expect.
func TestCheckDecodesStringArguments(t *testing.T) {
	row := `{"prompt":[{"role":"user","content":"Look at cli.py"}],"completion":[{"role":"assistant","content":"","tool_calls":[{"id":"rdcl1xq7Z","type":"function","function":{"name":"read_file","arguments":"{\"path\": \"cli.py\"}"}}]}]}`
	for _, name := range []string{"Qwen3-Coder", "meta-llama-Llama-3.1-8B-Instruct"} {
		t.Run(name, func(t *testing.T) {
			tp := loadTestTemplate(t, name)
			v, err := decodeJSON([]byte(row))
			if err != nil {
				t.Fatal(err)
			}
			convs, _ := conversations(v.(*Object))
			msgs := append(append([]any{}, convs[0].context...), convs[0].trained...)
			out, err := tp.Render(Conversation{Messages: msgs})
			if err == nil && !strings.Contains(out, `\"path\"`) {
				t.Fatalf("as a string, the arguments render fine: %q", out)
			}
			ch, err := NewChecker(tp).Check([]byte(row))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ch.Adaptations, []Adaptation{adaptArgumentsDecoded}) || !strings.Contains(string(ch.Row), `"arguments":{"path":"cli.py"}`) {
				t.Errorf("adaptations %q, row %s", ch.Adaptations, ch.Row)
			}
			assertRendersRow(t, name, tp, ch.Row)
		})
	}
}

// A string argument holding > or a quote, which tojson writes as Python
// does (no \u003e), is found in the rendering: the patch_file calls of the
// demo's native export are not "dropped" under Llama 3.1.
func TestCheckFindsArgumentsAsToJSONWritesThem(t *testing.T) {
	row := `{"prompt":[{"role":"user","content":"Add human_size"}],"completion":[{"role":"assistant","content":"","tool_calls":[{"id":"rdcl1xq7Z","type":"function","function":{"name":"patch_file","arguments":{"path":"du.py","find":"def f():","replace":"def g(n):\n    \"\"\"512 -> \"512 B\" & more\"\"\"\n\n\ndef f():"}}}]}]}`
	for _, name := range []string{"meta-llama-Llama-3.1-8B-Instruct", "Qwen-Qwen2.5-7B-Instruct", "openai-gpt-oss-120b"} {
		ch, err := NewChecker(loadTestTemplate(t, name)).Check([]byte(row))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		assertRendersRow(t, name, loadTestTemplate(t, name), ch.Row)
	}
}
