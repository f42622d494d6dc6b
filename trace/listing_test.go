package trace

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The compact listing lists and sorts exactly as ListFiles does, and keeps
// the last attempt of each run.
func TestListingMatchesListFiles(t *testing.T) {
	dir := t.TempDir()
	runs := filepath.Join(dir, RunsDir)
	if err := os.MkdirAll(filepath.Join(runs, "sub.jsonl"), 0o755); err != nil { // a folder is no trace
		t.Fatal(err)
	}
	for _, name := range []string{
		"b-run.jsonl", "a-run.attempt-3.jsonl", "a-run.jsonl", "a-run.attempt-2.jsonl", "a-run.attempt-10.jsonl",
		"c.jsonl", "notes.txt", ".jsonl", "b-run.attempt-1.jsonl", "é-run.jsonl",
	} {
		if err := os.WriteFile(filepath.Join(runs, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	l, err := List(dir)
	if err != nil {
		t.Fatal(err)
	}
	files, err := ListFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	wantNames := []string{"a-run.jsonl", "a-run.attempt-2.jsonl", "a-run.attempt-3.jsonl", "a-run.attempt-10.jsonl",
		"b-run.jsonl", "b-run.attempt-1.jsonl", "c.jsonl", "é-run.jsonl"} // attempt-1 is no attempt: a run id of its own
	var got []string
	for i := range l.Len() {
		got = append(got, l.Name(i))
		if l.File(i) != files[i] {
			t.Errorf("file %d: %+v, ListFiles %+v", i, l.File(i), files[i])
		}
	}
	if !slices.Equal(got, wantNames) {
		t.Fatalf("listed %q, want %q", got, wantNames)
	}
	latest, aside := l.Latest()
	var gotLatest []string
	for i := range latest.Len() {
		gotLatest = append(gotLatest, latest.Name(i))
	}
	wantLatest := []string{"a-run.attempt-10.jsonl", "b-run.jsonl", "b-run.attempt-1.jsonl", "c.jsonl", "é-run.jsonl"}
	if !slices.Equal(gotLatest, wantLatest) || aside != 3 {
		t.Fatalf("latest %q (%d set aside), want %q (3)", gotLatest, aside, wantLatest)
	}
}
