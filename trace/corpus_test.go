package trace_test

import (
	"context"
	"testing"

	"github.com/pyharness/pyharness/corpus"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/trace"
)

func openGenerated(t *testing.T) *trace.Corpus {
	t.Helper()
	dir := t.TempDir()
	o := corpus.DefaultOptions()
	o.Turns = 400
	if _, err := corpus.Generate(context.Background(), dir, o); err != nil {
		t.Fatal(err)
	}
	c, err := trace.OpenCorpus(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestMapRunsGivesEachRunItsValue checks that MapRuns streams the runs in
// the corpus's order, as Runs does, each with the value its function made
// of that run (on whichever worker read it).
func TestMapRunsGivesEachRunItsValue(t *testing.T) {
	ctx := context.Background()
	c := openGenerated(t)
	var order []int32
	for r, err := range c.Runs(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		order = append(order, r.Index)
	}
	n := 0
	for m, err := range trace.MapRuns(ctx, c, func(r *trace.RebuiltRun) string { return r.Start.RunID }) {
		if err != nil {
			t.Fatal(err)
		}
		if m.Index != order[n] {
			t.Fatalf("run %d is %d, Runs gave %d", n, m.Index, order[n])
		}
		if m.Value != m.Start.RunID || m.Value != c.File(int(m.Index)).RunID {
			t.Fatalf("run %d (%s) has the value %q", m.Index, m.Start.RunID, m.Value)
		}
		n++
	}
	if n != c.Len() || n < 50 {
		t.Fatalf("%d runs mapped of %d", n, c.Len())
	}
}

// TestReadAheadLoadsTheSameRuns loads runs in a planned order, with a
// run outside the plan among them, and checks every load against a
// corpus that reads each run when asked.
func TestReadAheadLoadsTheSameRuns(t *testing.T) {
	ctx := context.Background()
	c, plain := openGenerated(t), openGenerated(t)
	var plan []int32
	for i := c.Len() - 1; i >= 0; i -= 3 { // backwards, skipping runs
		plan = append(plan, int32(i))
	}
	stop := c.ReadAhead(ctx, plan)
	defer stop()
	check := func(i int) {
		t.Helper()
		got, err := c.Load(i)
		if err != nil {
			t.Fatal(err)
		}
		want, err := plain.Load(i)
		if err != nil {
			t.Fatal(err)
		}
		if got.Index != int32(i) || got.Start.RunID != want.Start.RunID || len(got.Turns) != len(want.Turns) {
			t.Fatalf("run %d: loaded %d (%s), want %s", i, got.Index, got.Start.RunID, want.Start.RunID)
		}
		for k := range got.Turns {
			if schemas.PromptHash(got.Prompts[k]) != schemas.PromptHash(want.Prompts[k]) {
				t.Fatalf("run %d turn %d: another prompt", i, k)
			}
		}
	}
	for k, i := range plan {
		check(int(i))
		if k == 5 {
			check(1) // not planned: read when asked
		}
	}
	stop()
	check(int(plan[0])) // after stop, from the cache or the file
}
