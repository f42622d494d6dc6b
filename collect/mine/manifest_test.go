package mine

import (
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/pyharness/pyharness/collect"
	"github.com/pyharness/pyharness/schemas"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// A mined manifest is written by collect's one manifest encoder: the
// fields a task sets, in Entry's order, none it leaves unset, pinned by a
// golden, and it reads back as the entries written.
func TestMinedManifestIsPinned(t *testing.T) {
	entries := []collect.Entry{
		{ID: "calc-calc-clamp-flip-comparison-15", Repo: "repo", Commit: "0123456789abcdef0123456789abcdef01234567",
			TaskSpec: schemas.TaskSpec{Task: "A test that used to pass fails now:\n\n- `tests/test_calc.py::test_clamp_low`: assert 10 == 0\n",
				Targets: []string{"calc/__init__.py"}, Names: []string{"clamp"}, Subject: "clamp", Suite: "{python} -m pytest"},
			Check: "{python} -m pytest", Script: "scripts/calc-calc-clamp-flip-comparison-15.jsonl",
			Tags: []string{"mined", "mutation", "flip-comparison"}},
		{ID: "calc-history-89abcdef01", Repo: "repo", Commit: "89abcdef0123456789abcdef0123456789abcdef",
			TaskSpec: schemas.TaskSpec{Task: "mean of an empty list raises ValueError\n\nThese tests fail now:\n\n- `tests/test_calc.py::test_mean_of_nothing`\n",
				Targets: []string{"calc/__init__.py"}, Suite: "{python} -m pytest"},
			Check: "{python} -m pytest", Script: "scripts/calc-history-89abcdef01.jsonl", Tags: []string{"mined", "history"}},
	}
	dir := t.TempDir()
	mf := &manifestFile{path: filepath.Join(dir, "manifest.yaml"), source: "/src/calc", commit: "0123456789abcdef0123456789abcdef01234567", seed: 7, entries: entries}
	if err := mf.write(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(mf.path)
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "mined-manifest.yaml")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("manifest.yaml differs from %s (go test -update rewrites it):\n%s", golden, got)
	}
	var doc struct {
		Entries []collect.Entry `yaml:"entries"`
	}
	if err := yaml.Unmarshal(got, &doc); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(doc.Entries, entries) {
		t.Errorf("read back:\n%+v\nwant\n%+v", doc.Entries, entries)
	}
}
