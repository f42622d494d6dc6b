package dedupe

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pyharness/pyharness/classify/derivedcache"
	"github.com/pyharness/pyharness/internal/wholefile"
	"github.com/pyharness/pyharness/schemas/trace"
)

// TestPackOfAnotherVersionIsNotRead writes the fingerprints of one run
// with this build's deriver and with derivers of the same name whose
// version is of an older layout (version 2's digests were of the key
// text, not of the confirm text; version 3's index held no stamps): the
// store must take the first's run and leave the others' to be decoded
// again, as if it held none.
func TestPackOfAnotherVersionIsNotRead(t *testing.T) {
	trace1 := filepath.Join(t.TempDir(), "run-1.jsonl")
	data := []byte(`{"type":"run_start"}` + "\n")
	if err := os.WriteFile(trace1, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f := trace.File{RunID: "run-1", Attempt: 1, Path: trace1}
	run := &trace.RebuiltRun{Run: &trace.Run{File: f}}
	entry := appendRunPrints(nil, &runPrints{Worked: true, Turns: []turnPrint{{What: turnNoModel, Time: 1}}})
	for _, c := range []struct {
		name, version string
		want          int
	}{
		{"this build's", printsVersion, 1},
		{"version 2's", "v2 " + keyVersion, 0},
		{"version 3's", "v3 " + keyVersion + " " + confirmVersion, 0},
	} {
		dataset := t.TempDir()
		d := derivedcache.Deriver{Name: Deriver().Name, Version: c.version, Derive: func(*derivedcache.Run) []byte { return entry }}
		w, err := derivedcache.Create(dataset, 1, []derivedcache.Deriver{d})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Add(f, derivedcache.Derive([]derivedcache.Deriver{d}, run, data, wholefile.Stamp{})); err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		s, err := openPrints(dataset)
		if err != nil {
			t.Fatal(err)
		}
		if n := s.Len(); n != c.want {
			t.Errorf("a pack of %s version gave %d runs, want %d", c.name, n, c.want)
		}
		s.Close()
	}
}
