package classify

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/pyharness/pyharness/schemas"
)

// TestSummariesAgreeWithFullRows: the tables read as summaries are the
// full rows' Summary, on a dataset as classify writes it and on turns part
// files without feedback, as written before the column existed or copied
// from such a file by a rewrite.
func TestSummariesAgreeWithFullRows(t *testing.T) {
	ctx := context.Background()
	src := t.TempDir()
	if _, err := Update(ctx, fixtures, src); err != nil {
		t.Fatal(err)
	}
	written := turnSummaries(t, Turns(ctx, src))
	nudges := 0
	for _, s := range written {
		if hasFeedback(schemas.Kind(s.Row.Kind)) {
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
		rewrite func(t *testing.T, dir string) []Partitioned[TurnSummary]
	}{
		{"as written", func(*testing.T, string) []Partitioned[TurnSummary] { return written }},
		// Row groups of equal rows, which TurnCounts counts together.
		{"repeated into several row groups", func(t *testing.T, dir string) []Partitioned[TurnSummary] {
			var want []Partitioned[TurnSummary]
			for _, path := range turnsParts(t, dir) {
				part := partitionOf(t, path)
				rows := readRows[TurnRow](t, path)
				var many []TurnRow
				for len(many) < 4*oldRowsPerGroup {
					many = append(many, rows...)
				}
				for i := range many {
					want = append(want, Partitioned[TurnSummary]{Partition: part, Row: many[i].Summary()})
				}
				writeRows(t, path, many)
			}
			return want
		}},
		{"no feedback column", func(t *testing.T, dir string) []Partitioned[TurnSummary] {
			for _, path := range turnsParts(t, dir) {
				stripFeedback(t, path)
			}
			return written
		}},
		// Ten row groups (two batches of readTurnColumns, read on
		// every core), with feedback left out of the rows of every other
		// run of 700: the messages are read for some batches and skipped
		// for others.
		{"feedback left out of some rows", func(t *testing.T, dir string) []Partitioned[TurnSummary] {
			var want []Partitioned[TurnSummary]
			for _, path := range turnsParts(t, dir) {
				part := partitionOf(t, path)
				rows := readRows[TurnRow](t, path)
				var many []TurnRow
				for len(many) < 10_000 {
					many = append(many, rows...)
				}
				for i := range many {
					want = append(want, Partitioned[TurnSummary]{Partition: part, Row: many[i].Summary()})
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
				_, byPage := columnIndexes(mustOpenPart(t, path).Schema(), turnSummaryColumns)
				if wantByPage := tt.name != "no feedback column"; byPage != wantByPage {
					t.Errorf("%s: read page by page %v, want %v", path, byPage, wantByPage)
				}
			}
			if got := collect(t, TurnSummaries(ctx, dir)); !reflect.DeepEqual(got, want) {
				t.Errorf("TurnSummaries:\n%s", diffSummaries(got, want))
			}
			if got := turnSummaries(t, Turns(ctx, dir)); !reflect.DeepEqual(got, want) {
				t.Errorf("Turns:\n%s", diffSummaries(got, want))
			}
			grouped := countsAgree(t, "TurnCounts with the cases", collectCounts(t, TurnCounts(ctx, dir, CountOptions{Cases: true})), want)
			var withoutCases []Partitioned[TurnSummary]
			for _, w := range want {
				w.Row.CaseID, w.Row.Tier = "", 0
				withoutCases = append(withoutCases, w)
			}
			countsAgree(t, "TurnCounts", collectCounts(t, TurnCounts(ctx, dir, CountOptions{})), withoutCases)
			if tt.name == "repeated into several row groups" && grouped == 0 {
				t.Error("TurnCounts counted no equal rows together")
			}
		})
	}

	// The runs table as written, then with its rows repeated into ten row
	// groups (two batches of readRunColumns, read on every core).
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{src, dir} {
		if d == dir {
			paths, err := listParts(dir, RunsTable)
			if err != nil || len(paths) == 0 {
				t.Fatalf("runs parts: %v %v", paths, err)
			}
			for _, rel := range paths {
				path := filepath.Join(dir, filepath.FromSlash(rel))
				if _, byPage := columnIndexes(mustOpenPart(t, path).Schema(), runSummaryColumns); !byPage {
					t.Errorf("%s: not read page by page", path)
				}
				rows := readRows[RunRow](t, path)
				var many []RunRow
				for len(many) < 10_000 {
					many = append(many, rows...)
				}
				writeRows(t, path, many)
			}
		}
		var runs []Partitioned[RunSummary]
		for r, err := range Runs(ctx, d) {
			if err != nil {
				t.Fatal(err)
			}
			runs = append(runs, Partitioned[RunSummary]{Partition: r.Partition, Row: r.Row.Summary()})
		}
		if got := collect(t, RunSummaries(ctx, d)); !reflect.DeepEqual(got, runs) {
			t.Errorf("RunSummaries of %d runs:\n%s", len(runs), diffSummaries(got, runs))
		}
		if got := collect(t, runSummariesOnDemand(ctx, d)); !reflect.DeepEqual(got, runs) {
			t.Errorf("runSummariesOnDemand of %d runs:\n%s", len(runs), diffSummaries(got, runs))
		}
		var tallies, withoutCases []Partitioned[RunTally]
		for _, r := range runs {
			tally := r.Row.Tally()
			tallies = append(tallies, Partitioned[RunTally]{Partition: r.Partition, Row: tally})
			tally.CaseID = ""
			withoutCases = append(withoutCases, Partitioned[RunTally]{Partition: r.Partition, Row: tally})
		}
		grouped := countsAgree(t, "RunCounts with the cases", collectCounts(t, RunCounts(ctx, d, CountOptions{Cases: true})), tallies)
		countsAgree(t, "RunCounts", collectCounts(t, RunCounts(ctx, d, CountOptions{})), withoutCases)
		if d == dir && grouped == 0 {
			t.Error("RunCounts counted no equal runs together")
		}
	}
}

// countsAgree checks counted summaries against the rows they count: each
// distinct row counted as many times, and the distinct rows met first in
// the same order. It returns how many of got stand for more than one row.
func countsAgree[T any](t *testing.T, name string, got []Counted[T], want []Partitioned[T]) int {
	t.Helper()
	type tally struct {
		order []string
		count map[string]int
	}
	add := func(tl *tally, p Partition, row T, n int) {
		b, err := json.Marshal(Partitioned[T]{Partition: p, Row: row})
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

func collectCounts[T any](t *testing.T, seq func(func(Counted[T], error) bool)) []Counted[T] {
	t.Helper()
	var rows []Counted[T]
	for r, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r)
	}
	return rows
}

// partitionOf is the partition of a part file.
func partitionOf(t *testing.T, path string) Partition {
	t.Helper()
	part, err := parsePartitionDir(filepath.Join(filepath.Base(filepath.Dir(filepath.Dir(path))), filepath.Base(filepath.Dir(path))))
	if err != nil {
		t.Fatal(err)
	}
	return part
}

// TestTurnSummariesReadNoText: with the text columns of every turns part
// file overwritten, the full rows no longer read and the summaries still do:
// TurnSummaries does not read them.
func TestTurnSummariesReadNoText(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := Update(ctx, fixtures, dir); err != nil {
		t.Fatal(err)
	}
	want := turnSummaries(t, Turns(ctx, dir))
	for _, path := range turnsParts(t, dir) {
		overwriteColumns(t, path, "messages", "draft", "thinking")
	}
	if got := collect(t, TurnSummaries(ctx, dir)); !reflect.DeepEqual(got, want) {
		t.Errorf("TurnSummaries:\n%s", diffSummaries(got, want))
	}
	if err := readsFully(ctx, dir); err == nil {
		t.Error("the full rows read with their text overwritten: the test overwrote nothing")
	}
}

// readsFully reads the turns table as full rows.
func readsFully(ctx context.Context, dir string) error {
	for _, err := range Turns(ctx, dir) {
		if err != nil {
			return err
		}
	}
	return nil
}

func collect[T any](t *testing.T, seq func(func(Partitioned[T], error) bool)) []Partitioned[T] {
	t.Helper()
	var rows []Partitioned[T]
	for r, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r)
	}
	return rows
}

func turnSummaries(t *testing.T, seq func(func(Partitioned[TurnRow], error) bool)) []Partitioned[TurnSummary] {
	t.Helper()
	var rows []Partitioned[TurnSummary]
	for _, r := range collect(t, seq) {
		rows = append(rows, Partitioned[TurnSummary]{Partition: r.Partition, Row: r.Row.Summary()})
	}
	return rows
}

func diffSummaries[T any](got, want []Partitioned[T]) string {
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
	rels, err := listParts(dir, TurnsTable)
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
	f, pf, err := openPart(path)
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
// grew to rowsPerGroup: the tests write part files of many row groups with
// a few thousand rows.
const oldRowsPerGroup = 1024

// writeRows replaces a part file with rows, written as classify writes them
// but in row groups of oldRowsPerGroup rows.
func writeRows[T any](t *testing.T, path string, rows []T) {
	t.Helper()
	tmp := path + ".new"
	f, err := os.Create(tmp)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[T](f, append(writerOptions[T](), parquet.MaxRowsPerRowGroup(oldRowsPerGroup))...)
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
	for _, field := range parquet.SchemaOf(TurnRow{}).Fields() {
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

// TestSummaryColumnsCoverTheSummaries: the columns read page by page are
// every column of TurnSummary and RunSummary, so that a field added to a
// summary cannot be left empty by the column reader.
func TestSummaryColumnsCoverTheSummaries(t *testing.T) {
	check := func(name string, schema *parquet.Schema, paths []string) {
		var want []string
		for _, c := range schema.Columns() {
			want = append(want, strings.Join(c, "."))
		}
		slices.Sort(want)
		slices.Sort(paths)
		if !slices.Equal(paths, want) {
			t.Errorf("%s: the column reader reads %q, the summary has %q", name, paths, want)
		}
	}
	var turns, runs []string
	for _, c := range turnSummaryColumns {
		turns = append(turns, c.path)
	}
	for _, c := range runSummaryColumns {
		runs = append(runs, c.path)
	}
	check("TurnSummary", parquet.SchemaOf(TurnSummary{}), turns)
	check("RunSummary", parquet.SchemaOf(RunSummary{}), runs)
}

// TestKeyColumnsFillEveryField: each key column of TurnCounts and
// RunCounts sets one field of its row, and every field has one, so that a
// field added to TurnSummary or RunTally cannot be left empty by the
// counts.
func TestKeyColumnsFillEveryField(t *testing.T) {
	checkKeyColumns(t, turnKeyColumns)
	checkKeyColumns(t, runKeyColumns)
}

func checkKeyColumns[T any](t *testing.T, cols []keyColumn[T]) {
	t.Helper()
	typ := reflect.TypeFor[T]()
	set := map[int]string{}
	for _, c := range cols {
		var row T
		switch c.kind {
		case keyText:
			c.text(&row, "x")
		case keyInt32, keyListLen:
			c.int(&row, 7)
		case keyBool:
			c.bool(&row, true)
		case keyTextList:
			c.list(&row, []string{"x"})
		}
		v := reflect.ValueOf(row)
		var fields []int
		for i := range v.NumField() {
			if !v.Field(i).IsZero() {
				fields = append(fields, i)
			}
		}
		if len(fields) != 1 {
			t.Errorf("%s: column %s sets %d fields", typ, c.path, len(fields))
			continue
		}
		if prev, ok := set[fields[0]]; ok {
			t.Errorf("%s.%s: set by %s and %s", typ, typ.Field(fields[0]).Name, prev, c.path)
		}
		set[fields[0]] = c.path
	}
	for i := range typ.NumField() {
		if _, ok := set[i]; !ok {
			t.Errorf("%s.%s: no key column sets it", typ, typ.Field(i).Name)
		}
	}
}

// TestCountsErrorsNameTheFile: a column chunk that does not decode stops
// TurnCounts and RunCounts with an error naming the part file and the
// column.
func TestCountsErrorsNameTheFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := Update(ctx, fixtures, dir); err != nil {
		t.Fatal(err)
	}
	turns := turnsParts(t, dir)[0]
	overwriteColumns(t, turns, "kind")
	runs, err := listParts(dir, RunsTable)
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
	for _, err := range TurnCounts(ctx, dir, CountOptions{}) {
		if err != nil {
			turnsErr = err
			break
		}
	}
	for _, err := range RunCounts(ctx, dir, CountOptions{}) {
		if err != nil {
			runsErr = err
			break
		}
	}
	check("TurnCounts", turns, "kind", turnsErr)
	check("RunCounts", runsPath, "verdict", runsErr)
}

// runSummariesOnDemand streams the runs table as RunSummaries does, reading
// a row group only when the consumer reaches it, in its goroutine: for a
// consumer that stops after the first few runs.
func runSummariesOnDemand(ctx context.Context, dir string) iter.Seq2[Partitioned[RunSummary], error] {
	return readTable(ctx, dir, RunsTable, readRunColumnsLazily)
}
