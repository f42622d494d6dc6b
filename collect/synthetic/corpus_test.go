package synthetic

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/pyharness/pyharness/classify"
	"github.com/pyharness/pyharness/classify/dataset"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

func generate(t testing.TB, opts Options) (string, *Profile) {
	t.Helper()
	dir := t.TempDir()
	p, err := Generate(context.Background(), dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	return dir, p
}

func small() Options {
	o := DefaultOptions()
	o.Turns = 600
	return o
}

func TestGenerateIsDeterministic(t *testing.T) {
	a, pa := generate(t, small())
	o := small()
	o.Jobs = 1
	b, pb := generate(t, o)
	fa, _ := trace.ListFiles(a)
	fb, _ := trace.ListFiles(b)
	if len(fa) != len(fb) || len(fa) == 0 {
		t.Fatalf("%d files and %d files", len(fa), len(fb))
	}
	for i := range fa {
		x, _ := os.ReadFile(fa[i].Path)
		y, _ := os.ReadFile(fb[i].Path)
		if filepath.Base(fa[i].Path) != filepath.Base(fb[i].Path) || !bytes.Equal(x, y) {
			t.Fatalf("%s and %s differ", fa[i].Path, fb[i].Path)
		}
	}
	if pa.Turns != 600 || pb.Turns != 600 || pa.DiskBytes != pb.DiskBytes {
		t.Errorf("profiles: %d turns %d bytes, %d turns %d bytes", pa.Turns, pa.DiskBytes, pb.Turns, pb.DiskBytes)
	}
	o.Seed = 2
	c, _ := generate(t, o)
	fc, _ := trace.ListFiles(c)
	if len(fc) > 0 && len(fa) > 0 && filepath.Base(fc[0].Path) == filepath.Base(fa[0].Path) {
		t.Errorf("seed 2 made the same first run as seed 1: %s", filepath.Base(fa[0].Path))
	}
}

// TestGeneratedTracesReadAsRecorded checks that every record reads back,
// every prompt rebuilds to its hash, and the files hold exactly what
// trace.Writer would have written.
func TestGeneratedTracesReadAsRecorded(t *testing.T) {
	dir, p := generate(t, small())
	files, err := trace.ListFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	turns := 0
	for i, f := range files {
		run, err := trace.ReadRun(f)
		if err != nil || !run.Complete() || len(run.Warnings) > 0 {
			t.Fatalf("%s: err %v complete %v warnings %v", f.Path, err, run.Complete(), run.Warnings)
		}
		if run.Start.Schema != schemas.Schema || run.Start.Model.Backend != "ollama" {
			t.Fatalf("%s: schema %q backend %q", f.Path, run.Start.Schema, run.Start.Model.Backend)
		}
		var conv schemas.Conversation
		for _, turn := range run.Turns {
			if _, err := conv.Apply(turn); err != nil {
				t.Fatalf("%s: %v", f.Path, err)
			}
		}
		turns += len(run.Turns)
		if i < 3 { // the writer fsyncs every record: a few files are enough
			w, err := trace.Create(t.TempDir(), run.Start.RunID)
			if err != nil {
				t.Fatal(err)
			}
			w.Write(schemas.Record{RunStart: run.Start})
			for _, turn := range run.Turns {
				w.Write(schemas.Record{Turn: turn})
			}
			w.Write(schemas.Record{RunEnd: run.End})
			w.Close()
			want, _ := os.ReadFile(w.Path())
			got, _ := os.ReadFile(f.Path)
			if !bytes.Equal(got, want) {
				t.Fatalf("%s differs from what trace.Writer writes", f.Path)
			}
		}
	}
	if turns != 600 || p.Turns != 600 || p.Runs != len(files) {
		t.Errorf("read %d turns in %d files; profile says %d turns in %d runs", turns, len(files), p.Turns, p.Runs)
	}
	if p.Kinds[string(schemas.KindOpening)] != p.Runs || p.Kinds[string(schemas.KindToolResult)] == 0 || p.Kinds[string(schemas.KindRefusalOrNudge)] == 0 {
		t.Errorf("kinds %v", p.Kinds)
	}
}

func TestCopiesRepeatTheFirstRun(t *testing.T) {
	o := small()
	o.ExactShare, o.NearShare = 1, 0
	dir, _ := generate(t, o)
	files, _ := trace.ListFiles(dir)
	first, _ := trace.ReadRun(files[0])
	second, _ := trace.ReadRun(files[1])
	if first.Start.CaseID != second.Start.CaseID || len(first.Turns) != len(second.Turns) {
		t.Fatalf("runs %s and %s: want two passes of one case", first.Start.RunID, second.Start.RunID)
	}
	for i := range first.Turns {
		if first.Turns[i].Reply.Content != second.Turns[i].Reply.Content || first.Turns[i].Sent.PromptHash != second.Turns[i].Sent.PromptHash {
			t.Fatalf("step %d differs in an exact copy", i+1)
		}
	}
	o.ExactShare, o.NearShare = 0, 1
	dir, _ = generate(t, o)
	files, _ = trace.ListFiles(dir)
	first, _ = trace.ReadRun(files[0])
	second, _ = trace.ReadRun(files[1])
	same := 0
	for i := range first.Turns {
		if first.Turns[i].Reply.Content == second.Turns[i].Reply.Content {
			same++
		}
	}
	if len(first.Turns) != len(second.Turns) || first.Turns[0].Sent.PromptHash != second.Turns[0].Sent.PromptHash || same == len(first.Turns) {
		t.Errorf("near copy: %d of %d drafts the same, want the opening the same and some drafts changed", same, len(first.Turns))
	}
}

func TestOptionsValidate(t *testing.T) {
	for name, o := range map[string]func(*Options){
		"no turns":      func(o *Options) { o.Turns = 0 },
		"no passes":     func(o *Options) { o.Passes = 0 },
		"shares over 1": func(o *Options) { o.ExactShare, o.NearShare = 0.6, 0.5 },
		"no backend":    func(o *Options) { o.Backend = "" },
	} {
		opts := DefaultOptions()
		o(&opts)
		if opts.Validate() == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if err := DefaultOptions().Validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}
}

// BenchmarkTraceRead is the trace reader over generated traces beside a
// raw read of the same files (open, read whole, count the lines): MB/s of
// JSON Lines, and records/s decoded. scripts/perf.sh prints the ratio.
func BenchmarkTraceRead(b *testing.B) {
	o := DefaultOptions()
	o.Turns = 3000
	dir, p := generate(b, o)
	files, err := trace.ListFiles(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("raw", func(b *testing.B) {
		b.SetBytes(p.DiskBytes)
		b.ReportAllocs()
		lines := 0
		for b.Loop() {
			for _, f := range files {
				data, err := os.ReadFile(f.Path)
				if err != nil {
					b.Fatal(err)
				}
				lines += bytes.Count(data, []byte("\n"))
			}
		}
		b.ReportMetric(float64(lines)/b.Elapsed().Seconds(), "lines/s")
	})
	b.Run("decode", func(b *testing.B) {
		b.SetBytes(p.DiskBytes)
		b.ReportAllocs()
		recs := 0
		for b.Loop() {
			for _, f := range files {
				for _, err := range trace.ReadFile(f.Path) {
					if err != nil {
						b.Fatal(err)
					}
					recs++
				}
			}
		}
		b.ReportMetric(float64(recs)/b.Elapsed().Seconds(), "records/s")
	})
}

// BenchmarkTextSource weighs the two places dedupe and export could read
// the text of every turn from: the traces (read, decoded and every prompt
// rebuilt and checked against its prompt_hash, as trace.Corpus does) and
// classify's turns table (the same messages and drafts, read back from
// Parquet). Both report turns/s and the text bytes seen, which must agree.
func BenchmarkTextSource(b *testing.B) {
	ctx := context.Background()
	o := DefaultOptions()
	o.Turns = 3000
	dir, _ := generate(b, o)
	dsDir := filepath.Join(b.TempDir(), "dataset")
	if _, err := classify.Update(ctx, dir, dsDir); err != nil {
		b.Fatal(err)
	}
	var textBytes [2]int
	b.Run("traces", func(b *testing.B) {
		c, err := trace.OpenCorpus(ctx, dir, nil)
		if err != nil {
			b.Fatal(err)
		}
		turns := 0
		for b.Loop() {
			textBytes[0] = 0
			for i := range c.Len() {
				r, err := c.Read(i)
				if err != nil {
					b.Fatal(err)
				}
				for _, t := range r.Turns {
					turns++
					textBytes[0] += len(t.Reply.Content)
					for _, m := range t.Sent.Messages {
						textBytes[0] += len(m.Content)
					}
				}
			}
		}
		b.ReportMetric(float64(turns)/b.Elapsed().Seconds(), "turns/s")
	})
	b.Run("dataset", func(b *testing.B) {
		turns := 0
		for b.Loop() {
			textBytes[1] = 0
			for row, err := range dataset.Turns(ctx, dsDir) {
				if err != nil {
					b.Fatal(err)
				}
				turns++
				textBytes[1] += len(row.Row.Draft)
				for _, m := range row.Row.Messages {
					textBytes[1] += len(m.Content)
				}
			}
		}
		b.ReportMetric(float64(turns)/b.Elapsed().Seconds(), "turns/s")
	})
	if textBytes[0] != textBytes[1] {
		b.Fatalf("the traces hold %d bytes of text, the turns table %d", textBytes[0], textBytes[1])
	}
}
