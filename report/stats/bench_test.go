package stats_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/pyharness/pyharness/classify"
	"github.com/pyharness/pyharness/collect/synthetic"
	"github.com/pyharness/pyharness/report/stats"
)

// BenchmarkLoadDataset summarises a classified generated corpus of 50,000
// turns (several row groups): turns/s.
func BenchmarkLoadDataset(b *testing.B) {
	ctx := context.Background()
	o := synthetic.DefaultOptions()
	o.Turns = 50_000
	traces := filepath.Join(b.TempDir(), "traces")
	if _, err := synthetic.Generate(ctx, traces, o); err != nil {
		b.Fatal(err)
	}
	dir := filepath.Join(b.TempDir(), "dataset")
	if _, err := classify.Update(ctx, traces, dir); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		s, err := stats.Load(ctx, dir, stats.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if s.Turns.Total != o.Turns {
			b.Fatalf("%d turns counted, want %d", s.Turns.Total, o.Turns)
		}
		n++
	}
	b.ReportMetric(float64(n*o.Turns)/b.Elapsed().Seconds(), "turns/s")
}
