package synthetic_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pyharness/pyharness/classify"
	"github.com/pyharness/pyharness/collect/synthetic"
	"github.com/pyharness/pyharness/dedupe"
	"github.com/pyharness/pyharness/export"
	"github.com/pyharness/pyharness/internal/wholefile"
)

// TestUnchangedTracesAreNotRead: traces that had settled before classify
// read them (wholefile.SettleTime) are taken from its stores by their stamps
// alone, by dedupe and by export's first pass, none of them read; a trace
// edited to the same size with its modification time set back is read
// again, and the report and the files are those made from the traces
// alone.
func TestUnchangedTracesAreNotRead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	work := t.TempDir()
	in := filepath.Join(work, "corpus")
	o := synthetic.DefaultOptions()
	o.Turns = 300
	if _, err := synthetic.Generate(ctx, in, o); err != nil {
		t.Fatal(err)
	}
	time.Sleep(wholefile.SettleTime + 100*time.Millisecond)
	dataset := filepath.Join(work, "dataset")
	if _, err := classify.Update(ctx, in, dataset, dedupe.Deriver(), export.Deriver()); err != nil {
		t.Fatal(err)
	}

	// check runs dedupe and export with the stores and without, wants
	// the same report and files, and returns how many runs each took
	// from the stores unread.
	check := func(what string) (dedupeUnread, exportUnread, runs int) {
		t.Helper()
		got, err := dedupe.Run(ctx, in, dedupe.Options{Dataset: dataset, JSON: true}, io.Discard)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		want, err := dedupe.Run(ctx, in, dedupe.Options{JSON: true}, io.Discard)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if g, w := jsonOf(t, got), jsonOf(t, want); g != w {
			t.Errorf("%s: the dedupe report on the stores differs from the one on the traces:\n%s\n--\n%s", what, g, w)
		}
		opts := export.DefaultOptions()
		opts.In, opts.Out = in, filepath.Join(work, "export", "traces", what)
		if _, err := export.Run(ctx, opts, io.Discard); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		opts.Out, opts.Dataset = filepath.Join(work, "export", "store", what), dataset
		sum, err := export.Run(ctx, opts, io.Discard)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		sameFiles(t, what, filepath.Join(work, "export", "traces", what), opts.Out)
		return got.Unread, sum.Unread, got.Runs
	}

	d, e, n := check("as classified")
	if n == 0 || d != n || e != n {
		t.Fatalf("as classified: dedupe took %d and export %d of %d runs unread, want all", d, e, n)
	}

	// One letter of the first draft of a trace, its modification time
	// set back: only its change time tells.
	edited, _ := filepath.Glob(filepath.Join(in, "runs", "gen-000002-p1-*.jsonl"))
	if len(edited) != 1 {
		t.Fatalf("want one first pass of case gen-000002, got %v", edited)
	}
	info, err := os.Stat(edited[0])
	if err != nil {
		t.Fatal(err)
	}
	editFirstDraft(t, edited[0])
	if err := os.Chtimes(edited[0], info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
	if d, e, _ := check("a trace edited to the same size, its time set back"); d != n-1 || e != n-1 {
		t.Errorf("after a same-size edit: dedupe took %d and export %d of %d runs unread, want all but the edited one", d, e, n)
	}
}
