package chattemplate_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/pyharness/pyharness/classify"
	"github.com/pyharness/pyharness/collect"
	"github.com/pyharness/pyharness/datasets"
	"github.com/pyharness/pyharness/dedupe"
	"github.com/pyharness/pyharness/export"
	"github.com/pyharness/pyharness/harness"
	"github.com/pyharness/pyharness/harness/chattemplate"
	"github.com/pyharness/pyharness/harness/draft"
	"github.com/pyharness/pyharness/harness/model"
	"github.com/pyharness/pyharness/schemas"
)

// namedTemplates are the templates the demo's export must go through, by
// test file: each must be among the test templates.
var namedTemplates = []string{
	"meta-llama-Llama-3.1-8B-Instruct", "meta-llama-Llama-3.2-3B-Instruct", "meta-llama-Llama-3.3-70B-Instruct",
	"Qwen-Qwen2.5-7B-Instruct", "Qwen-Qwen3-0.6B", "Qwen3-Coder", "Qwen-QwQ-32B",
	"deepseek-ai-DeepSeek-R1-Distill-Qwen-32B", "deepseek-ai-DeepSeek-V3.1",
	"mistralai-Mistral-Nemo-Instruct-2407", "Mistral-Small-3.2-24B-Instruct-2506", "unsloth-mistral-Devstral-Small-2507",
	"google-gemma-7b-it", "google-gemma-2-2b-it", "google-gemma-3-it",
	"microsoft-Phi-3-mini", "microsoft-Phi-3.5-mini-instruct", "microsoft-phi-4",
	"ibm-granite-granite-3.3-2B-Instruct", "HuggingFaceTB-SmolLM3-3B", "openai-gpt-oss-120b",
}

// collectDemo collects one pass of the embedded benchmark with each case's
// scripted drafts, then classifies and dedupes, as pyharness demo does
// (runDemo); native turns every draft the protocol can state into the
// native tool call the harness offers for it, for a native-tool export.
func collectDemo(out string, native bool) error {
	ctx := context.Background()
	cases, err := datasets.Cases()
	if err != nil {
		return err
	}
	_, err = collect.Run(ctx, collect.Options{
		Cases: cases, Passes: 1, Jobs: 2, OutDir: out, Resume: true, Now: time.Now,
		Model: func(ctx context.Context, it collect.Item, pass int, opts schemas.Options, slot int) (collect.Backend, error) {
			be, err := collect.CaseScript(*it.Case, pass, opts)
			if native {
				be.Chat = nativeCalls{be.Chat}
			}
			return be, err
		},
	})
	if err != nil {
		return err
	}
	if _, err := classify.Update(ctx, out, filepath.Join(out, "dataset")); err != nil {
		return err
	}
	_, err = dedupe.Run(ctx, out, dedupe.Options{}, io.Discard)
	return err
}

// nativeCalls answers with native tool calls where the scripted draft is a
// text action.
type nativeCalls struct{ c harness.Chatter }

func (n nativeCalls) Chat(ctx context.Context, req model.Request) (model.Reply, error) {
	r, err := n.c.Chat(ctx, req)
	if err != nil || len(r.ToolCalls) > 0 {
		return r, err
	}
	if a, err := draft.Parse(r.Content, nil); err == nil {
		if call, ok := draft.NativeCall(a); ok {
			r.Content, r.ToolCalls = "", []schemas.ToolCall{call}
		}
	}
	return r, nil
}

// dropsToolCalls reads testdata/drops-tool-calls.txt.
func dropsToolCalls(t testing.TB) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "drops-tool-calls.txt"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
			out[l] = true
		}
	}
	return out
}

// TestDemoExportsUnderRealTemplates: the demo's export (a scripted collect of the embedded benchmark, exported
// with --include-scripted), its --include-failed-runs export and a
// native-tool (--keep-tool-calls) export go through export --chat-template
// with each test template. Each export must succeed (a template known to
// drop native calls must fail the native one, naming the row); each row
// written is then rendered again, apart from the export's own check: the
// system prompt and every user message present, every trained answer
// unaltered, each tool call's name and arguments once and not
// double-encoded; and Python jinja2, set up as transformers sets it up,
// must render every row byte for byte as Go does.
func TestDemoExportsUnderRealTemplates(t *testing.T) {
	chattemplate.NeedJinja2(t)
	files, err := filepath.Glob(filepath.Join("testdata", "templates", "*.jinja"))
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, f := range files {
		have[strings.TrimSuffix(filepath.Base(f), ".jinja")] = true
	}
	for _, n := range namedTemplates {
		if !have[n] {
			t.Errorf("named template %s is not in testdata/templates", n)
		}
	}
	noTools := dropsToolCalls(t)

	// The two collections wait on the cases' test runs more than they
	// compute: side by side they take little more than one.
	start := time.Now()
	demo, native := t.TempDir(), t.TempDir()
	var g errgroup.Group
	g.Go(func() error { return collectDemo(demo, false) })
	g.Go(func() error { return collectDemo(native, true) })
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	t.Logf("the two collections took %s", time.Since(start).Round(time.Second))
	variants := []struct {
		name string
		in   string
		set  func(*export.Options)
	}{
		{"default", demo, func(*export.Options) {}},
		{"include-failed-runs", demo, func(o *export.Options) { o.IncludeFailedRuns = true }},
		{"keep-tool-calls", native, func(o *export.Options) { o.KeepToolCalls = true }},
	}
	run := func(t *testing.T, in, out string, set func(*export.Options), tp *chattemplate.Template) (*export.Summary, error) {
		o := export.DefaultOptions()
		o.In, o.Out, o.Format, o.IncludeScripted = in, out, export.FormatJSONL, true
		set(&o)
		o.ChatTemplate = tp
		return export.Run(context.Background(), o, io.Discard)
	}
	// Without a template, each export has rows, and the native one has
	// tool calls: otherwise the templates would have nothing to refuse.
	for _, v := range variants {
		out := filepath.Join(t.TempDir(), v.name)
		sum, err := run(t, v.in, out, v.set, nil)
		if err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		rows := 0
		for _, sp := range sum.Splits {
			rows += sp.Rows
		}
		train, _ := os.ReadFile(filepath.Join(out, "train.jsonl"))
		calls := 0
		for _, l := range bytes.Split(train, []byte("\n")) {
			if bytes.Contains(l, []byte(`"tool_calls"`)) {
				calls++
			}
		}
		t.Logf("%s export: %d rows, %d of train.jsonl's with tool calls", v.name, rows, calls)
		if rows == 0 || (v.name == "keep-tool-calls") != (calls > 0) {
			t.Fatalf("%s export: %d rows, %d with tool calls", v.name, rows, calls)
		}
	}

	var checked, exports, refused, renders, same int
	for _, f := range files {
		tp := chattemplate.LoadTemplateFile(t, f)
		t.Run(tp.Name, func(t *testing.T) {
			var py chattemplate.PyBatch
			for _, v := range variants {
				out := filepath.Join(t.TempDir(), v.name)
				sum, err := run(t, v.in, out, v.set, tp)
				if v.name == "keep-tool-calls" && noTools[tp.Name] {
					var re *export.TemplateRowError
					if !errors.As(err, &re) || re.Line < 1 || !strings.Contains(err.Error(), "drops the answer's tool calls") {
						t.Errorf("%s: %v, want the row whose calls the template drops named", v.name, err)
					}
					refused++
					continue
				}
				if err != nil {
					t.Errorf("%s: %v", v.name, err)
					continue
				}
				n := chattemplate.AssertRendersExportDir(t, tp, out)
				if sum.Template == nil || sum.Template.Rows < n {
					t.Errorf("%s: the export checked %+v, %d rows written", v.name, sum.Template, n)
				}
				checked += n
				exports++
				py.AddExportDir(t, tp, v.name, out)
			}
			r, s := py.Compare(t)
			renders, same = renders+r, same+s
		})
	}
	t.Logf("%d templates: %d exports, %d rows rendered and checked, %d native-tool exports refused as expected; %d renders compared with Python jinja2, %d the same",
		len(files), exports, checked, refused, renders, same)
}
