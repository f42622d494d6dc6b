package derivedcache

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/pyharness/pyharness/internal/wholefile"
	"github.com/pyharness/pyharness/schemas/trace"
)

// TestEntriesByStamp: a store gives an entry by stamp only for the very
// stamp its trace was read with, never for the zero Stamp, and by bytes
// whatever the stamp.
func TestEntriesByStamp(t *testing.T) {
	ft := format{header: "test/v1\n", trailer: "END\n"}
	path := filepath.Join(t.TempDir(), "pack.bin")
	w, err := createPack(path, ft)
	if err != nil {
		t.Fatal(err)
	}
	data := []byte("{\"type\":\"run_start\"}\n")
	stamp := wholefile.Stamp{Size: int64(len(data)), Mtime: 1_700_000_000_000_000_001, Ctime: 1_700_000_000_000_000_002, Ino: 42, Dev: 7}
	stamped := trace.File{RunID: "stamped", Attempt: 1}
	unstamped := trace.File{RunID: "unstamped", Attempt: 1}
	if err := w.add(stamped, "case-a", sourceOf(data, stamp), []byte("entry of stamped")); err != nil {
		t.Fatal(err)
	}
	if err := w.add(unstamped, "case-a", sourceOf(data, wholefile.Stamp{}), []byte("entry of unstamped")); err != nil {
		t.Fatal(err)
	}
	if err := w.commit(); err != nil {
		t.Fatal(err)
	}
	s, err := openPacks([]string{path}, ft)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	count := func(entries func(func([]byte) bool)) int { return len(slices.Collect(entries)) }

	if n := count(s.entriesByStamp(stamped, stamp)); n != 1 {
		t.Errorf("the stamp it was read with: %d entries, want 1", n)
	}
	for _, c := range []struct {
		name   string
		change func(*wholefile.Stamp)
	}{
		{"size", func(st *wholefile.Stamp) { st.Size++ }},
		{"modification time", func(st *wholefile.Stamp) { st.Mtime++ }},
		{"change time", func(st *wholefile.Stamp) { st.Ctime++ }},
		{"inode", func(st *wholefile.Stamp) { st.Ino++ }},
		{"device", func(st *wholefile.Stamp) { st.Dev++ }},
	} {
		other := stamp
		c.change(&other)
		if n := count(s.entriesByStamp(stamped, other)); n != 0 {
			t.Errorf("another %s: %d entries, want none", c.name, n)
		}
	}
	if n := count(s.entriesByStamp(trace.File{RunID: "stamped", Attempt: 2}, stamp)); n != 0 {
		t.Errorf("another attempt: %d entries, want none", n)
	}
	if n := count(s.entriesByStamp(unstamped, wholefile.Stamp{})); n != 0 {
		t.Errorf("a run read with no stamp, asked with the zero Stamp: %d entries, want none", n)
	}
	for _, f := range []trace.File{stamped, unstamped} {
		if n := count(s.entries(f, data)); n != 1 {
			t.Errorf("%s by its bytes: %d entries, want 1", f.RunID, n)
		}
	}
}
