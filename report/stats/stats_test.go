package stats

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/pyharness/pyharness/classify"
	"github.com/pyharness/pyharness/classify/dataset"
	"github.com/pyharness/pyharness/dedupe/dedupetest"
	"github.com/pyharness/pyharness/schemas"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// fixtures is the fixed trace set of the classify package: passes 1 and 4
// of a scripted benchmark plus hand-made runs (see classify/fixtures_test.go).
const fixtures = "../../classify/testdata/traces"

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./report/stats -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test ./report/stats -update to accept):\n--- got\n%s", path, got)
	}
}

func TestGolden(t *testing.T) {
	tests := []struct {
		name string
		in   string
		opts Options
	}{
		{"fixtures.txt", fixtures, Options{}},
		{"fixtures-by-model.txt", fixtures, Options{By: byModel}},
		{"fixtures-by-tier.txt", fixtures, Options{By: byTier}},
		// A torn file, a malformed one and a file with no run_start: the
		// tables hold every good record, and the problems name file:line.
		{"broken.txt", "testdata/broken", Options{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Load(context.Background(), tt.in, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := s.WriteText(&b); err != nil {
				t.Fatal(err)
			}
			golden(t, tt.name, b.Bytes())
		})
	}
}

func TestJSONGolden(t *testing.T) {
	s, err := Load(context.Background(), fixtures, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "fixtures.json", append(b, '\n'))
}

// TestBrokenDirectory spells out what the golden file pins: every good
// record counted, every problem listed with its file and line.
func TestBrokenDirectory(t *testing.T) {
	s, err := Load(context.Background(), "testdata/broken", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Runs.Read != 3 || s.Runs.Incomplete != 1 || s.Runs.Judged != 2 {
		t.Errorf("runs %+v: want 3 read (the file with no run_start is not a run), 1 incomplete (the torn one), 2 judged", s.Runs)
	}
	// 6 turns of the good run, 3 before the torn line, 4 good of the
	// malformed run.
	if s.Turns.Total != 13 {
		t.Errorf("turns %d, want 13", s.Turns.Total)
	}
	for _, want := range []string{
		"bench-dry-run-flag-p4-b0f29afad0e8.jsonl:5: torn last line",
		"bench-semver-bump-p1-d1bf4c4cd785.jsonl:3: field \"step\"",
		"bench-semver-bump-p1-d1bf4c4cd785.jsonl:5: invalid JSON",
		"empty-start.jsonl: no run_start record",
		"bench-dry-run-flag-p4-b0f29afad0e8.jsonl: incomplete run",
	} {
		found := false
		for _, p := range s.Problems {
			found = found || strings.Contains(p, want)
		}
		if !found {
			t.Errorf("no problem mentions %q; problems:\n%s", want, strings.Join(s.Problems, "\n"))
		}
	}
}

// TestDatasetAgreesWithTraces: stats of a classified dataset are the stats
// of the traces it was classified from.
func TestDatasetAgreesWithTraces(t *testing.T) {
	ctx := context.Background()
	out := t.TempDir()
	res, err := classify.Update(ctx, fixtures, out)
	if err != nil {
		t.Fatal(err)
	}
	for _, by := range []string{"", byModel, byCase, bySource} {
		fromTraces, err := Load(ctx, fixtures, Options{By: by})
		if err != nil {
			t.Fatal(err)
		}
		fromDataset, err := Load(ctx, out, Options{By: by})
		if err != nil {
			t.Fatal(err)
		}
		if fromDataset.Kind != inputDataset || fromTraces.Kind != InputTraces {
			t.Fatalf("read as %s and %s", fromTraces.Kind, fromDataset.Kind)
		}
		// What only a trace directory knows: its file names and problems,
		// the earlier attempts classify left out, the code a stuck run
		// repeated and what the model calls cost.
		fromTraces.Input, fromTraces.Kind, fromTraces.Problems, fromTraces.Runs.SetAside = "", "", nil, 0
		fromTraces.StuckOn, fromTraces.Cost = fromDataset.StuckOn, fromDataset.Cost
		fromDataset.Input, fromDataset.Kind, fromDataset.Problems = "", "", nil
		if !reflect.DeepEqual(fromTraces, fromDataset) {
			a, _ := json.MarshalIndent(fromTraces, "", " ")
			b, _ := json.MarshalIndent(fromDataset, "", " ")
			t.Errorf("--by %q: the dataset's stats differ from the traces':\n%s\n---\n%s", by, a, b)
		}
	}
	// The kind shares classify reports are the ones stats prints.
	s, err := Load(ctx, out, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range s.Kinds {
		if res.Kinds[schemas.Kind(k.Name)] != k.Count {
			t.Errorf("kind %s: classify wrote %d turns, stats counts %d", k.Name, res.Kinds[schemas.Kind(k.Name)], k.Count)
		}
	}
}

func TestCheckOptions(t *testing.T) {
	tests := []struct {
		by string
		ok bool
	}{{"", true}, {"model", true}, {"tier", true}, {"case", true}, {"source", true}, {"verdict", false}, {"Model", false}}
	for _, tt := range tests {
		if err := CheckOptions(Options{By: tt.by}); (err == nil) != tt.ok {
			t.Errorf("CheckOptions(--by %q) = %v", tt.by, err)
		}
	}
}

func TestNoTraces(t *testing.T) {
	if _, err := Load(context.Background(), t.TempDir(), Options{}); err == nil || !strings.Contains(err.Error(), "no trace files") {
		t.Errorf("an empty directory: %v", err)
	}
}

func TestWriteTextReportsAWriteError(t *testing.T) {
	s, err := Load(context.Background(), fixtures, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.WriteText(failingWriter{}); err == nil {
		t.Error("a failing writer went unreported")
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, os.ErrClosed }

// TestDatasetWithoutFeedbackColumn: a dataset classified before turns had
// a feedback column gives the stats of one classified after, the nudges'
// messages included.
func TestDatasetWithoutFeedbackColumn(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := classify.Update(ctx, fixtures, dir); err != nil {
		t.Fatal(err)
	}
	want, err := Load(ctx, dir, Options{By: byModel})
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Nudges) == 0 {
		t.Fatal("the fixtures have no nudges")
	}
	parts, err := filepath.Glob(filepath.Join(dir, dataset.TurnsTable, "*", "*", "*.parquet"))
	if err != nil || len(parts) == 0 {
		t.Fatalf("no turns part files: %v", err)
	}
	for _, path := range parts {
		stripColumn(t, path, "feedback")
	}
	got, err := Load(ctx, dir, Options{By: byModel})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		a, _ := json.MarshalIndent(want, "", " ")
		b, _ := json.MarshalIndent(got, "", " ")
		t.Errorf("without the feedback column:\n%s\n--- want\n%s", b, a)
	}
}

// stripColumn rewrites a part file without one of its columns.
func stripColumn(t *testing.T, path, column string) {
	t.Helper()
	in, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(bytes.NewReader(in), int64(len(in)))
	if err != nil {
		t.Fatal(err)
	}
	g := parquet.Group{}
	for _, f := range pf.Schema().Fields() {
		if f.Name() != column {
			g[f.Name()] = f
		}
	}
	if len(g) == len(pf.Schema().Fields()) {
		t.Fatalf("%s has no column %s", path, column)
	}
	schema := parquet.NewSchema(pf.Schema().Name(), g)
	r := parquet.NewReader(pf, schema)
	defer r.Close()
	var out bytes.Buffer
	w := parquet.NewWriter(&out, schema)
	if _, err := parquet.CopyRows(w, r); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestFailuresByTag: runs count under each of their tags, the same from
// the traces and from their classified dataset; a dataset classified
// before runs had a tags column reads as untagged.
func TestFailuresByTag(t *testing.T) {
	ctx := context.Background()
	in := t.TempDir()
	turns := []dedupetest.Turn{{Draft: "DONE nothing to do", Verb: "DONE", Status: schemas.StatusStopped}}
	for _, r := range []dedupetest.Run{
		{ID: "dogfood-port-p1-a00000000001", Case: "port", Pass: 1, Verdict: schemas.VerdictWorked, Tags: []string{"platform"}},
		{ID: "dogfood-flag-p1-a00000000002", Case: "flag", Pass: 1, Verdict: schemas.VerdictFailed, Tags: []string{"platform", "cli"}},
		{ID: "dogfood-typo-p1-a00000000003", Case: "typo", Pass: 1, Verdict: schemas.VerdictWorked},
	} {
		r.Source, r.Turns = schemas.SourceDogfood, turns
		if _, err := dedupetest.Write(in, r); err != nil {
			t.Fatal(err)
		}
	}
	want := []TagFailures{{Tag: "cli", Judged: 1, Failed: 1}, {Tag: "platform", Judged: 2, Worked: 1, Failed: 1}}
	dsDir := t.TempDir()
	if _, err := classify.Update(ctx, in, dsDir); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{in, dsDir} {
		s, err := Load(ctx, dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(s.Tags, want) {
			t.Errorf("%s: tags %+v, want %+v", s.Kind, s.Tags, want)
		}
		var text bytes.Buffer
		if err := s.WriteText(&text); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text.String(), "Failures by tag") || !regexp.MustCompile(`(?m)^platform +1 of 2 +1$`).MatchString(text.String()) {
			t.Errorf("%s: no failures-by-tag table:\n%s", s.Kind, text.String())
		}
	}
	parts, err := filepath.Glob(filepath.Join(dsDir, dataset.RunsTable, "*", "*", "*.parquet"))
	if err != nil || len(parts) == 0 {
		t.Fatalf("no runs part files: %v", err)
	}
	for _, path := range parts {
		stripColumn(t, path, "tags")
	}
	s, err := Load(ctx, dsDir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Tags) != 0 || s.Runs.Read != 3 {
		t.Errorf("without the tags column: %d runs, tags %+v; want 3 runs and no tags", s.Runs.Read, s.Tags)
	}
}

// TestBreakdownByTag: --by tag puts a run in the group of each of its
// tags (the untagged in "-"), with its turns, the same from the traces
// and from their classified dataset; refusals are not counted by tag.
func TestBreakdownByTag(t *testing.T) {
	ctx := context.Background()
	in := t.TempDir()
	done := dedupetest.Turn{Draft: "DONE nothing to do", Verb: "DONE", Status: schemas.StatusStopped}
	read := dedupetest.Turn{Draft: "READ a.py", Verb: "READ", Status: schemas.StatusApplied}
	for _, r := range []dedupetest.Run{
		{ID: "dogfood-m1-p1-a00000000001", Case: "m1", Pass: 1, Verdict: schemas.VerdictWorked, Tags: []string{"mined", "mutation", "return-none"}, Turns: []dedupetest.Turn{read, done}},
		{ID: "dogfood-m2-p1-a00000000002", Case: "m2", Pass: 1, Verdict: schemas.VerdictFailed, Tags: []string{"mined", "mutation", "invert-if"}, Turns: []dedupetest.Turn{read, read, done}},
		{ID: "dogfood-h1-p1-a00000000003", Case: "h1", Pass: 1, Verdict: schemas.VerdictWorked, Tags: []string{"mined", "history"}, Turns: []dedupetest.Turn{done}},
		{ID: "dogfood-x-p1-a00000000004", Case: "x", Pass: 1, Verdict: schemas.VerdictFailed, Turns: []dedupetest.Turn{done}},
	} {
		r.Source = schemas.SourceDogfood
		if _, err := dedupetest.Write(in, r); err != nil {
			t.Fatal(err)
		}
	}
	want := []Group{
		{Value: "", Runs: 1, Judged: 1, Failed: 1, Turns: 1},
		{Value: "history", Runs: 1, Judged: 1, Worked: 1, Turns: 1},
		{Value: "invert-if", Runs: 1, Judged: 1, Failed: 1, Turns: 3},
		{Value: "mined", Runs: 3, Judged: 3, Worked: 2, Failed: 1, Turns: 6},
		{Value: "mutation", Runs: 2, Judged: 2, Worked: 1, Failed: 1, Turns: 5},
		{Value: "return-none", Runs: 1, Judged: 1, Worked: 1, Turns: 2},
	}
	dsDir := t.TempDir()
	if _, err := classify.Update(ctx, in, dsDir); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{in, dsDir} {
		s, err := Load(ctx, dir, Options{By: "tag"})
		if err != nil {
			t.Fatal(err)
		}
		if s.By == nil {
			t.Fatalf("%s: no breakdown", s.Kind)
		}
		got := slices.Clone(s.By.Groups)
		for i := range got {
			got[i].noRefusals = false
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: by tag\n got %+v\nwant %+v", s.Kind, got, want)
		}
		var text bytes.Buffer
		if err := s.WriteText(&text); err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(`(?m)^By tag\n.*\n(.*\n)*mined +3 +2 of 3 +1 \(33%\) +0 +6 +-$`).MatchString(text.String()) {
			t.Errorf("%s: no by-tag table with mined's row:\n%s", s.Kind, text.String())
		}
	}
}
