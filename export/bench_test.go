package export_test

import (
	"context"
	"io"
	"io/fs"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/pyharness/pyharness/collect/synthetic"
	"github.com/pyharness/pyharness/export"
)

// benchmarkExport exports a generated corpus: rows/s written and MB/s of
// data files.
func benchmarkExport(b *testing.B, format string) {
	o := synthetic.DefaultOptions()
	o.Turns = 5000
	in := b.TempDir()
	if _, err := synthetic.Generate(context.Background(), in, o); err != nil {
		b.Fatal(err)
	}
	out := b.TempDir()
	b.ReportAllocs()
	rows, bytes, n := 0, int64(0), 0
	for b.Loop() {
		n++
		opts := export.DefaultOptions()
		opts.In, opts.Out, opts.Format = in, filepath.Join(out, strconv.Itoa(n)), format
		sum, err := export.Run(context.Background(), opts, io.Discard)
		if err != nil {
			b.Fatal(err)
		}
		for _, sc := range sum.Splits {
			rows += sc.Rows
		}
		bytes += dirSize(b, opts.Out)
	}
	secs := b.Elapsed().Seconds()
	b.ReportMetric(float64(rows)/secs, "rows/s")
	b.ReportMetric(float64(bytes)/1e6/secs, "MB/s")
}

func dirSize(b *testing.B, dir string) int64 {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err == nil {
			n += info.Size()
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return n
}

func BenchmarkExportJSONL(b *testing.B)   { benchmarkExport(b, export.FormatJSONL) }
func BenchmarkExportParquet(b *testing.B) { benchmarkExport(b, export.FormatParquet) }
