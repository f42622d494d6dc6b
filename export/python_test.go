package export_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pyharness/pyharness/export"
	"github.com/pyharness/pyharness/internal/testkit/needs"
)

// validator is the stdlib-only checker of the trainers' documented rules.
var validator = filepath.Join("..", "scripts", "validate_sft.py")

var (
	pythonOnce sync.Once
	pythonPath string
)

// python is the interpreter python3 on PATH runs, resolved once: a version
// manager's shim costs half a second a start.
func python(t *testing.T) string {
	t.Helper()
	pythonOnce.Do(func() {
		out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
		if err == nil {
			pythonPath = strings.TrimSpace(string(out))
		}
	})
	if pythonPath == "" {
		needs.Missing(t, "no python3 on PATH (apt-get install -y python3)")
	}
	return pythonPath
}

func validate(t *testing.T, args ...string) (string, error) {
	t.Helper()
	out, err := exec.Command(python(t), append([]string{validator}, args...)...).CombinedOutput()
	return string(out), err
}

// The real python3 accepts what export writes, for SFT and preference
// pairs, with and without kept tool calls.
func TestPythonValidatorAcceptsExports(t *testing.T) {
	in := writeFixture(t)
	tests := []struct {
		name   string
		format string
		layout string
		keep   bool
		args   []string
	}{
		{"prompt-completion", export.FormatJSONL, "prompt-completion", false, nil},
		{"messages", export.FormatJSONL, "messages", false, nil},
		{"assistant-only", export.FormatJSONL, "assistant-only", false, []string{"--assistant-only"}},
		{"prompt-completion with kept tool calls", export.FormatJSONL, "prompt-completion", true, []string{"--tool-calls"}},
		{"messages with kept tool calls", export.FormatJSONL, "messages", true, []string{"--tool-calls"}},
		{"dpo", export.FormatDPO, "prompt-completion", false, []string{"--dpo"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := options(in, t.TempDir(), tt.format)
			o.KeepToolCalls, o.Layout = tt.keep, tt.layout
			o.Test = 0.3
			runExport(t, o)
			out, err := validate(t, append(tt.args, o.Out)...)
			if err != nil || !strings.HasPrefix(out, "ok:") {
				t.Fatalf("the validator rejects the export: %v\n%s", err, out)
			}
		})
	}
}

// The validator rejects each broken rule, and names it.
func TestPythonValidatorRejects(t *testing.T) {
	const (
		sys  = `{"role":"system","content":"s"}`
		user = `{"role":"user","content":"u"}`
		asst = `{"role":"assistant","content":"a","weight":1}`
		old  = `{"role":"assistant","content":"refused draft","weight":0}`
	)
	row := func(msgs ...string) string { return `{"messages":[` + strings.Join(msgs, ",") + `]}` }
	pc := func(completion string, prompt ...string) string {
		return `{"prompt":[` + strings.Join(prompt, ",") + `],"completion":[` + completion + `]}`
	}
	good := row(sys, user, asst)
	goodPC := pc(`{"role":"assistant","content":"a"}`, sys, user)
	tests := []struct {
		name  string
		train string
		valid string
		card  func(train, valid int) string
		rule  string
	}{
		{"not json", "{oops\n", good + "\n", nil, "json-object"},
		{"extra top-level key", `{"messages":[` + sys + `,` + user + `,` + asst + `],"weight":2}` + "\n", good + "\n", nil, "one-layout"},
		{"layouts mixed", good + "\n" + goodPC + "\n", good + "\n", nil, "one-layout"},
		{"string prompt and completion", `{"prompt":"p","completion":"c"}` + "\n", goodPC + "\n", nil, "messages-list"},
		{"two completions", pc(`{"role":"assistant","content":"a"},{"role":"assistant","content":"b"}`, sys, user) + "\n", goodPC + "\n", nil, "completion-one"},
		{"prompt ends with the assistant", pc(`{"role":"assistant","content":"a"}`, sys, user, asst) + "\n", goodPC + "\n", nil, "last-assistant"},
		{"empty messages", `{"messages":[]}` + "\n", good + "\n", nil, "messages-list"},
		{"unknown key on a message", row(sys, user, `{"role":"assistant","content":"a","weight":1,"name":"x"}`) + "\n", good + "\n", nil, "role-content"},
		{"tool calls without --tool-calls", row(sys, user, `{"role":"assistant","content":"","weight":1,"tool_calls":[]}`) + "\n", good + "\n", nil, "role-content"},
		{"refused draft trained", row(sys, user, `{"role":"assistant","content":"refused draft","weight":1}`, user, asst) + "\n", good + "\n", nil, "trained-last"},
		{"no weight on an assistant message", row(sys, user, `{"role":"assistant","content":"a"}`, user, asst) + "\n", good + "\n", nil, "trained-last"},
		{"last draft untrained", row(sys, user, old) + "\n", good + "\n", nil, "trained-last"},
		{"unknown role", row(sys, `{"role":"human","content":"u"}`, asst) + "\n", good + "\n", nil, "known-role"},
		{"null content", row(sys, `{"role":"user","content":null}`, asst) + "\n", good + "\n", nil, "string-content"},
		{"no system first", row(user, asst) + "\n", good + "\n", nil, "system-first"},
		{"two users in a row", row(sys, user, user, asst) + "\n", good + "\n", nil, "alternating"},
		{"ends with the user", row(sys, user, asst, user) + "\n", good + "\n", nil, "last-assistant"},
		{"empty validation", good + "\n", "", nil, "valid-split"},
		{"arguments a string (tool calls)", row(sys, user, `{"role":"assistant","content":"","weight":1,"tool_calls":[{"id":"a1b2c3d4e","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a.py\"}"}}]}`) + "\n", good + "\n", nil, "tool-calls"},
		{"id call_1 (tool calls)", row(sys, user, `{"role":"assistant","content":"","weight":1,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"read_file","arguments":{"path":"a.py"}}}]}`) + "\n", good + "\n", nil, "tool-calls"},
		{"tool message without its call id (tool calls)", row(sys, user, `{"role":"assistant","content":"","weight":0,"tool_calls":[{"id":"a1b2c3d4e","type":"function","function":{"name":"read_file","arguments":{"path":"a.py"}}}]}`, `{"role":"tool","content":"x"}`, asst) + "\n", good + "\n", nil, "tool-calls"},
		{"tools a string (tool calls)", `{"messages":[` + sys + `,` + user + `,` + asst + `],"tools":"[]"}` + "\n", good + "\n", nil, "tools-column"},
		{"card counts off", good + "\n" + good + "\n", good + "\n", func(int, int) string { return card(1, 1) }, "card-counts"},
		{"an earlier draft an assistant message (assistant-only)", row(sys, user, old, user, asst) + "\n", good + "\n", nil, "one-assistant"},
		{"an earlier draft in the prompt (assistant-only)", pc(`{"role":"assistant","content":"a"}`, sys, user, `{"role":"assistant","content":"b"}`, user) + "\n", goodPC + "\n", nil, "one-assistant"},
	}
	dirs := make([]string, len(tests))
	for i, tt := range tests {
		dir := t.TempDir()
		dirs[i] = dir
		{
			nTrain, nValid := strings.Count(tt.train, "\n"), strings.Count(tt.valid, "\n")
			c := card(nTrain, nValid)
			if tt.card != nil {
				c = tt.card(nTrain, nValid)
			}
			var meta strings.Builder
			for i := range nTrain {
				meta.WriteString(`{"split":"train","row":` + itoa(i) + "}\n")
			}
			for i := range nValid {
				meta.WriteString(`{"split":"validation","row":` + itoa(i) + "}\n")
			}
			for name, body := range map[string]string{"train.jsonl": tt.train, "valid.jsonl": tt.valid, "README.md": c, "meta.jsonl": meta.String()} {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	// One run of the validator over every directory: it checks each apart;
	// the exports with tool calls in another, with --tool-calls.
	var plain, tools, single []string
	for i, tt := range tests {
		switch {
		case strings.Contains(tt.name, "(tool calls)"):
			tools = append(tools, dirs[i])
		case strings.Contains(tt.name, "(assistant-only)"):
			single = append(single, dirs[i])
		default:
			plain = append(plain, dirs[i])
		}
	}
	out, err := validate(t, plain...)
	outTools, errTools := validate(t, append([]string{"--tool-calls"}, tools...)...)
	outSingle, errSingle := validate(t, append([]string{"--assistant-only"}, single...)...)
	if err == nil || errTools == nil || errSingle == nil {
		t.Fatalf("accepted:\n%s\n%s\n%s", out, outTools, outSingle)
	}
	out += outTools + outSingle
	for i, tt := range tests {
		found := false
		for line := range strings.Lines(out) {
			if strings.HasPrefix(line, dirs[i]+string(filepath.Separator)) && strings.Contains(line, ": "+tt.rule+": ") {
				found = true
			}
		}
		if !found || strings.Contains(out, "ok: SFT export "+dirs[i]+":") {
			t.Errorf("%s: not rejected for %s:\n%s", tt.name, tt.rule, out)
		}
	}
}

func card(train, valid int) string {
	return "---\nconfigs:\n  - config_name: default\ndataset_info:\n  splits:\n    - name: train\n      num_examples: " + itoa(train) +
		"\n    - name: validation\n      num_examples: " + itoa(valid) + "\n---\n\n# card\n"
}
