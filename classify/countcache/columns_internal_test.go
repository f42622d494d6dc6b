package countcache

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/pyharness/pyharness/classify/dataset"
)

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
	check("TurnSummary", parquet.SchemaOf(dataset.TurnSummary{}), turns)
	check("RunSummary", parquet.SchemaOf(dataset.RunSummary{}), runs)
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
