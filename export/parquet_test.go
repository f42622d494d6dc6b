package export_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/pyharness/pyharness/export"
)

type column struct {
	name string
	typ  string
}

// The columns every shard declares, as arrow-go reads them, by layout:
// the conversation, then the provenance.
var wantColumns = map[string][]column{
	"prompt-completion": append([]column{
		{"prompt", "list<element: struct<role: utf8, content: utf8, reasoning_content: utf8>>"},
		{"completion", "list<element: struct<role: utf8, content: utf8, reasoning_content: utf8>>"}},
		provenanceColumns...),
	"messages": append([]column{
		{"messages", "list<element: struct<role: utf8, content: utf8, reasoning_content: utf8, weight: int64>>"}},
		provenanceColumns...),
	"assistant-only": append([]column{
		{"messages", "list<element: struct<role: utf8, content: utf8, reasoning_content: utf8, weight: int64>>"}},
		provenanceColumns...),
}

var provenanceColumns = []column{
	{"weight", "float64"},
	{"case_id", "utf8"},
	{"group", "utf8"},
	{"run_id", "utf8"},
	{"step", "int64"},
	{"source", "utf8"},
	{"model", "utf8"},
	{"verdict", "utf8"},
	{"kind", "utf8"},
	{"key", "utf8"},
	{"multiplicity", "int64"},
	{"cluster_turns", "int64"},
	{"as_written", "utf8"},
}

type parquetRow struct {
	messages []export.Message
	weight   float64
	runID    string
	step     int64
	caseID   string
}

func readParquet(t *testing.T, path string) (*arrow.Schema, []parquetRow) {
	t.Helper()
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	tr := array.NewTableReader(tbl, 1024)
	defer tr.Release()
	var rows []parquetRow
	for tr.Next() {
		rec := tr.Record()
		col := func(name string) arrow.Array { return rec.Column(rec.Schema().FieldIndices(name)[0]) }
		// The conversation: messages, or prompt then completion.
		var lists []*array.List
		for _, name := range []string{"messages", "prompt", "completion"} {
			if idx := rec.Schema().FieldIndices(name); len(idx) > 0 {
				lists = append(lists, rec.Column(idx[0]).(*array.List))
			}
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			var m []export.Message
			for _, msgs := range lists {
				structs := msgs.ListValues().(*array.Struct)
				st := structs.DataType().(*arrow.StructType)
				field := func(name string) arrow.Array {
					k, _ := st.FieldIdx(name)
					return structs.Field(k)
				}
				roles, contents, reasoning := field("role").(*array.String), field("content").(*array.String), field("reasoning_content").(*array.String)
				weights, _ := st.FieldByName("weight")
				start, end := msgs.ValueOffsets(i)
				for j := start; j < end; j++ {
					msg := export.Message{Role: roles.Value(int(j)), Content: contents.Value(int(j)), ReasoningContent: reasoning.Value(int(j))}
					if weights.Name != "" && msg.Role == "assistant" {
						w := int(field("weight").(*array.Int64).Value(int(j)))
						msg.Weight = &w
					}
					m = append(m, msg)
				}
			}
			rows = append(rows, parquetRow{messages: m, weight: col("weight").(*array.Float64).Value(i),
				runID: col("run_id").(*array.String).Value(i), step: col("step").(*array.Int64).Value(i),
				caseID: col("case_id").(*array.String).Value(i)})
		}
	}
	return tbl.Schema(), rows
}

// Parquet shards read back with arrow-go under the declared schema, one
// schema across shards, and their messages are the JSONL rows, in every
// layout.
func TestParquetRoundTrip(t *testing.T) {
	in := writeFixture(t)
	for _, layout := range export.Layouts {
		t.Run(layout, func(t *testing.T) { parquetRoundTrip(t, in, layout) })
	}
}

func parquetRoundTrip(t *testing.T, in, layout string) {
	pq := options(in, t.TempDir(), export.FormatParquet)
	pq.ShardRows = 3 // several shards per split
	pq.Layout = layout
	sum, _ := runExport(t, pq)
	js := options(in, t.TempDir(), export.FormatJSONL)
	js.Layout = layout
	runExport(t, js)

	// The JSONL rows by (run id, step), from meta.jsonl.
	jsonlRows := map[string][]export.Message{}
	for sp, name := range map[string]string{export.SplitTrain: "train.jsonl", "validation": "valid.jsonl"} {
		f, err := os.Open(filepath.Join(js.Out, name))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		var lines [][]export.Message
		for sc.Scan() {
			var row struct{ Messages, Prompt, Completion []export.Message }
			if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
				t.Fatal(err)
			}
			lines = append(lines, append(row.Messages, append(row.Prompt, row.Completion...)...))
		}
		f.Close()
		for _, m := range readMeta(t, js.Out) {
			if m.Split == sp {
				jsonlRows[m.RunID+"#"+strconv.Itoa(m.Step)] = lines[m.Row]
			}
		}
	}

	shards, _ := filepath.Glob(filepath.Join(pq.Out, "data", "*.parquet"))
	if len(shards) < 3 {
		t.Fatalf("%d shards, want several: %v", len(shards), shards)
	}
	var first *arrow.Schema
	total := 0
	seen := map[string]bool{}
	for _, shard := range shards {
		schema, rows := readParquet(t, shard)
		if first == nil {
			first = schema
			for i, c := range wantColumns[layout] {
				f := schema.Field(i)
				if f.Name != c.name || f.Type.String() != c.typ {
					t.Errorf("column %d is %s %s, want %s %s", i, f.Name, f.Type, c.name, c.typ)
				}
			}
			if schema.NumFields() != len(wantColumns[layout]) {
				t.Errorf("%d columns, want %d: %s", schema.NumFields(), len(wantColumns[layout]), schema)
			}
		} else if !schema.Equal(first) {
			t.Errorf("%s has another schema:\n%s\nwant\n%s", shard, schema, first)
		}
		for _, r := range rows {
			total++
			key := r.runID + "#" + strconv.FormatInt(r.step, 10)
			seen[key] = true
			want, ok := jsonlRows[key]
			if !ok {
				// A training pair of weight below 1 may have drawn no row.
				if r.weight >= 1 {
					t.Errorf("%s: pair of weight %.2f is not in the JSONL export", key, r.weight)
				}
				continue
			}
			if !reflect.DeepEqual(r.messages, want) {
				t.Errorf("%s: parquet messages differ from the JSONL row:\n%+v\n%+v", key, r.messages, want)
			}
		}
	}
	for key := range jsonlRows {
		if !seen[key] {
			t.Errorf("JSONL row %s is not in the parquet export", key)
		}
	}
	if want := sum.Splits[export.SplitTrain].Rows + sum.Splits["validation"].Rows; total != want {
		t.Errorf("%d parquet rows, the summary says %d", total, want)
	}
}
