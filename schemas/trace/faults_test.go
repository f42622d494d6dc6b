package trace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A writer killed between creating its file and writing the first record
// leaves an empty attempt file. Nothing was lost, so validation warns
// rather than fails; the run's next attempt gets the next number and is
// the one readers use.
func TestEmptyAttemptFromAKilledWriter(t *testing.T) {
	dir := t.TempDir()
	writeRun(t, dir, "r1")
	w, err := Create(dir, "r1") // attempt 2: created, then the process dies
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	v, err := NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	rep := v.ValidateFile(w.Path())
	if rep.Errors() != 0 || len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].Message, "empty trace") {
		t.Errorf("the empty attempt validates as %+v, want one warning", rep.Problems)
	}
	redo := writeRun(t, dir, "r1")
	if filepath.Base(redo) != "r1.attempt-3.jsonl" {
		t.Fatalf("the redo went to %s, want attempt 3", redo)
	}
	all, err := list(dir)
	if err != nil {
		t.Fatal(err)
	}
	latest, setAside := all.Latest()
	if latest.Len() != 1 || latest.File(0).Attempt != 3 || setAside != 2 {
		t.Errorf("latest %+v, set aside %d; want attempt 3, 2 set aside", latest.files(), setAside)
	}
	if st, err := os.Stat(w.Path()); err != nil || st.Size() != 0 {
		t.Errorf("the empty attempt was not kept as it was: %v", err)
	}
}
