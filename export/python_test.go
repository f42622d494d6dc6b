package export_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pyharness/pyharness/export"
	"github.com/pyharness/pyharness/internal/needs"
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
		keep   bool
		args   []string
	}{
		{"jsonl", export.FormatJSONL, false, nil},
		{"jsonl with kept tool calls", export.FormatJSONL, true, []string{"--tool-calls"}},
		{"dpo", export.FormatDPO, false, []string{"--dpo"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := options(in, t.TempDir(), tt.format)
			o.KeepToolCalls = tt.keep
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
		asst = `{"role":"assistant","content":"a"}`
	)
	row := func(msgs ...string) string { return `{"messages":[` + strings.Join(msgs, ",") + `]}` }
	good := row(sys, user, asst)
	tests := []struct {
		name  string
		train string
		valid string
		card  func(train, valid int) string
		rule  string
	}{
		{"not json", "{oops\n", good + "\n", nil, "json-object"},
		{"extra top-level key", `{"messages":[` + sys + `,` + user + `,` + asst + `],"weight":2}` + "\n", good + "\n", nil, "messages-only"},
		{"prompt and completion", `{"prompt":"p","completion":"c"}` + "\n", good + "\n", nil, "messages-only"},
		{"empty messages", `{"messages":[]}` + "\n", good + "\n", nil, "messages-list"},
		{"weight on a message", row(sys, user, `{"role":"assistant","content":"a","weight":1}`) + "\n", good + "\n", nil, "role-content"},
		{"unknown role", row(sys, `{"role":"human","content":"u"}`, asst) + "\n", good + "\n", nil, "known-role"},
		{"null content", row(sys, `{"role":"user","content":null}`, asst) + "\n", good + "\n", nil, "string-content"},
		{"no system first", row(user, asst) + "\n", good + "\n", nil, "system-first"},
		{"two users in a row", row(sys, user, user, asst) + "\n", good + "\n", nil, "alternating"},
		{"ends with the user", row(sys, user, asst, user) + "\n", good + "\n", nil, "last-assistant"},
		{"empty validation", good + "\n", "", nil, "valid-split"},
		{"card counts off", good + "\n" + good + "\n", good + "\n", func(int, int) string { return card(1, 1) }, "card-counts"},
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
	// One run of the validator over every directory: it checks each apart.
	out, err := validate(t, dirs...)
	if err == nil {
		t.Fatalf("accepted:\n%s", out)
	}
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
