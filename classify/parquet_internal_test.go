package classify

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/pyharness/pyharness/classify/dataset"
)

// A part whose file cannot be written must fail its close, naming the
// file, so that the batch does not commit it: the rows are written on the
// part's encoder goroutine, where a failed write returns to nobody.
func TestPartCloseReportsAFailedWrite(t *testing.T) {
	p, err := createPart[dataset.RunRow](t.TempDir(), "runs/source=x/model=y/part-000001-0001.parquet")
	if err != nil {
		t.Fatal(err)
	}
	p.f.Close() // every write to the file fails from here on
	// More than a row group, so that parquet-go writes to the file before close.
	for i := range 2 * rowsPerGroup {
		p.write([]dataset.RunRow{{RunID: fmt.Sprintf("run-%06d", i)}})
	}
	err = p.close()
	if err == nil {
		t.Fatal("close of a part whose writes failed returned no error")
	}
	if !strings.Contains(err.Error(), "part-000001-0001.parquet") {
		t.Errorf("error %q does not name the part file", err)
	}
}

// A part written through the encoder holds every row, in the order given.
func TestPartKeepsRowsInOrder(t *testing.T) {
	dir := t.TempDir()
	rel := "runs/source=x/model=y/part-000001-0001.parquet"
	p, err := createPart[dataset.RunRow](dir, rel)
	if err != nil {
		t.Fatal(err)
	}
	const n = 3*rowsPerGroup + 17
	for i := 0; i < n; i += 5 {
		var rows []dataset.RunRow
		for j := i; j < min(i+5, n); j++ {
			rows = append(rows, dataset.RunRow{RunID: fmt.Sprintf("run-%06d", j)})
		}
		p.write(rows)
	}
	if err := p.close(); err != nil {
		t.Fatal(err)
	}
	rows := readRows[dataset.RunRow](t, filepath.Join(dir, filepath.FromSlash(rel)))
	if len(rows) != n {
		t.Fatalf("read %d rows, wrote %d", len(rows), n)
	}
	for i, r := range rows {
		if want := fmt.Sprintf("run-%06d", i); r.RunID != want {
			t.Fatalf("row %d is %s, want %s", i, r.RunID, want)
		}
	}
}

// Every column of a turns part, the text columns and the small ones, is
// written in snappy pages (pageCodec), which read back as written.
func TestPartPagesAreSnappy(t *testing.T) {
	dir := t.TempDir()
	rel := "turns/source=x/model=y/part-000001-0001.parquet"
	p, err := createPart[dataset.TurnRow](dir, rel)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Repeat("def add(a, b):\n    return a + b\n", 200)
	var want []dataset.TurnRow
	for i := range 50 {
		want = append(want, dataset.TurnRow{RunID: fmt.Sprintf("run-%03d", i), Step: int32(i), Kind: "opening",
			Messages: []dataset.MessageRow{{Role: "user", Content: text}}, Draft: text + fmt.Sprint(i),
			PromptHash: fmt.Sprintf("%064x", i), Repairs: []string{}, FilesChanged: []string{}})
	}
	p.write(want)
	if err := p.close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, filepath.FromSlash(rel))
	pf := mustOpenPart(t, path)
	cols := pf.Schema().Columns()
	for _, rg := range pf.Metadata().RowGroups {
		for i, c := range rg.Columns {
			if got := c.MetaData.Codec; got != format.Snappy {
				t.Errorf("column %s: pages compressed with %s, want SNAPPY", strings.Join(cols[i], "."), got)
			}
		}
	}
	got := readRows[dataset.TurnRow](t, path)
	if len(got) != len(want) {
		t.Fatalf("read %d rows, wrote %d", len(got), len(want))
	}
	for i := range want {
		if got[i].Draft != want[i].Draft || got[i].Messages[0].Content != text || got[i].PromptHash != want[i].PromptHash {
			t.Fatalf("row %d reads back other than written", i)
		}
	}
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
