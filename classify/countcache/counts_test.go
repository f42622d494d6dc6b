package countcache_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/pyharness/pyharness/classify"
	"github.com/pyharness/pyharness/classify/countcache"
	"github.com/pyharness/pyharness/classify/dataset"
	"github.com/pyharness/pyharness/schemas"
)

const fixtures = "../testdata/traces"

// TestCountsAgreeWithFullRows: the tables counted are the full rows'
// summaries, each distinct one counted as often as it occurs, on a dataset
// as classify writes it (counted from its counts files) and, counted from
// their columns, on part files of many row groups and on turns part files
// without feedback, as written before the column existed or copied from
// such a file by a rewrite.
func TestCountsAgreeWithFullRows(t *testing.T) {
	ctx := context.Background()
	src := t.TempDir()
	if _, err := classify.Update(ctx, fixtures, src); err != nil {
		t.Fatal(err)
	}
	written := turnSummaries(t, dataset.Turns(ctx, src))
	nudges := 0
	for _, s := range written {
		if dataset.HasFeedback(schemas.Kind(s.Row.Kind)) {
			nudges++
			if s.Row.Feedback == "" {
				t.Errorf("%+v: a refusal, nudge or parse failure written without feedback", s)
			}
		}
	}
	if nudges == 0 {
		t.Fatal("the fixtures have no refusal, nudge or parse failure")
	}

	tests := []struct {
		name string
		// rewrite changes the turns part files of a copy of the dataset
		// and returns the summaries it must read as.
		rewrite func(t *testing.T, dir string) []dataset.Partitioned[dataset.TurnSummary]
	}{
		{"as written", func(*testing.T, string) []dataset.Partitioned[dataset.TurnSummary] { return written }},
		// Row groups of equal rows, which Turns counts together.
		{"repeated into several row groups", func(t *testing.T, dir string) []dataset.Partitioned[dataset.TurnSummary] {
			var want []dataset.Partitioned[dataset.TurnSummary]
			for _, path := range turnsParts(t, dir) {
				part := partitionOf(t, path)
				rows := readRows[dataset.TurnRow](t, path)
				var many []dataset.TurnRow
				for len(many) < 4*oldRowsPerGroup {
					many = append(many, rows...)
				}
				for i := range many {
					want = append(want, dataset.Partitioned[dataset.TurnSummary]{Partition: part, Row: many[i].Summary()})
				}
				writeRows(t, path, many)
			}
			return want
		}},
		{"no feedback column", func(t *testing.T, dir string) []dataset.Partitioned[dataset.TurnSummary] {
			for _, path := range turnsParts(t, dir) {
				stripFeedback(t, path)
			}
			return written
		}},
		// Ten row groups, with feedback left out of the rows of every
		// other run of 700: those row groups are read row by row, the
		// messages read for them and skipped for the others.
		{"feedback left out of some rows", func(t *testing.T, dir string) []dataset.Partitioned[dataset.TurnSummary] {
			var want []dataset.Partitioned[dataset.TurnSummary]
			for _, path := range turnsParts(t, dir) {
				part := partitionOf(t, path)
				rows := readRows[dataset.TurnRow](t, path)
				var many []dataset.TurnRow
				for len(many) < 10_000 {
					many = append(many, rows...)
				}
				for i := range many {
					want = append(want, dataset.Partitioned[dataset.TurnSummary]{Partition: part, Row: many[i].Summary()})
					if i/700%2 == 1 {
						many[i].Feedback = ""
					}
				}
				writeRows(t, path, many)
			}
			return want
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
				t.Fatal(err)
			}
			want := tt.rewrite(t, dir)
			for _, path := range turnsParts(t, dir) {
				byColumns := countcache.CountedByColumns(mustOpenPart(t, path), dataset.TurnsTable)
				if wantByColumns := tt.name != "no feedback column"; byColumns != wantByColumns {
					t.Errorf("%s: counted by its columns %v, want %v", path, byColumns, wantByColumns)
				}
			}
			if got := turnSummaries(t, dataset.Turns(ctx, dir)); !reflect.DeepEqual(got, want) {
				t.Errorf("Turns:\n%s", diffSummaries(got, want))
			}
			grouped := countsAgree(t, "Turns with the cases", collectCounts(t, countcache.Turns(ctx, dir, countcache.Options{Cases: true})), want)
			var withoutCases []dataset.Partitioned[dataset.TurnSummary]
			for _, w := range want {
				w.Row.CaseID, w.Row.Tier = "", 0
				withoutCases = append(withoutCases, w)
			}
			countsAgree(t, "Turns", collectCounts(t, countcache.Turns(ctx, dir, countcache.Options{})), withoutCases)
			if tt.name == "repeated into several row groups" && grouped == 0 {
				t.Error("Turns counted no equal rows together")
			}
		})
	}

	// The runs table as written, then with its rows repeated into ten row
	// groups.
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{src, dir} {
		if d == dir {
			paths, err := dataset.PartFiles(dir, dataset.RunsTable)
			if err != nil || len(paths) == 0 {
				t.Fatalf("runs parts: %v %v", paths, err)
			}
			for _, rel := range paths {
				path := filepath.Join(dir, filepath.FromSlash(rel))
				if !countcache.CountedByColumns(mustOpenPart(t, path), dataset.RunsTable) {
					t.Errorf("%s: not counted by its columns", path)
				}
				rows := readRows[dataset.RunRow](t, path)
				var many []dataset.RunRow
				for len(many) < 10_000 {
					many = append(many, rows...)
				}
				writeRows(t, path, many)
			}
		}
		var runs []dataset.Partitioned[dataset.RunSummary]
		for r, err := range dataset.Runs(ctx, d) {
			if err != nil {
				t.Fatal(err)
			}
			runs = append(runs, dataset.Partitioned[dataset.RunSummary]{Partition: r.Partition, Row: r.Row.Summary()})
		}
		if got := collect(t, countcache.RunSummariesOnDemand(ctx, d)); !reflect.DeepEqual(got, runs) {
			t.Errorf("RunSummariesOnDemand of %d runs:\n%s", len(runs), diffSummaries(got, runs))
		}
		var tallies, withoutCases []dataset.Partitioned[countcache.RunTally]
		for _, r := range runs {
			rt := countcache.RunTallyOf(&r.Row)
			tallies = append(tallies, dataset.Partitioned[countcache.RunTally]{Partition: r.Partition, Row: rt})
			rt.CaseID = ""
			withoutCases = append(withoutCases, dataset.Partitioned[countcache.RunTally]{Partition: r.Partition, Row: rt})
		}
		grouped := countsAgree(t, "Runs with the cases", collectCounts(t, countcache.Runs(ctx, d, countcache.Options{Cases: true})), tallies)
		countsAgree(t, "Runs", collectCounts(t, countcache.Runs(ctx, d, countcache.Options{})), withoutCases)
		if d == dir && grouped == 0 {
			t.Error("Runs counted no equal runs together")
		}
	}
}

// countsAgree checks counted summaries against the rows they count: each
// distinct row counted as many times, and the distinct rows met first in
// the same order. It returns how many of got stand for more than one row.
func countsAgree[T any](t *testing.T, name string, got []countcache.Counted[T], want []dataset.Partitioned[T]) int {
	t.Helper()
	type tally struct {
		order []string
		count map[string]int
	}
	add := func(tl *tally, p dataset.Partition, row T, n int) {
		b, err := json.Marshal(dataset.Partitioned[T]{Partition: p, Row: row})
		if err != nil {
			t.Fatal(err)
		}
		k := string(b)
		if _, ok := tl.count[k]; !ok {
			tl.order = append(tl.order, k)
		}
		tl.count[k] += n
	}
	g, w := tally{count: map[string]int{}}, tally{count: map[string]int{}}
	grouped := 0
	for _, c := range got {
		if c.Count < 1 {
			t.Fatalf("%s: a count of %d", name, c.Count)
		}
		if c.Count > 1 {
			grouped++
		}
		add(&g, c.Partition, c.Row, c.Count)
	}
	for _, r := range want {
		add(&w, r.Partition, r.Row, 1)
	}
	if !slices.Equal(g.order, w.order) {
		t.Errorf("%s: %d distinct rows, want %d, or in another order", name, len(g.order), len(w.order))
	}
	for k, n := range w.count {
		if g.count[k] != n {
			t.Errorf("%s: %s counted %d times, want %d", name, k, g.count[k], n)
		}
	}
	return grouped
}

func collectCounts[T any](t *testing.T, seq func(func(countcache.Counted[T], error) bool)) []countcache.Counted[T] {
	t.Helper()
	var rows []countcache.Counted[T]
	for r, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r)
	}
	return rows
}

// partitionOf is the partition of a part file.
func partitionOf(t *testing.T, path string) dataset.Partition {
	t.Helper()
	dir := filepath.Dir(path)
	rel := filepath.Join(filepath.Base(filepath.Dir(filepath.Dir(dir))), filepath.Base(filepath.Dir(dir)), filepath.Base(dir), filepath.Base(path))
	part, err := dataset.PartitionOf(rel)
	if err != nil {
		t.Fatal(err)
	}
	return part
}

// TestTurnsCountedWithoutTheText: with the text columns of every turns
// part file overwritten, the full rows no longer read and the counts from
// the columns (the counts files removed) are still those of the rows:
// Turns does not read the text.
func TestTurnsCountedWithoutTheText(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := classify.Update(ctx, fixtures, dir); err != nil {
		t.Fatal(err)
	}
	want := turnSummaries(t, dataset.Turns(ctx, dir))
	if err := os.RemoveAll(filepath.Join(dir, countcache.CountsDir)); err != nil {
		t.Fatal(err)
	}
	for _, path := range turnsParts(t, dir) {
		overwriteColumns(t, path, "messages", "draft", "thinking")
	}
	countsAgree(t, "Turns", collectCounts(t, countcache.Turns(ctx, dir, countcache.Options{Cases: true})), want)
	if err := readsFully(ctx, dir); err == nil {
		t.Error("the full rows read with their text overwritten: the test overwrote nothing")
	}
}

// readsFully reads the turns table as full rows.
func readsFully(ctx context.Context, dir string) error {
	for _, err := range dataset.Turns(ctx, dir) {
		if err != nil {
			return err
		}
	}
	return nil
}

func collect[T any](t *testing.T, seq func(func(dataset.Partitioned[T], error) bool)) []dataset.Partitioned[T] {
	t.Helper()
	var rows []dataset.Partitioned[T]
	for r, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r)
	}
	return rows
}

func turnSummaries(t *testing.T, seq func(func(dataset.Partitioned[dataset.TurnRow], error) bool)) []dataset.Partitioned[dataset.TurnSummary] {
	t.Helper()
	var rows []dataset.Partitioned[dataset.TurnSummary]
	for _, r := range collect(t, seq) {
		rows = append(rows, dataset.Partitioned[dataset.TurnSummary]{Partition: r.Partition, Row: r.Row.Summary()})
	}
	return rows
}

func diffSummaries[T any](got, want []dataset.Partitioned[T]) string {
	if len(got) != len(want) {
		return fmt.Sprintf("got %d rows, want %d", len(got), len(want))
	}
	for i := range got {
		if !reflect.DeepEqual(got[i], want[i]) {
			g, _ := json.Marshal(got[i])
			w, _ := json.Marshal(want[i])
			return fmt.Sprintf("row %d:\n got  %s\n want %s", i, g, w)
		}
	}
	return ""
}

func turnsParts(t *testing.T, dir string) []string {
	t.Helper()
	rels, err := dataset.PartFiles(dir, dataset.TurnsTable)
	if err != nil {
		t.Fatal(err)
	}
	if len(rels) == 0 {
		t.Fatal("no turns part files")
	}
	var paths []string
	for _, rel := range rels {
		paths = append(paths, filepath.Join(dir, filepath.FromSlash(rel)))
	}
	return paths
}

// mustOpenPart opens a part file as the readers do, closed at the test's
// end.
func mustOpenPart(t *testing.T, path string) *parquet.File {
	t.Helper()
	f, pf, err := dataset.OpenPart(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return pf
}

func readRows[T any](t *testing.T, path string) []T {
	t.Helper()
	pf := mustOpenPart(t, path)
	r := parquet.NewGenericReader[T](pf)
	defer r.Close()
	rows := make([]T, pf.NumRows())
	if n, err := r.Read(rows); n != len(rows) {
		t.Fatalf("%s: read %d rows of %d: %v", path, n, len(rows), err)
	}
	return rows
}

// oldRowsPerGroup is the size of the row groups classify wrote before they
// grew to 8,192 rows: the tests write part files of many row groups with a
// few thousand rows.
const oldRowsPerGroup = 1024

// writeRows replaces a part file with rows, in snappy pages as classify
// writes them but in row groups of oldRowsPerGroup rows.
func writeRows[T any](t *testing.T, path string, rows []T) {
	t.Helper()
	tmp := path + ".new"
	f, err := os.Create(tmp)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[T](f, parquet.Compression(&parquet.Snappy), parquet.MaxRowsPerRowGroup(oldRowsPerGroup))
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	replacePart(t, f, w, tmp, path)
}

// stripFeedback rewrites a turns part file without its feedback column, as
// classify wrote it before the column existed.
func stripFeedback(t *testing.T, path string) {
	t.Helper()
	g := parquet.Group{}
	for _, field := range parquet.SchemaOf(dataset.TurnRow{}).Fields() {
		if field.Name() != "feedback" {
			g[field.Name()] = field
		}
	}
	schema := parquet.NewSchema("TurnRow", g)
	r := parquet.NewReader(mustOpenPart(t, path), schema)
	defer r.Close()
	tmp := path + ".new"
	f, err := os.Create(tmp)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewWriter(f, schema, parquet.MaxRowsPerRowGroup(oldRowsPerGroup))
	if _, err := parquet.CopyRows(w, r); err != nil {
		t.Fatal(err)
	}
	replacePart(t, f, w, tmp, path)
	if _, ok := mustOpenPart(t, path).Schema().Lookup("feedback"); ok {
		t.Fatalf("%s still has a feedback column", path)
	}
}

func replacePart(t *testing.T, f *os.File, w interface{ Close() error }, tmp, path string) {
	t.Helper()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// overwriteColumns overwrites the bytes of the named columns' chunks, in
// every row group, with 0xFF.
func overwriteColumns(t *testing.T, path string, names ...string) {
	t.Helper()
	pf := mustOpenPart(t, path)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	hit := 0
	for _, rg := range pf.Metadata().RowGroups {
		for _, c := range rg.Columns {
			if !slices.Contains(names, c.MetaData.PathInSchema[0]) {
				continue
			}
			start := c.MetaData.DataPageOffset
			if d := c.MetaData.DictionaryPageOffset; d > 0 && d < start {
				start = d
			}
			for i := start; i < start+c.MetaData.TotalCompressedSize; i++ {
				b[i] = 0xFF
			}
			hit++
		}
	}
	if hit == 0 {
		t.Fatalf("%s: no column chunk of %v", path, names)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCountsErrorsNameTheFile: a column chunk that does not decode stops
// Turns and Runs with an error naming the part file and the
// column.
func TestCountsErrorsNameTheFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := classify.Update(ctx, fixtures, dir); err != nil {
		t.Fatal(err)
	}
	turns := turnsParts(t, dir)[0]
	overwriteColumns(t, turns, "kind")
	runs, err := dataset.PartFiles(dir, dataset.RunsTable)
	if err != nil || len(runs) == 0 {
		t.Fatalf("runs parts: %v %v", runs, err)
	}
	runsPath := filepath.Join(dir, filepath.FromSlash(runs[0]))
	overwriteColumns(t, runsPath, "verdict")
	check := func(name, path, column string, err error) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "column "+column) {
			t.Errorf("%s: error %v, want one naming %s and column %s", name, err, path, column)
		}
	}
	var turnsErr, runsErr error
	for _, err := range countcache.Turns(ctx, dir, countcache.Options{}) {
		if err != nil {
			turnsErr = err
			break
		}
	}
	for _, err := range countcache.Runs(ctx, dir, countcache.Options{}) {
		if err != nil {
			runsErr = err
			break
		}
	}
	check("Turns", turns, "kind", turnsErr)
	check("Runs", runsPath, "verdict", runsErr)
}
