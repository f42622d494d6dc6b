package dedupe

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/pyharness/pyharness/runpack"
	"github.com/pyharness/pyharness/trace"
)

// TestPackOfAnOlderLayoutIsNotRead writes a pack with this build's header
// and ones with the headers of version 2, whose digests were of the key
// text, not of the confirm text, and of version 3, whose index held no
// stamps: the store must take the first's run and leave the others' to be
// decoded again, as if it held none.
func TestPackOfAnOlderLayoutIsNotRead(t *testing.T) {
	entry := appendRunPrints(nil, &runPrints{Worked: true, Turns: []turnPrint{{What: turnNoModel, Time: 1}}})
	v2 := fmt.Sprintf("pyharness.dedupe.prints/v2 %s bands=%d rows=%d shingle=%d\n", keyVersion, Bands, Rows, ShingleSize)
	v3 := fmt.Sprintf("pyharness.dedupe.prints/v3 %s %s bands=%d rows=%d shingle=%d\n", keyVersion, confirmVersion, Bands, Rows, ShingleSize)
	for _, c := range []struct {
		name, header string
		want         int
	}{
		{"this build's", printsHeader, 1},
		{"version 2's", v2, 0},
		{"version 3's", v3, 0},
	} {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, printsDir), 0o755); err != nil {
			t.Fatal(err)
		}
		w, err := runpack.Create(filepath.Join(dir, printsDir, "batch-000001.bin"), runpack.Format{Header: c.header, Trailer: printsTrailer})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Add(trace.File{RunID: "run-1", Attempt: 1}, "case-a", runpack.Source{Size: 10, Hash: 7}, entry); err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		s, err := openPrints(dir)
		if err != nil {
			t.Fatal(err)
		}
		if n := s.Len(); n != c.want {
			t.Errorf("a pack with %s header gave %d runs, want %d", c.name, n, c.want)
		}
		s.Close()
	}
}
