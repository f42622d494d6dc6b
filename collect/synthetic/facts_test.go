package synthetic_test

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/pyharness/pyharness/classify"
	"github.com/pyharness/pyharness/collect/synthetic"
	"github.com/pyharness/pyharness/dedupe"
	"github.com/pyharness/pyharness/export"
)

// TestExportFactsNeverChangeTheExport checks that the facts classify
// stores for export spare it the decoding of the runs classify read, and
// only those: a run added, a run grown (its run_end written after the
// classify), a trace edited to the same size, a dataset from a classify
// that stored no facts, and a damaged store all give, byte for byte, the
// files of an export on the traces alone.
func TestExportFactsNeverChangeTheExport(t *testing.T) {
	ctx := context.Background()
	work := t.TempDir()
	in := filepath.Join(work, "corpus")
	o := synthetic.DefaultOptions()
	o.Turns = 400
	if _, err := synthetic.Generate(ctx, in, o); err != nil {
		t.Fatal(err)
	}
	// A worked run still being written when classify reads it: its
	// run_end comes after.
	classified, _ := filepath.Glob(filepath.Join(in, "runs", "gen-000001-p1-*.jsonl"))
	if len(classified) != 1 {
		t.Fatalf("want one first pass of case gen-000001, got %v", classified)
	}
	growing := classified[0]
	whole, err := os.ReadFile(growing)
	if err != nil {
		t.Fatal(err)
	}
	lastLine := bytes.LastIndexByte(whole[:len(whole)-1], '\n') + 1
	if !bytes.Contains(whole[lastLine:], []byte(`"type":"run_end"`)) || !bytes.Contains(whole[lastLine:], []byte(`"verdict":"worked"`)) {
		t.Fatalf("%s does not end with the run_end of a worked run", growing)
	}
	if err := os.WriteFile(growing, whole[:lastLine], 0o644); err != nil {
		t.Fatal(err)
	}
	dataset := filepath.Join(work, "dataset")
	if _, err := classify.Update(ctx, in, dataset, dedupe.Deriver(), export.Deriver()); err != nil {
		t.Fatal(err)
	}

	// check exports with the store and without, and wants the same files,
	// with fromStore runs taken from the store (-1: any number).
	exports := 0
	check := func(what string, fromStore int, change func(*export.Options)) *export.Summary {
		t.Helper()
		exports++
		opts := export.DefaultOptions()
		opts.In = in
		if change != nil {
			change(&opts)
		}
		opts.Out = filepath.Join(work, "export", "traces", what)
		want, err := export.Run(ctx, opts, io.Discard)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		opts.Out, opts.Dataset = filepath.Join(work, "export", "store", what), dataset
		got, err := export.Run(ctx, opts, io.Discard)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if want.FromStore != 0 {
			t.Errorf("%s: export without a dataset took %d runs from a store", what, want.FromStore)
		}
		if fromStore >= 0 && got.FromStore != fromStore {
			t.Errorf("%s: %d runs from the store, want %d (of %d)", what, got.FromStore, fromStore, got.Runs)
		}
		sameFiles(t, what, filepath.Join(work, "export", "traces", what), opts.Out)
		return got
	}
	first := check("as classified", -1, nil)
	n := first.Runs
	if first.FromStore != n || n == 0 {
		t.Fatalf("as classified: %d of %d runs from the store, want all", first.FromStore, n)
	}
	if first.GroupsFromStore != n || first.Regrouped {
		t.Errorf("as classified: %d of %d runs ordered by the store's groups, regrouped %v; want all, and not regrouped", first.GroupsFromStore, n, first.Regrouped)
	}
	if first.RunsLeftOut["incomplete: no run_end record"] != 1 {
		t.Fatalf("as classified: runs left out %v, want the growing run among them", first.RunsLeftOut)
	}
	// The other formats and options: the store serves what it holds, and
	// the runs a format or option needs decoded are decoded.
	// Only the runs the run filters leave out come from the store when
	// the turns are to be decoded (preference pairs, another training
	// text), or when the store holds no turns of a run (a failed one).
	leftOut := first.Runs - first.RunsConsidered
	for _, c := range []struct {
		what      string
		fromStore int
		change    func(*export.Options)
	}{
		{"parquet", n, func(o *export.Options) { o.Format = export.FormatParquet }},
		{"messages layout, kind tool-result", n, func(o *export.Options) {
			o.Layout, o.Kinds = "messages", []string{"tool-result"}
		}},
		{"as written", leftOut, func(o *export.Options) { o.AsWritten = true }},
		{"keep tool calls", leftOut, func(o *export.Options) { o.KeepToolCalls = true }},
		{"dpo", -1, func(o *export.Options) { o.Format = export.FormatDPO }},
		{"include failed runs", -1, func(o *export.Options) { o.IncludeFailedRuns = true }},
	} {
		if rep := check(c.what, c.fromStore, c.change); rep.FromStore == 0 || rep.FromStore == n && c.fromStore < 0 {
			t.Errorf("%s: %d of %d runs from the store", c.what, rep.FromStore, n)
		}
	}

	// The growing run gets its run_end after the classify.
	if err := os.WriteFile(growing, whole, 0o644); err != nil {
		t.Fatal(err)
	}
	grown := check("a run grown", n-1, nil)
	if grown.RunsLeftOut["incomplete: no run_end record"] != 0 || grown.Selected == first.Selected {
		t.Fatalf("the grown run was not taken: runs left out %v, %d turns selected (before %d)", grown.RunsLeftOut, grown.Selected, first.Selected)
	}

	// Runs added after the classify: the same cases, other run ids.
	added := addRuns(t, ctx, work, in, o)
	if rep := check("runs added", n-1, nil); rep.Runs != n+added {
		t.Fatalf("after adding %d runs: %d runs (before: %d)", added, rep.Runs, n)
	}
	n += added

	// A second classify stores the added and grown runs' facts in a file
	// of its own.
	if _, err := classify.Update(ctx, in, dataset, dedupe.Deriver(), export.Deriver()); err != nil {
		t.Fatal(err)
	}
	check("classified again", n, nil)

	// A trace edited to the same size: one letter of its first draft.
	edited, _ := filepath.Glob(filepath.Join(in, "runs", "gen-000002-p1-*.jsonl"))
	editFirstDraft(t, edited[0])
	check("a trace edited to the same size", n-1, nil)

	// A trace moved to another case by an edit of the same size: ordered
	// by the group classify stored, it is in the wrong one, and the export
	// is made again with every group read from its run_start.
	moved, _ := filepath.Glob(filepath.Join(in, "runs", "gen-000003-p1-*.jsonl"))
	if len(moved) != 1 {
		t.Fatalf("want one first pass of case gen-000003, got %v", moved)
	}
	b, err := os.ReadFile(moved[0])
	if err != nil {
		t.Fatal(err)
	}
	from, to := []byte(`"case_id":"gen-000003"`), []byte(`"case_id":"gen-000004"`)
	if !bytes.Contains(b, from) {
		t.Fatalf("no %s in %s", from, moved[0])
	}
	if err := os.WriteFile(moved[0], bytes.Replace(b, from, to, 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if rep := check("a trace moved to another case, the same size", n-2, nil); !rep.Regrouped || rep.GroupsFromStore != 0 {
		t.Errorf("a trace moved to another case: regrouped %v, %d runs ordered by stored groups; want the runs ordered again from their run_starts", rep.Regrouped, rep.GroupsFromStore)
	}

	// A damaged store: every facts file with bytes flipped in its middle,
	// then cut short, then gone (a dataset of a classify before them).
	stores, _ := filepath.Glob(filepath.Join(dataset, "derived", "facts-*.bin"))
	if len(stores) != 2 {
		t.Fatalf("want two facts files, one per classify, got %v", stores)
	}
	kept := make([][]byte, len(stores))
	for k, s := range stores {
		if kept[k], err = os.ReadFile(s); err != nil {
			t.Fatal(err)
		}
		flipped := bytes.Clone(kept[k])
		for i := len(flipped) / 2; i < len(flipped)/2+64; i++ {
			flipped[i] ^= 0x5a
		}
		if err := os.WriteFile(s, flipped, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if rep := check("facts with flipped bytes", -1, nil); rep.FromStore >= n-1 {
		t.Errorf("a damaged entry was taken: %d runs from the store", rep.FromStore)
	}
	for k, s := range stores {
		if err := os.WriteFile(s, kept[k][:len(kept[k])-10], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	check("facts cut short", 0, nil)
	for _, s := range stores {
		if err := os.Remove(s); err != nil {
			t.Fatal(err)
		}
	}
	check("no facts stored", 0, nil)
}

// sameFiles fails unless directories a and b hold the same files with the
// same bytes.
func sameFiles(t *testing.T, what, a, b string) {
	t.Helper()
	files := func(dir string) map[string][]byte {
		out := map[string][]byte{}
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(dir, path)
			out[rel], err = os.ReadFile(path)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	fa, fb := files(a), files(b)
	if len(fa) == 0 || len(fa) != len(fb) {
		t.Errorf("%s: the export on the store wrote %d files, on the traces %d", what, len(fb), len(fa))
	}
	for name, want := range fa {
		if !bytes.Equal(fb[name], want) {
			t.Errorf("%s: %s differs between the export on the store and the export on the traces", what, name)
		}
	}
}
