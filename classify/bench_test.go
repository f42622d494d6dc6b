package classify_test

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/pyharness/pyharness/classify"
	"github.com/pyharness/pyharness/collect/synthetic"
	"github.com/pyharness/pyharness/dedupe"
	"github.com/pyharness/pyharness/export"
)

// BenchmarkClassify labels a generated corpus into a fresh dataset:
// turns/s and MB/s of traces read.
func BenchmarkClassify(b *testing.B) {
	o := synthetic.DefaultOptions()
	o.Turns = 5000
	in := b.TempDir()
	p, err := synthetic.Generate(context.Background(), in, o)
	if err != nil {
		b.Fatal(err)
	}
	out := b.TempDir()
	b.SetBytes(p.DiskBytes)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		n++
		res, err := classify.Update(context.Background(), in, filepath.Join(out, strconv.Itoa(n)), dedupe.Deriver(), export.Deriver())
		if err != nil {
			b.Fatal(err)
		}
		if res.Turns != o.Turns {
			b.Fatalf("%d turns classified, want %d", res.Turns, o.Turns)
		}
	}
	b.ReportMetric(float64(n*o.Turns)/b.Elapsed().Seconds(), "turns/s")
}
