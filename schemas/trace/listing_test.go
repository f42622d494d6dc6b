package trace

import (
	"context"
	"errors"
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
	l, err := list(dir)
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

	// LastAttempts yields the same files, each with its own run's count.
	var streamed []string
	var perRun []int
	for la, err := range LastAttempts(context.Background(), dir) {
		if err != nil {
			t.Fatal(err)
		}
		streamed = append(streamed, filepath.Base(la.Path))
		perRun = append(perRun, la.SetAside)
	}
	if !slices.Equal(streamed, wantLatest) || !slices.Equal(perRun, []int{3, 0, 0, 0, 0}) {
		t.Fatalf("LastAttempts: %q set aside %v, want %q set aside [3 0 0 0 0]", streamed, perRun, wantLatest)
	}
}

// A cancelled context ends the stream with its error; a missing directory
// is one error.
func TestLastAttemptsErrors(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a.jsonl", "b.jsonl"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var yielded int
	var errs []error
	for la, err := range LastAttempts(ctx, dir) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		yielded++
		_ = la
	}
	if yielded != 0 || len(errs) != 1 || !errors.Is(errs[0], context.Canceled) {
		t.Fatalf("cancelled: %d runs, errors %v; want none and context.Canceled", yielded, errs)
	}
	errs = nil
	for _, err := range Runs(context.Background(), filepath.Join(dir, "missing")) {
		errs = append(errs, err)
	}
	if len(errs) != 1 || !errors.Is(errs[0], os.ErrNotExist) {
		t.Fatalf("missing directory: errors %v, want one that is os.ErrNotExist", errs)
	}
}
