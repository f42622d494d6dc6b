package classify

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/classify/dataset"
)

// The state written a run at a time is the document json.Marshal writes,
// and reads back to the same state.
func TestStateEncodesAsJSONMarshalDoes(t *testing.T) {
	for _, runs := range []map[string]runState{
		{},
		{"b-run": {Attempt: 2, Size: 123456789012, Batch: 3, Part: 1, Complete: true}, "a-run": {Attempt: 1, Size: 7}},
		{`quote"and\back<slash>`: {Attempt: 1}, "é-unicode": {Part: 2}},
	} {
		st := newState()
		st.Batch, st.Traces, st.Partitions, st.Parts = 3, []string{"/traces"}, []string{"source=bench/model=scripted"}, []string{"turns/x.parquet"}
		st.Runs = runs
		var buf bytes.Buffer
		w := bufio.NewWriter(&buf)
		if err := st.encode(w); err != nil {
			t.Fatal(err)
		}
		w.Flush()
		want, err := json.Marshal(st)
		if err != nil {
			t.Fatal(err)
		}
		if got := buf.String(); got != string(want)+"\n" {
			t.Fatalf("encoded\n%s\nwant\n%s", got, want)
		}
		back := newState()
		if err := json.Unmarshal(buf.Bytes(), back); err != nil {
			t.Fatal(err)
		}
		if len(back.Runs) != len(runs) {
			t.Fatalf("read back %d runs, want %d", len(back.Runs), len(runs))
		}
		for id, rs := range runs {
			if back.Runs[id] != rs {
				t.Fatalf("run %q read back as %+v, want %+v", id, back.Runs[id], rs)
			}
		}
	}
}

// The live part files are read from the state classify saved (without its
// runs), and a state of another version is refused.
func TestSavedStateListsTheParts(t *testing.T) {
	dir := t.TempDir()
	if parts, err := dataset.PartFiles(dir, dataset.RunsTable); err != nil || parts != nil {
		t.Fatalf("no state: %v, %v; want none and no error", parts, err)
	}
	st := newState()
	st.Parts = []string{"turns/source=bench/model=scripted/part-000001-0002.parquet", "runs/source=bench/model=scripted/part-000001-0001.parquet"}
	st.Runs = map[string]runState{"r1": {Attempt: 1}, "r2": {Attempt: 2}}
	if err := st.save(dir); err != nil {
		t.Fatal(err)
	}
	var parts []string
	for _, table := range []string{dataset.RunsTable, dataset.TurnsTable} {
		p, err := dataset.PartFiles(dir, table)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, p...)
	}
	want := []string{"runs/source=bench/model=scripted/part-000001-0001.parquet", "turns/source=bench/model=scripted/part-000001-0002.parquet"}
	if !slices.Equal(parts, want) {
		t.Fatalf("parts %q, want %q", parts, want)
	}
	if err := os.WriteFile(filepath.Join(dir, dataset.StateFile), []byte(`{"version":7,"parts":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := dataset.PartFiles(dir, dataset.RunsTable); err == nil || !strings.Contains(err.Error(), "version 7") {
		t.Fatalf("a version 7 state: %v, want it refused", err)
	}
}
