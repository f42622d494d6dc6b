package export_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/dedupe/dedupetest"
	"github.com/pyharness/pyharness/export"
	"github.com/pyharness/pyharness/schemas"
)

const (
	teacher = "openai:qwen2.5-coder-32b-instruct"
	student = "ollama:llama3.1:8b"
)

// writeTeacherAndStudent records dogfood runs of a teacher and a student on
// tasks tagged platform or docs, and one untagged task. It returns the
// trace directory and the ids of the teacher's platform runs, the only
// ones `--tag platform --model TEACHER` may take rows from.
func writeTeacherAndStudent(t *testing.T) (string, map[string]bool) {
	t.Helper()
	dir := t.TempDir()
	run := func(id, task, backend, name string, tags ...string) dedupetest.Run {
		return dedupetest.Run{ID: id, Source: schemas.SourceDogfood, Case: task, Pass: 1, Backend: backend, Model: name,
			Verdict: schemas.VerdictWorked, Tags: tags, Turns: []dedupetest.Turn{
				{Draft: "READ " + task + ".py", Verb: "READ", Path: task + ".py", Result: task + ".py (lines 1-1 of 1):\n```\n# " + task + "\n```"},
				{Draft: "WRITE " + task + ".py\n```python\nimport os\nPATH = os.environ.get(\"" + strings.ToUpper(task) + "\", \"" + name + "\")\n```",
					Verb: "WRITE", Path: task + ".py", Result: "Wrote " + task + ".py (+2 -1 lines). RUN tests to check it."},
				{Draft: "RUN tests", Verb: "RUN", Result: tests("0.004s")},
				{Draft: "DONE " + task + " reads its environment variable", Verb: "DONE", Status: schemas.StatusStopped},
			}}
	}
	runs := []dedupetest.Run{
		run("dogfood-env_flag-p1-t00000000001", "env_flag", "openai", "qwen2.5-coder-32b-instruct", "platform", "cli"),
		run("dogfood-config_path-p1-t00000000002", "config_path", "openai", "qwen2.5-coder-32b-instruct", "platform"),
		run("dogfood-env_flag-p1-s00000000001", "env_flag", "ollama", "llama3.1:8b", "platform", "cli"),
		run("dogfood-readme-p1-t00000000003", "readme", "openai", "qwen2.5-coder-32b-instruct", "docs"),
		run("dogfood-untagged-p1-t00000000004", "untagged", "openai", "qwen2.5-coder-32b-instruct"),
	}
	for _, r := range runs {
		if _, err := dedupetest.Write(dir, r); err != nil {
			t.Fatal(err)
		}
	}
	return dir, map[string]bool{runs[0].ID: true, runs[1].ID: true}
}

// --tag and --model together take rows from the teacher's tagged runs only,
// and --for makes the card say the drafts are another model's.
func TestTagAndTeacherSelection(t *testing.T) {
	in, want := writeTeacherAndStudent(t)
	out := t.TempDir()
	o := options(in, out, export.FormatJSONL)
	o.Tags, o.Models, o.For = []string{"platform"}, []string{teacher}, student
	sum, text := runExport(t, o)
	meta := readMeta(t, out)
	if len(meta) == 0 {
		t.Fatal("no rows")
	}
	seen := map[string]bool{}
	for _, m := range meta {
		if !want[m.RunID] {
			t.Errorf("row from %s (%s), which is not a teacher's platform run", m.RunID, m.Model)
		}
		seen[m.RunID] = true
	}
	if len(seen) != len(want) {
		t.Errorf("rows from %v, want rows from each of %v", seen, want)
	}
	if sum.RunsLeftOut["no tag in --tag"] != 2 || sum.RunsLeftOut["model not in --model"] != 1 {
		t.Errorf("runs left out %v, want 2 for the tag (docs, untagged) and 1 for the model (the student's)", sum.RunsLeftOut)
	}
	if len(sum.Drafters) != 1 || sum.Drafters[0].Model != teacher || sum.Drafters[0].Pairs != sum.Dedupe.Clusters {
		t.Errorf("drafters %+v, want the teacher's %d pairs", sum.Drafters, sum.Dedupe.Clusters)
	}
	card, err := os.ReadFile(filepath.Join(out, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"--tag platform", "--for " + student,
		"| `" + teacher + "` |",
		"**Meant for `" + student + "`** (`--for`): a different model from the one that wrote the drafts (" + teacher + ")",
	} {
		if !strings.Contains(string(card), s) {
			t.Errorf("the card does not say %q:\n%s", s, card)
		}
	}
	if !strings.Contains(text, "drafts by "+teacher) || !strings.Contains(text, "meant for "+student+": a different model") {
		t.Errorf("the summary does not name the drafting model and the student:\n%s", text)
	}

	// The same drafts meant for the teacher itself are its own.
	self := options(in, t.TempDir(), export.FormatJSONL)
	self.Tags, self.Models, self.For = []string{"platform"}, []string{teacher}, teacher
	runExport(t, self)
	card, _ = os.ReadFile(filepath.Join(self.Out, "README.md"))
	if !strings.Contains(string(card), "the model that wrote the drafts: its own worked runs") {
		t.Errorf("the card of a self-training export:\n%s", card)
	}

	// Two tags take the runs carrying either.
	both := options(in, t.TempDir(), export.FormatJSONL)
	both.Tags = []string{"platform", "docs"}
	sumBoth, _ := runExport(t, both)
	if sumBoth.RunsConsidered != 4 {
		t.Errorf("--tag platform --tag docs considered %d runs, want 4", sumBoth.RunsConsidered)
	}
}

// A tag or a model no run has exports nothing, names the value and what
// the runs do have, and writes no file.
func TestUnmatchedFilterSaysSo(t *testing.T) {
	in, _ := writeTeacherAndStudent(t)
	for _, tc := range []struct {
		name   string
		tags   []string
		models []string
		want   string
	}{
		{"tag", []string{"platfrom"}, nil, `no run read carries tag "platfrom" (the runs' tags: cli, docs, platform)`},
		{"model", nil, []string{"openai:gpt-4o"}, `no run read is of model "openai:gpt-4o" (the runs' models: ollama:llama3.1:8b, ` + teacher + `)`},
		{"tag of another model", []string{"docs"}, []string{student}, "no tag in --tag"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "export")
			o := options(in, out, export.FormatJSONL)
			o.Tags, o.Models = tc.tags, tc.models
			var buf bytes.Buffer
			_, err := export.Run(context.Background(), o, &buf)
			var nothing *export.NothingError
			if !errors.As(err, &nothing) {
				t.Fatalf("err %v, want a NothingError\n%s", err, buf.String())
			}
			if !strings.Contains(nothing.Why, tc.want) || !strings.Contains(buf.String(), tc.want) {
				t.Errorf("the reason does not say %q: %s", tc.want, nothing.Why)
			}
			if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("files written for an empty export: %v", err)
			}
		})
	}
	// A tag nobody has beside one that matches: the export is written and
	// the summary notes the other.
	o := options(in, t.TempDir(), export.FormatJSONL)
	o.Tags = []string{"platform", "platfrom"}
	sum, text := runExport(t, o)
	if len(sum.Unmatched) != 1 || !strings.Contains(text, `note: no run read carries tag "platfrom"`) {
		t.Errorf("unmatched %v; summary:\n%s", sum.Unmatched, text)
	}
}
