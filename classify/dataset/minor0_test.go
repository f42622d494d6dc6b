package dataset

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// turnRowMinor0 is the turns table's metric columns as builds before
// schema minor 1 wrote them: required, 0 where the server reported none.
type turnRowMinor0 struct {
	RunID        string `parquet:"run_id,dict"`
	Step         int32  `parquet:"step"`
	Kind         string `parquet:"kind,dict"`
	PromptTokens int32  `parquet:"prompt_tokens"`
	OutputTokens int32  `parquet:"output_tokens"`
	TotalMS      int64  `parquet:"total_ms"`
	LoadMS       int64  `parquet:"load_ms"`
	PromptEvalMS int64  `parquet:"prompt_eval_ms"`
	EvalMS       int64  `parquet:"eval_ms"`
	TTFTMS       int64  `parquet:"ttft_ms"`
}

// A dataset classified before minor 1 holds required metric columns; this
// build reads them into its nullable ones (present, with the value the file
// holds) both where stats reads a dataset and where classify copies old
// rows into a new batch, and the new columns it lacks read as absent.
func TestPartFilesBeforeMinor1AreRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "part-000001-0000.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	old := []turnRowMinor0{
		{RunID: "r1", Step: 1, Kind: "opening", PromptTokens: 812, OutputTokens: 41, TotalMS: 2210, LoadMS: 5, PromptEvalMS: 900, EvalMS: 1300, TTFTMS: 910},
		{RunID: "r1", Step: 2, Kind: "tool-result", PromptTokens: 900, OutputTokens: 12, TotalMS: 800},
	}
	w := parquet.NewGenericWriter[turnRowMinor0](f)
	if _, err := w.Write(old); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()

	check := func(where string, rows []TurnRow) {
		t.Helper()
		if len(rows) != len(old) {
			t.Fatalf("%s: %d rows, want %d", where, len(rows), len(old))
		}
		for i, r := range rows {
			o := old[i]
			if r.PromptTokens == nil || *r.PromptTokens != o.PromptTokens || r.OutputTokens == nil || *r.OutputTokens != o.OutputTokens ||
				r.LoadMS == nil || *r.LoadMS != o.LoadMS || r.EvalMS == nil || *r.EvalMS != o.EvalMS || r.TTFTMS == nil || *r.TTFTMS != o.TTFTMS || r.TotalMS != o.TotalMS {
				t.Errorf("%s: row %d = %+v, want the minor-0 figures %+v", where, i, r, o)
			}
			if r.PromptEvalTokens != nil || r.CachedTokens != nil || len(r.WarningCodes) > 0 {
				t.Errorf("%s: row %d has columns the file lacks: prompt_eval_tokens %v cached_tokens %v warning_codes %v", where, i, r.PromptEvalTokens, r.CachedTokens, r.WarningCodes)
			}
		}
	}

	var read []TurnRow
	ReadPart(context.Background(), path, Partition{}, nil, func(p Partitioned[TurnRow], err error) bool {
		if err != nil {
			t.Fatal(err)
		}
		read = append(read, p.Row)
		return true
	})
	check("ReadPart", read)

	// The reader classify's rewrite uses when it copies old rows.
	rf, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rf.Close()
	r := parquet.NewGenericReader[TurnRow](rf)
	defer r.Close()
	buf := make([]TurnRow, 4)
	n, err := r.Read(buf)
	if err != nil && n != len(old) {
		t.Fatal(err)
	}
	check("copyPart's reader", buf[:n])
}
