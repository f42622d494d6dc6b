package wholefile

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestSettledStampsOnly: a stamp is kept only when the file had not
// changed for SettleTime before the stat, so that a change right after
// cannot leave its change time as it was.
func TestSettledStampsOnly(t *testing.T) {
	now := time.Date(2026, 12, 2, 6, 0, 0, 0, time.UTC)
	old := now.Add(-SettleTime - time.Millisecond).UnixNano()
	recent := now.Add(-SettleTime + time.Millisecond).UnixNano()
	for _, c := range []struct {
		name string
		st   Stamp
		kept bool
	}{
		{"changed long before", Stamp{Size: 9, Mtime: old, Ctime: old, Ino: 5, Dev: 1}, true},
		{"changed just before", Stamp{Size: 9, Mtime: old, Ctime: recent, Ino: 5, Dev: 1}, false},
		{"modified in the future", Stamp{Size: 9, Mtime: now.Add(time.Hour).UnixNano(), Ctime: old, Ino: 5, Dev: 1}, false},
		{"no change time", Stamp{Size: 9, Mtime: old, Ino: 5, Dev: 1}, false},
	} {
		got := settled(c.st, now)
		if c.kept && got != c.st || !c.kept && !got.IsZero() {
			t.Errorf("%s: settled gave %+v, want kept %v", c.name, got, c.kept)
		}
	}
}

// TestStampChangesWithTheBytes: what later stages trust a stamp for. A
// file rewritten with bytes of the same size and its modification time
// set back, or another file renamed over it, has another stamp.
func TestStampChangesWithTheBytes(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.jsonl")
	if err := os.WriteFile(path, []byte("abc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before, err := StatStamp(path)
	if err != nil {
		t.Fatal(err)
	}
	if before.IsZero() || before.Size != 4 {
		t.Fatalf("stamp of a 4-byte file: %+v", before)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(30 * time.Millisecond) // more than a tick of the file system's clock
	if err := os.WriteFile(path, []byte("abd\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
	edited, err := StatStamp(path)
	if err != nil {
		t.Fatal(err)
	}
	if edited.Size != before.Size || edited.Mtime != before.Mtime {
		t.Fatalf("the edit did not keep size and modification time: %+v then %+v", before, edited)
	}
	if edited == before {
		t.Errorf("a same-size edit with its modification time set back kept the stamp %+v", edited)
	}
	other := filepath.Join(dir, "other.jsonl")
	if err := os.WriteFile(other, []byte("abd\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(other, path); err != nil {
		t.Fatal(err)
	}
	replaced, err := StatStamp(path)
	if err != nil {
		t.Fatal(err)
	}
	if replaced.Ino == edited.Ino {
		t.Errorf("a file renamed over the trace kept its inode %d", replaced.Ino)
	}
	if _, err := StatStamp(filepath.Join(dir, "missing.jsonl")); !os.IsNotExist(err) {
		t.Errorf("a missing file: %v, want its not-exist error", err)
	}
}

// TestReadStampsOnlySettledFiles: a file just written is read with
// the zero stamp, so that nothing stored of it is taken by its stamp.
func TestReadStampsOnlySettledFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.jsonl")
	if err := os.WriteFile(path, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stamp, done, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	done()
	if !stamp.IsZero() {
		t.Errorf("a file written just now was read with the stamp %+v", stamp)
	}
}
