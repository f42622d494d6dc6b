package export_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pyharness/pyharness/export"
	"github.com/pyharness/pyharness/harness"
	"github.com/pyharness/pyharness/harness/model/scripted"
	"github.com/pyharness/pyharness/schemas"
)

// A fake key planted in a fixture .env, read by the model through the real
// harness, is in no file of any export.
func TestPlantedKeyNeverExported(t *testing.T) {
	python(t)
	const (
		fakeKey  = "sk-proj-FAKEc0ffee1234567890abcdefDEADBEEF"
		fakePass = "plum-orchard-42-velvet"
	)
	repo := t.TempDir()
	files := map[string]string{
		".env":              "OPENAI_API_KEY=" + fakeKey + "\nDB_PASSWORD=" + fakePass + "\nDEBUG=1\n",
		"settings.py":       "DEBUG = False\n",
		"tests/__init__.py": "",
		"tests/test_settings.py": "import unittest\n\nimport settings\n\n\nclass SettingsTest(unittest.TestCase):\n" +
			"    def test_debug(self):\n        self.assertIn(settings.DEBUG, (True, False))\n",
	}
	for name, body := range files {
		p := filepath.Join(repo, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := t.TempDir()
	writeSettings := "WRITE settings.py\n```python\nimport os\n\nDEBUG = os.environ.get(\"DEBUG\", \"0\") == \"1\"\n" +
		"API_KEY = os.environ.get(\"OPENAI_API_KEY\", \"\")\n```"
	scripts := map[string][]string{
		"run-worked":  {"READ .env", writeSettings, "RUN tests", "DONE settings read DEBUG and the key from the environment; tests pass"},
		"run-refused": {"READ .env", "DONE nothing to change", writeSettings, "RUN tests", "DONE settings read the environment"},
	}
	for id, drafts := range scripts {
		var b strings.Builder
		for _, d := range drafts {
			line, _ := json.Marshal(map[string]string{"content": d})
			b.Write(line)
			b.WriteByte('\n')
		}
		m, err := scripted.NewFromReader(strings.NewReader(b.String()), id)
		if err != nil {
			t.Fatal(err)
		}
		cfg := harness.Config{RunID: id, OutDir: out, Repo: repo, Source: schemas.SourceAdhoc, CaseID: "env-settings",
			TaskSpec: schemas.TaskSpec{Task: "Make settings.py read DEBUG from the environment.", Targets: []string{"settings.py"}},
			Model:    schemas.Model{Backend: "scripted", Name: id}, SuiteTimeout: time.Minute}
		res, err := harness.Run(context.Background(), cfg, m)
		if err != nil {
			t.Fatal(err)
		}
		if id == "run-worked" && res.End.Verdict != schemas.VerdictWorked {
			t.Fatalf("the fixture run did not work: %+v", res.End)
		}
	}
	// The traces hold the key: the model read the .env.
	traces, _ := filepath.Glob(filepath.Join(out, "runs", "*.jsonl"))
	held := false
	for _, p := range traces {
		b, _ := os.ReadFile(p)
		held = held || bytes.Contains(b, []byte(fakeKey))
	}
	if !held {
		t.Fatal("the fixture never showed the key to the model; the test proves nothing")
	}

	for _, format := range []string{export.FormatJSONL, export.FormatParquet, export.FormatDPO} {
		o := options(out, filepath.Join(t.TempDir(), format), format)
		o.IncludeScripted = true
		var buf bytes.Buffer
		sum, err := export.Run(context.Background(), o, &buf)
		var nothing *export.NothingError
		if err != nil && !errors.As(err, &nothing) {
			t.Fatalf("%s: %v", format, err)
		}
		if err == nil && sum.Redactions == 0 {
			t.Errorf("%s: no redaction counted:\n%s", format, buf.String())
		}
		t.Logf("%s: %v rows, %d redactions", format, sum.Splits, sum.Redactions)
		if strings.Contains(buf.String(), fakeKey) {
			t.Errorf("%s: the summary holds the key", format)
		}
		for name, data := range readFilesIfAny(t, o.Out) {
			for _, secret := range []string{fakeKey, fakePass} {
				if bytes.Contains(data, []byte(secret)) {
					t.Errorf("%s: %s holds %q", format, name, secret)
				}
			}
		}
	}
}

func readFilesIfAny(t *testing.T, dir string) map[string][]byte {
	if _, err := os.Stat(dir); err != nil {
		return nil
	}
	return readFiles(t, dir)
}
