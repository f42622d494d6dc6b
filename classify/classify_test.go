package classify

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/pyharness/pyharness/classify/dataset"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

const fixtures = "testdata/traces"

// expectedRows classifies the fixture traces in memory: what the dataset
// must hold.
func expectedRows(t *testing.T, dir string) (map[string]dataset.RunRow, map[string]dataset.TurnRow, map[string]dataset.Partition) {
	t.Helper()
	runs, turns, parts := map[string]dataset.RunRow{}, map[string]dataset.TurnRow{}, map[string]dataset.Partition{}
	for run := range trace.Runs(t.Context(), dir) {
		if run == nil || run.Start == nil {
			continue
		}
		p, r, ts := Rows(run)
		runs[r.RunID], parts[r.RunID] = r, p
		for _, tr := range ts {
			turns[fmt.Sprintf("%s/%d", tr.RunID, tr.Step)] = tr
		}
	}
	return runs, turns, parts
}

// TestArrowReadsWhatParquetGoWrote writes the fixture set with parquet-go
// and reads every part file back with arrow-go's pqarrow: the same rows,
// the codes as dictionary strings, the times as UTC timestamps.
func TestArrowReadsWhatParquetGoWrote(t *testing.T) {
	out := t.TempDir()
	if _, err := Update(context.Background(), fixtures, out); err != nil {
		t.Fatal(err)
	}
	wantRuns, wantTurns, wantParts := expectedRows(t, fixtures)
	gotRuns, gotTurns := 0, 0
	for _, table := range []string{dataset.TurnsTable, dataset.RunsTable} {
		parts, err := dataset.PartFiles(out, table)
		if err != nil {
			t.Fatal(err)
		}
		for _, rel := range parts {
			part, err := dataset.PartitionOf(rel)
			if err != nil {
				t.Fatal(err)
			}
			tbl := readArrow(t, filepath.Join(out, rel))
			checkArrowTypes(t, rel, tbl.Schema())
			for _, row := range arrowRows(t, tbl) {
				id := row["run_id"].(string)
				if wantParts[id] != part {
					t.Errorf("%s: run %s in partition %+v, want %+v", rel, id, part, wantParts[id])
				}
				var want map[string]any
				if table == dataset.RunsTable {
					want = goRow(wantRuns[id])
					gotRuns++
				} else {
					key := fmt.Sprintf("%s/%d", id, row["step"])
					want = goRow(wantTurns[key])
					gotTurns++
				}
				if !reflect.DeepEqual(row, want) {
					t.Errorf("%s: arrow read a row that differs from what was written:\n%s", rel, diffMaps(want, row))
				}
			}
			tbl.Release()
		}
	}
	if gotRuns != len(wantRuns) || gotTurns != len(wantTurns) {
		t.Errorf("arrow read %d runs and %d turns, want %d and %d", gotRuns, gotTurns, len(wantRuns), len(wantTurns))
	}
}

func readArrow(t *testing.T, path string) arrow.Table {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	pf, err := file.NewParquetReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 512}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return tbl
}

func checkArrowTypes(t *testing.T, rel string, s *arrow.Schema) {
	t.Helper()
	for name, want := range map[string]arrow.Type{"started_at": arrow.TIMESTAMP, "attempt": arrow.INT32, "case_id": arrow.DICTIONARY} {
		fs, ok := s.FieldsByName(name)
		if !ok {
			t.Errorf("%s: no column %s", rel, name)
			continue
		}
		if fs[0].Type.ID() != want {
			t.Errorf("%s: column %s is %s, want %s", rel, name, fs[0].Type, want)
		}
		if ts, ok := fs[0].Type.(*arrow.TimestampType); ok && (ts.Unit != arrow.Microsecond || ts.TimeZone != "UTC") {
			t.Errorf("%s: column %s is %s, want timestamp[us, UTC]", rel, name, ts)
		}
	}
}

// arrowRows turns a table into rows of plain values: dictionary strings as
// strings, integers as int64, timestamps as microseconds, lists as slices.
func arrowRows(t *testing.T, tbl arrow.Table) []map[string]any {
	t.Helper()
	tr := array.NewTableReader(tbl, 1<<20)
	defer tr.Release()
	var rows []map[string]any
	for tr.Next() {
		rec := tr.RecordBatch()
		for i := 0; i < int(rec.NumRows()); i++ {
			row := map[string]any{}
			for c, f := range rec.Schema().Fields() {
				row[f.Name] = arrowValue(t, rec.Column(c), i)
			}
			rows = append(rows, row)
		}
	}
	return rows
}

func arrowValue(t *testing.T, a arrow.Array, i int) any {
	if a.IsNull(i) {
		return nil
	}
	switch a := a.(type) {
	case *array.Dictionary:
		return arrowValue(t, a.Dictionary(), a.GetValueIndex(i))
	case *array.String:
		return a.Value(i)
	case *array.Int32:
		return int64(a.Value(i))
	case *array.Int64:
		return a.Value(i)
	case *array.Float64:
		return a.Value(i)
	case *array.Boolean:
		return a.Value(i)
	case *array.Timestamp:
		return int64(a.Value(i))
	case *array.List:
		start, end := a.ValueOffsets(i)
		out := []any{}
		for j := start; j < end; j++ {
			out = append(out, arrowValue(t, a.ListValues(), int(j)))
		}
		return out
	case *array.Struct:
		m := map[string]any{}
		st := a.DataType().(*arrow.StructType)
		for k, f := range st.Fields() {
			m[f.Name] = arrowValue(t, a.Field(k), i)
		}
		return m
	}
	t.Fatalf("no reading of arrow type %s", a.DataType())
	return nil
}

// goRow is the same plain form of a row as written, read from its parquet
// tags.
func goRow(v any) map[string]any {
	return goValue(reflect.ValueOf(v)).(map[string]any)
}

func goValue(v reflect.Value) any {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	if tm, ok := v.Interface().(time.Time); ok {
		return tm.UnixMicro()
	}
	switch v.Kind() {
	case reflect.Struct:
		m := map[string]any{}
		for i := 0; i < v.NumField(); i++ {
			name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("parquet"), ",")
			m[name] = goValue(v.Field(i))
		}
		return m
	case reflect.Slice:
		out := []any{}
		for i := 0; i < v.Len(); i++ {
			out = append(out, goValue(v.Index(i)))
		}
		return out
	case reflect.Int32, reflect.Int64:
		return v.Int()
	case reflect.String:
		return v.String() // a schemas.Kind is written as its string
	}
	return v.Interface()
}

func diffMaps(want, got map[string]any) string {
	var keys []string
	for k := range want {
		keys = append(keys, k)
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range slices.Compact(keys) {
		if !reflect.DeepEqual(want[k], got[k]) {
			fmt.Fprintf(&b, "  %s: wrote %#v, read %#v\n", k, want[k], got[k])
		}
	}
	return b.String()
}

// TestClassifyIsIncremental classifies a directory, lets it gain runs and a
// newer attempt of one run, and classifies again: only the new runs are
// read, the replaced attempt's rows are gone, and nothing is counted twice.
func TestClassifyIsIncremental(t *testing.T) {
	ctx := context.Background()
	traces := filepath.Join(t.TempDir(), "runs")
	out := t.TempDir()
	all, err := trace.ListFiles(fixtures)
	if err != nil {
		t.Fatal(err)
	}
	var attempt2 trace.File
	for i, f := range all {
		switch {
		case f.Attempt == 2:
			attempt2 = f
		case i%2 == 0:
			copyTrace(t, traces, f)
		}
	}
	first, err := Update(ctx, traces, out)
	if err != nil {
		t.Fatal(err)
	}
	if first.Classified == 0 || first.Unchanged != 0 {
		t.Fatalf("first classify: %+v", first)
	}

	again, err := Update(ctx, traces, out)
	if err != nil {
		t.Fatal(err)
	}
	if again.Classified != 0 || again.Reclassified != 0 || again.Unchanged != first.Classified || len(again.Parts) != 0 {
		t.Errorf("a second classify of an unchanged directory: %+v, want everything unchanged and no part written", again)
	}

	for i, f := range all {
		if i%2 == 1 || f.Attempt == 1 && f.RunID == attempt2.RunID {
			copyTrace(t, traces, f)
		}
	}
	copyTrace(t, traces, attempt2)
	third, err := Update(ctx, traces, out)
	if err != nil {
		t.Fatal(err)
	}
	latest := 0
	for _, err := range trace.LastAttempts(ctx, fixtures) {
		if err != nil {
			t.Fatal(err)
		}
		latest++
	}
	newRuns := latest - first.Classified
	if third.Unchanged+third.Reclassified != first.Classified || third.Classified+third.Reclassified < newRuns {
		t.Errorf("third classify: %+v; %d runs were classified first, %d are new", third, first.Classified, newRuns)
	}

	wantRuns, wantTurns, _ := expectedRows(t, fixtures)
	seen := map[string]int{}
	for r, err := range dataset.Runs(ctx, out) {
		if err != nil {
			t.Fatal(err)
		}
		seen[r.Row.RunID]++
		if r.Row.RunID == attempt2.RunID && r.Row.Attempt != 2 {
			t.Errorf("run %s is in the dataset at attempt %d, want the newer attempt 2", r.Row.RunID, r.Row.Attempt)
		}
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("run %s is in the runs table %d times", id, n)
		}
	}
	if len(seen) != len(wantRuns) {
		t.Errorf("runs table holds %d runs, want %d", len(seen), len(wantRuns))
	}
	turns := 0
	for tr, err := range dataset.Turns(ctx, out) {
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := wantTurns[fmt.Sprintf("%s/%d", tr.Row.RunID, tr.Row.Step)]; !ok {
			t.Errorf("turn %s step %d (attempt %d) should not be in the dataset", tr.Row.RunID, tr.Row.Step, tr.Row.Attempt)
		}
		turns++
	}
	if turns != len(wantTurns) {
		t.Errorf("turns table holds %d turns, want %d", turns, len(wantTurns))
	}
}

// TestClassifyRemovesWhatACrashLeft: part files no commit recorded are the
// leftovers of a classify that died, and the next one removes them.
func TestClassifyRemovesWhatACrashLeft(t *testing.T) {
	out := t.TempDir()
	if _, err := Update(context.Background(), fixtures, out); err != nil {
		t.Fatal(err)
	}
	orphan := filepath.Join(out, dataset.TurnsTable, "source=bench", "model=scripted", "part-000009-0001.parquet")
	if err := os.WriteFile(orphan, []byte("half a file"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Update(context.Background(), fixtures, out)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(orphan); !os.IsNotExist(err) {
		t.Errorf("the orphan part file is still there (%v)", err)
	}
	if res.Classified != 0 {
		t.Errorf("classified %d runs again", res.Classified)
	}
}

func TestClassifyCancelledLeavesTheDatasetAsItWas(t *testing.T) {
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Update(ctx, fixtures, out); err == nil {
		t.Fatal("a cancelled classify returned no error")
	}
	if dataset.IsDataset(out) {
		t.Error("a cancelled first classify left a dataset behind")
	}
}

func TestClassifyResult(t *testing.T) {
	res, err := Update(context.Background(), fixtures, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if res.Runs != 34 || res.SetAside != 1 || res.Classified != 34 {
		t.Errorf("runs %d, set aside %d, classified %d; want 34, 1, 34", res.Runs, res.SetAside, res.Classified)
	}
	if res.RulesLabelled != 6 {
		t.Errorf("%d turns labelled by rules, want the 6 of the run recorded without kinds", res.RulesLabelled)
	}
	sum := 0
	for _, n := range res.Kinds {
		sum += n
	}
	if sum != res.Turns || res.Kinds[schemas.KindParseFailure] != 1 {
		t.Errorf("kinds %v do not add up to %d turns with one parse failure", res.Kinds, res.Turns)
	}
}

// TestClassifyReplacesAnIncompleteRunThatGrew: a run classified while its
// trace had no run_end is classified again once the trace is complete.
func TestClassifyReplacesAnIncompleteRunThatGrew(t *testing.T) {
	ctx := context.Background()
	traces, out := t.TempDir(), t.TempDir()
	src := filepath.Join(fixtures, "runs", "bench-initials-p1-9b170d0ba35c.jsonl")
	whole, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	cut := bytes.LastIndexByte(whole[:len(whole)-1], '\n') + 1 // drop the run_end line
	dst := filepath.Join(traces, filepath.Base(src))
	if err := os.WriteFile(dst, whole[:cut], 0o644); err != nil {
		t.Fatal(err)
	}
	verdicts := func() []schemas.Verdict {
		var v []schemas.Verdict
		for r, err := range dataset.Runs(ctx, out) {
			if err != nil {
				t.Fatal(err)
			}
			v = append(v, r.Row.Verdict)
		}
		return v
	}
	res, err := Update(ctx, traces, out)
	if err != nil {
		t.Fatal(err)
	}
	if res.Incomplete != 1 || !slices.Equal(verdicts(), []schemas.Verdict{schemas.VerdictIncomplete}) {
		t.Fatalf("first classify: %+v, verdicts %v", res, verdicts())
	}
	if res, err = Update(ctx, traces, out); err != nil || res.Unchanged != 1 {
		t.Fatalf("an incomplete run that did not grow was classified again: %+v, %v", res, err)
	}
	if err := os.WriteFile(dst, whole, 0o644); err != nil {
		t.Fatal(err)
	}
	if res, err = Update(ctx, traces, out); err != nil || res.Reclassified != 1 {
		t.Fatalf("the run that grew: %+v, %v", res, err)
	}
	if got := verdicts(); !slices.Equal(got, []schemas.Verdict{schemas.VerdictWorked}) {
		t.Errorf("verdicts %v, want the completed run alone", got)
	}
	turns := 0
	for _, err := range dataset.Turns(ctx, out) {
		if err != nil {
			t.Fatal(err)
		}
		turns++
	}
	if turns != 6 {
		t.Errorf("%d turns in the dataset, want the run's 6 once", turns)
	}
}

// copyTrace copies the trace file f into the directory dir, made if need
// be.
func copyTrace(t *testing.T, dir string, f trace.File) {
	t.Helper()
	b, err := os.ReadFile(f.Path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, filepath.Base(f.Path)), b, 0o644); err != nil {
		t.Fatal(err)
	}
}
