package draft

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/schemas"
)

// TestReaderVersionPinsItsReadings holds ReaderVersion to what the reader
// reads. The stages after collect trust a turn's recorded reading when it
// was made by their own reader version (RecordReading), so a reader that
// reads some draft differently under the same version would train one
// text for old traces and another for new ones. The records of every
// draft in testdata/ (verb, path, shape, repairs, and the canonical form)
// are digested and pinned beside the version in testdata/reader/version;
// a different digest under the same version fails, and -update writes the
// pin only once the version was raised.
func TestReaderVersionPinsItsReadings(t *testing.T) {
	drafts, err := filepath.Glob(filepath.Join("testdata", "*.draft"))
	if err != nil || len(drafts) == 0 {
		t.Fatalf("no drafts in testdata/ (%v)", err)
	}
	h := sha256.New()
	for _, path := range drafts {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		content := string(b)
		a, err := Parse(content, nil)
		rec, err2 := schemas.EncodeRecord(schemas.Record{Turn: &schemas.Turn{Type: schemas.TypeTurn, Action: Record(a, err, content)}})
		if err2 != nil {
			t.Fatal(err2)
		}
		fmt.Fprintf(h, "%s\n%s", filepath.Base(path), rec)
	}
	got := fmt.Sprintf("%d %x\n", ReaderVersion, h.Sum(nil))
	pin := filepath.Join("testdata", "reader", "version")
	have, err := os.ReadFile(pin)
	if err != nil && !*update {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if string(have) == got {
		return
	}
	version, _, _ := strings.Cut(string(have), " ")
	if version == fmt.Sprint(ReaderVersion) {
		t.Fatalf("the reader reads the drafts of testdata/ differently from what version %d read (%s, pinned %s): raise draft.ReaderVersion, then run go test -update", ReaderVersion, strings.TrimSpace(got), strings.TrimSpace(string(have)))
	}
	if !*update {
		t.Fatalf("ReaderVersion is %d, the pin in %s is for version %s: run go test -update", ReaderVersion, pin, version)
	}
	if err := os.WriteFile(pin, []byte(got), 0o644); err != nil {
		t.Fatal(err)
	}
}
