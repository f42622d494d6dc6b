package derivedcache

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pyharness/pyharness/internal/wholefile"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

// writeTrace writes a one-record trace of a run of case caseID and
// returns its file and bytes.
func writeTrace(t *testing.T, dir, caseID string) (trace.File, []byte) {
	t.Helper()
	line, err := schemas.EncodeRecord(schemas.Record{RunStart: &schemas.RunStart{
		Schema: schemas.Schema, SchemaMinor: schemas.SchemaMinor, RunID: "run-1", Source: schemas.SourceBench, CaseID: caseID,
	}})
	if err != nil {
		t.Fatal(err)
	}
	f := trace.File{RunID: "run-1", Attempt: 1, Path: filepath.Join(dir, "run-1.jsonl")}
	if err := os.WriteFile(f.Path, line, 0o644); err != nil {
		t.Fatal(err)
	}
	return f, line
}

// classified stores the entry "entry of CASE" of f's run, read as data
// with stamp, as classify does, and opens the store.
func classified(t *testing.T, f trace.File, data []byte, stamp wholefile.Stamp) (*Store, Deriver) {
	t.Helper()
	d := Deriver{Name: "test", Version: "v1", Derive: func(r *Run) []byte { return []byte("entry of " + r.Start.CaseID) }}
	dataset := t.TempDir()
	w, err := Create(dataset, 1, []Deriver{d})
	if err != nil {
		t.Fatal(err)
	}
	run, err := trace.ReadRunBytes(f, data)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Add(f, Derive([]Deriver{d}, trace.Rebuild(run), data, stamp)); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	s, err := Open(dataset, d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, d
}

func takeAll([]byte) bool { return true }

// TestLoadFindsByStampThenBytesThenDecodes: a trace unchanged since it was
// read is served by its stamp, unread; one whose stamp changed but not
// its bytes by its bytes; one whose bytes changed is decoded; and an
// entry accept refuses is as good as none.
func TestLoadFindsByStampThenBytesThenDecodes(t *testing.T) {
	dir := t.TempDir()
	f, data := writeTrace(t, dir, "case-a")
	stamp, err := wholefile.StatStamp(f.Path)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := classified(t, f, data, stamp)
	l := Lookup{store: s}

	got, err := l.Load(f, takeAll)
	if err != nil || string(got.Entry) != "entry of case-a" || !got.Unread {
		t.Fatalf("unchanged: %q unread %v (%v), want the entry by stamp", got.Entry, got.Unread, err)
	}
	// The same bytes written again: another change time.
	time.Sleep(10 * time.Millisecond)
	if err := os.WriteFile(f.Path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err = l.Load(f, takeAll)
	if err != nil || string(got.Entry) != "entry of case-a" || got.Unread {
		t.Fatalf("rewritten alike: %q unread %v (%v), want the entry by its bytes", got.Entry, got.Unread, err)
	}
	got, err = l.Load(f, func([]byte) bool { return false })
	if err != nil || got.Entry != nil || got.Run == nil || got.Run.Start.CaseID != "case-a" {
		t.Fatalf("entry refused: %q (%v), want the run decoded", got.Entry, err)
	}
	writeTrace(t, dir, "case-b")
	got, err = l.Load(f, takeAll)
	if err != nil || got.Entry != nil || got.Run == nil || got.Run.Start.CaseID != "case-b" {
		t.Fatalf("changed: %q (%v), want the run decoded as it is now", got.Entry, err)
	}
	got, err = Lookup{}.Load(f, takeAll)
	if err != nil || got.Entry != nil || got.Run == nil || got.Run.Start.CaseID != "case-b" {
		t.Fatalf("no store: %q (%v), want the run decoded", got.Entry, err)
	}
}

// TestRegroupPassesAgainWhenAGroupWentStale: a pass ordered by the groups
// the store holds is told when a decoded run's group is no longer the
// stored one, and Regroup runs it again with the groups read from the
// traces; while the stored groups hold there is one pass.
func TestRegroupPassesAgainWhenAGroupWentStale(t *testing.T) {
	dir := t.TempDir()
	f, data := writeTrace(t, dir, "case-a")
	s, _ := classified(t, f, data, wholefile.Stamp{})
	passes := func(l Lookup) ([]string, error) {
		if l.Groups() == nil {
			return []string{"(from the trace)"}, nil
		}
		g, _ := l.Groups()(f)
		_, err := l.Load(f, func([]byte) bool { return false })
		return []string{g}, err
	}
	got, regrouped, err := Regroup(s, passes)
	if err != nil || regrouped || len(got) != 1 || got[0] != "case-a" {
		t.Fatalf("groups unchanged: %v regrouped %v (%v), want one pass by the stored group case-a", got, regrouped, err)
	}
	writeTrace(t, dir, "case-b")
	got, regrouped, err = Regroup(s, passes)
	if err != nil || !regrouped || len(got) != 1 || got[0] != "(from the trace)" {
		t.Fatalf("group changed: %v regrouped %v (%v), want a second pass with groups from the traces", got, regrouped, err)
	}
	if _, err := (Lookup{store: s, byGroup: true}).Load(f, takeAll); !errors.Is(err, ErrRegroup) {
		t.Fatalf("a run ordered by a stale group: %v, want ErrRegroup", err)
	}
	if _, regrouped, err := Regroup(nil, passes); err != nil || regrouped {
		t.Fatalf("no store: regrouped %v (%v), want one pass", regrouped, err)
	}
}

// TestSharedIsMadeOnceAndReleasedOnce: what two derivers share of a run
// is made for the first that asks, and released once both are done.
func TestSharedIsMadeOnceAndReleasedOnce(t *testing.T) {
	made, released := 0, 0
	type key struct{}
	shared := func(r *Run) []byte {
		return Shared(r, key{}, func() ([]byte, func()) {
			made++
			return []byte("shared"), func() { released++ }
		})
	}
	derivers := []Deriver{
		{Name: "a", Version: "1", Derive: shared},
		{Name: "b", Version: "1", Derive: func(r *Run) []byte { return append(shared(r), '!') }},
	}
	run := &trace.RebuiltRun{Run: &trace.Run{Start: &schemas.RunStart{Source: schemas.SourceBench, CaseID: "case-a"}}}
	m := Derive(derivers, run, []byte("{}\n"), wholefile.Stamp{})
	if made != 1 || released != 1 {
		t.Fatalf("made %d times, released %d times; want once each", made, released)
	}
	if string(m.entries[0]) != "shared" || string(m.entries[1]) != "shared!" || m.group != "case-a" {
		t.Fatalf("entries %q, group %q", m.entries, m.group)
	}
}
