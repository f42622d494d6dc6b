package dedupe_test

import (
	"context"
	"testing"

	"github.com/pyharness/pyharness/classify/derivedcache"
	"github.com/pyharness/pyharness/collect/synthetic"
	"github.com/pyharness/pyharness/dedupe"
	"github.com/pyharness/pyharness/schemas/trace"
)

// BenchmarkEncodeRunPrints is what classify spends on dedupe's
// fingerprints, run by run, over a generated corpus read and rebuilt
// beforehand: turns/s and bytes of entries made.
func BenchmarkEncodeRunPrints(b *testing.B) {
	dir := b.TempDir()
	o := synthetic.DefaultOptions()
	o.Turns = 3000
	if _, err := synthetic.Generate(context.Background(), dir, o); err != nil {
		b.Fatal(err)
	}
	files, err := trace.ListFiles(dir)
	if err != nil {
		b.Fatal(err)
	}
	var runs []*trace.RebuiltRun
	turns := 0
	for _, f := range files {
		run, err := trace.ReadRun(f)
		if err != nil {
			b.Fatal(err)
		}
		runs = append(runs, trace.Rebuild(run))
		turns += len(run.Turns)
	}
	b.ReportAllocs()
	size := 0
	for b.Loop() {
		for _, r := range runs {
			d := derivedcache.NewRun(r)
			entry, _ := dedupe.PrintsOf(d)
			size += len(entry)
			d.Release()
		}
	}
	b.ReportMetric(float64(b.N*turns)/b.Elapsed().Seconds(), "turns/s")
	b.ReportMetric(float64(size)/float64(b.N*turns), "entry-bytes/turn")
}
