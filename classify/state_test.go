package classify

import (
	"bufio"
	"bytes"
	"encoding/json"
	"testing"
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
