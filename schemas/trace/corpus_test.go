package trace_test

import (
	"context"
	"sync"
	"testing"

	"github.com/pyharness/pyharness/collect/synthetic"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

func openGenerated(t *testing.T) *trace.Corpus {
	t.Helper()
	dir := t.TempDir()
	o := synthetic.DefaultOptions()
	o.Turns = 400
	if _, err := synthetic.Generate(context.Background(), dir, o); err != nil {
		t.Fatal(err)
	}
	c, err := trace.OpenCorpus(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestMapRunsGivesEachRunItsValue checks that MapRuns streams every run
// in the corpus's order, each with the value its function made of that run
// (on whichever worker read it).
func TestMapRunsGivesEachRunItsValue(t *testing.T) {
	ctx := context.Background()
	c := openGenerated(t)
	n := 0
	problem := func(err error) { t.Errorf("a generated trace has a problem: %v", err) }
	for m, err := range trace.MapRuns(ctx, c, nil, func(r *trace.RebuiltRun) string { return r.Start.RunID }, problem) {
		if err != nil {
			t.Fatal(err)
		}
		if m.Index != int32(n) {
			t.Fatalf("run %d is run %d of the corpus", n, m.Index)
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

// TestMapRunsRebuildsWhatItIsAskedTo checks that MapRuns rebuilds the
// prompts of the runs its rebuild function wants, and only those, and that
// a run it left unrebuilt is read whole again by ReadCached, not served
// from the cache without its prompts.
func TestMapRunsRebuildsWhatItIsAskedTo(t *testing.T) {
	ctx := context.Background()
	c := openGenerated(t)
	worked := func(r *trace.Run) bool { return r.End != nil && r.End.Verdict == schemas.VerdictWorked }
	var rebuilt, left int
	for m, err := range trace.MapRuns(ctx, c, worked, func(*trace.RebuiltRun) struct{} { return struct{}{} }, func(error) {}) {
		if err != nil {
			t.Fatal(err)
		}
		if worked(m.Run) {
			rebuilt++
			if len(m.Prompts) != len(m.Turns) || (len(m.Turns) > 0 && m.Prompts[0] == nil) {
				t.Fatalf("run %d worked and was not rebuilt", m.Index)
			}
			continue
		}
		left++
		if m.Prompts != nil {
			t.Fatalf("run %d did not work and was rebuilt", m.Index)
		}
		again, err := c.ReadCached(int(m.Index))
		if err != nil {
			t.Fatal(err)
		}
		if len(again.Turns) > 0 && (len(again.Prompts) != len(again.Turns) || again.Prompts[0] == nil) {
			t.Fatalf("run %d came back from ReadCached without its prompts", m.Index)
		}
	}
	if rebuilt == 0 || left == 0 {
		t.Fatalf("%d runs rebuilt, %d left: the generated corpus does not exercise both", rebuilt, left)
	}
}

// TestReadOnSeveralGoroutines reads every run on four goroutines at once
// (as export's renderers do) and checks each against ReadCached.
func TestReadOnSeveralGoroutines(t *testing.T) {
	c, plain := openGenerated(t), openGenerated(t)
	got := make([]*trace.RebuiltRun, c.Len())
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := g; i < c.Len(); i += 4 {
				r, err := c.Read(i)
				if err != nil {
					t.Error(err)
					return
				}
				got[i] = r
			}
		})
	}
	wg.Wait()
	for i, r := range got {
		want, err := plain.ReadCached(i)
		if err != nil {
			t.Fatal(err)
		}
		if r == nil || r.Index != int32(i) || r.Start.RunID != want.Start.RunID || len(r.Turns) != len(want.Turns) {
			t.Fatalf("run %d: read another run than ReadCached", i)
		}
		for k := range r.Turns {
			if schemas.PromptHash(r.Prompts[k]) != schemas.PromptHash(want.Prompts[k]) {
				t.Fatalf("run %d turn %d: another prompt", i, k)
			}
		}
	}
}
