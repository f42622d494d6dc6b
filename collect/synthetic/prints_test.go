package synthetic_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/pyharness/pyharness/classify"
	"github.com/pyharness/pyharness/collect/synthetic"
	"github.com/pyharness/pyharness/dedupe"
	"github.com/pyharness/pyharness/export"
)

// TestDedupeFingerprintsNeverChangeTheReport checks that classify's
// stored fingerprints spare dedupe the decoding of the runs classify read,
// and only those: a run added, a trace edited (even to the same size) and
// a damaged store all give the report of a dedupe on the traces alone.
func TestDedupeFingerprintsNeverChangeTheReport(t *testing.T) {
	ctx := context.Background()
	work := t.TempDir()
	in := filepath.Join(work, "corpus")
	o := synthetic.DefaultOptions()
	o.Turns = 400
	if _, err := synthetic.Generate(ctx, in, o); err != nil {
		t.Fatal(err)
	}
	dataset := filepath.Join(work, "dataset")
	if _, err := classify.Update(ctx, in, dataset, dedupe.Deriver(), export.Deriver()); err != nil {
		t.Fatal(err)
	}

	// check runs dedupe with the store and without, and wants the same
	// report, with fromStore runs taken from the store.
	check := func(what string, fromStore int) *dedupe.Report {
		t.Helper()
		got, err := dedupe.Run(ctx, in, dedupe.Options{Dataset: dataset, JSON: true}, io.Discard)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		want, err := dedupe.Run(ctx, in, dedupe.Options{JSON: true}, io.Discard)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if want.FromStore != 0 {
			t.Errorf("%s: dedupe without a dataset took %d runs from a store", what, want.FromStore)
		}
		if fromStore >= 0 && got.FromStore != fromStore {
			t.Errorf("%s: %d runs from the store, want %d (of %d)", what, got.FromStore, fromStore, got.Runs)
		}
		if g, w := jsonOf(t, got), jsonOf(t, want); g != w {
			t.Errorf("%s: the report on classify's fingerprints differs from the report on the traces:\n%s\n--\n%s", what, g, w)
		}
		return got
	}
	first := check("as classified", -1)
	n := first.Runs
	if first.FromStore != n || n == 0 {
		t.Fatalf("as classified: %d of %d runs from the store, want all", first.FromStore, n)
	}
	// The runs are ordered by the groups the store holds, no run_start
	// read for it, and those hold.
	if first.GroupsFromStore != n || first.Regrouped {
		t.Errorf("as classified: %d of %d runs ordered by the store's groups, regrouped %v; want all, and not regrouped", first.GroupsFromStore, n, first.Regrouped)
	}

	classified, _ := filepath.Glob(filepath.Join(in, "runs", "gen-000001-p1-*.jsonl"))
	moved, _ := filepath.Glob(filepath.Join(in, "runs", "gen-000002-p1-*.jsonl"))

	// Runs added after the classify: the same cases, other run ids.
	added := addRuns(t, ctx, work, in, o)
	grown := check("runs added", n)
	if grown.GroupsFromStore != n || grown.Regrouped {
		t.Errorf("runs added: %d runs ordered by the store's groups, regrouped %v; want the %d classified, and not regrouped", grown.GroupsFromStore, grown.Regrouped, n)
	}
	if grown.Runs != n+added || grown.RawTurns == first.RawTurns {
		t.Fatalf("after adding %d runs: %d runs, %d turns (before: %d, %d)", added, grown.Runs, grown.RawTurns, first.Runs, first.RawTurns)
	}
	// A second classify adds the new runs' fingerprints in a pack of its
	// own.
	if _, err := classify.Update(ctx, in, dataset, dedupe.Deriver(), export.Deriver()); err != nil {
		t.Fatal(err)
	}
	n += added
	check("runs added and classified", n)

	// A trace edited to the same size: its first draft has one letter
	// changed, so the key of that turn and the prompts after it change.
	runs := classified
	if len(runs) != 1 {
		t.Fatalf("want one first pass of case gen-000001, got %v", runs)
	}
	editFirstDraft(t, runs[0])
	edited := check("a trace edited to the same size", n-1)
	if jsonOf(t, edited) == jsonOf(t, grown) {
		t.Fatal("the edit changed nothing dedupe reports: the test does not test the store")
	}
	if edited.Regrouped {
		t.Error("a trace edited in a draft: the runs were ordered again, though no group changed")
	}

	// A trace edited to the same size that moves the run to another case:
	// the group the store holds for it no longer holds, and the runs are
	// ordered by their run_starts and read again.
	if len(moved) != 1 {
		t.Fatalf("want one first pass of case gen-000002, got %v", moved)
	}
	b, err := os.ReadFile(moved[0])
	if err != nil {
		t.Fatal(err)
	}
	from, to := []byte(`"case_id":"gen-000002"`), []byte(`"case_id":"gen-000003"`)
	if !bytes.Contains(b, from) {
		t.Fatalf("no %s in %s", from, moved[0])
	}
	if err := os.WriteFile(moved[0], bytes.Replace(b, from, to, 1), 0o644); err != nil {
		t.Fatal(err)
	}
	regrouped := check("a trace moved to another case, the same size", n-2)
	if !regrouped.Regrouped {
		t.Error("a trace moved to another case: the runs were not ordered again")
	}
	if jsonOf(t, regrouped) == jsonOf(t, edited) {
		t.Fatal("moving a run to another case changed nothing dedupe reports: the test does not test the order")
	}

	// A damaged store: every pack file with bytes flipped in its middle,
	// and cut short.
	packs, _ := filepath.Glob(filepath.Join(dataset, "derived", "prints-*.bin"))
	if len(packs) != 2 {
		t.Fatalf("want two pack files, one per classify, got %v", packs)
	}
	whole := make([][]byte, len(packs))
	for k, pack := range packs {
		p, err := os.ReadFile(pack)
		if err != nil {
			t.Fatal(err)
		}
		whole[k] = p
		flipped := bytes.Clone(p)
		for i := len(p) / 2; i < len(p)/2+64; i++ {
			flipped[i] ^= 0x5a
		}
		if err := os.WriteFile(pack, flipped, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if rep := check("packs with flipped bytes", -1); rep.FromStore >= n-1 {
		t.Errorf("a damaged entry was taken: %d runs from the store", rep.FromStore)
	}
	for k, pack := range packs {
		if err := os.WriteFile(pack, whole[k][:len(whole[k])-10], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	check("packs cut short", 0)
}

// editFirstDraft edits the trace at path to the same size: the first
// letter of its first draft that has a next one becomes that.
func editFirstDraft(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(b, []byte(`"reply":{"content":"`))
	if at < 0 {
		t.Fatal("no reply in " + path)
	}
	at += len(`"reply":{"content":"`)
	for b[at] < 'a' || b[at] > 'y' {
		at++
	}
	b[at]++
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func jsonOf(t *testing.T, rep *dedupe.Report) string {
	t.Helper()
	r := *rep
	r.In = ""
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// addRuns generates runs of the same cases as o did, with other run ids
// (another seed, fewer turns), into the traces of in, as runs recorded
// after a classify, and returns how many.
func addRuns(t *testing.T, ctx context.Context, work, in string, o synthetic.Options) int {
	t.Helper()
	more := filepath.Join(work, "more")
	o.Seed, o.Turns = 2, 60
	if _, err := synthetic.Generate(ctx, more, o); err != nil {
		t.Fatal(err)
	}
	added, _ := filepath.Glob(filepath.Join(more, "runs", "*.jsonl"))
	for _, f := range added {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(in, "runs", filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return len(added)
}
