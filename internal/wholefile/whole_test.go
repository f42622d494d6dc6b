package wholefile

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestReadReadsEachFileWhole: files larger and smaller than the
// buffers Read has kept from earlier files give exactly their bytes,
// and a file that cannot be opened gives its error.
func TestReadReadsEachFileWhole(t *testing.T) {
	dir := t.TempDir()
	for _, size := range []int{0, 1, 511, 4096, 100_000, 10, 70_000, 3} {
		want := bytes.Repeat([]byte{byte('a' + size%26)}, size)
		path := filepath.Join(dir, "t.jsonl")
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
		got, _, done, err := Read(path)
		if err != nil {
			t.Fatalf("%d bytes: %v", size, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%d bytes: read %d bytes, not the file's", size, len(got))
		}
		done()
	}
	if _, _, done, err := Read(filepath.Join(dir, "missing.jsonl")); !os.IsNotExist(err) {
		t.Fatalf("a missing file: %v, want its not-exist error", err)
	} else {
		done()
	}
}
