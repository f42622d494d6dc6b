package synthetic_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/classify"
	"github.com/pyharness/pyharness/classify/dataset"
	"github.com/pyharness/pyharness/collect/synthetic"
	"github.com/pyharness/pyharness/dedupe"
	"github.com/pyharness/pyharness/export"
	"github.com/pyharness/pyharness/report/stats"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

var update = flag.Bool("update", false, "rewrite testdata/pipeline.golden from this build's output")

// TestPipelineOutputIsPinned runs every stage over a generated corpus and
// compares what each wrote with testdata/pipeline.golden: the export files
// byte for byte, classify's tables row for row, and the reports of dedupe
// and stats. It is there so that a faster reader or writer cannot change
// an output unnoticed; a change meant to alter an output reruns it with
// -update and says so in its commit.
//
// The stages read, key and render runs on every core and hand them back in
// order, so the output must not depend on how many there are: the pipeline
// runs on one core and on four, and both must match.
func TestPipelineOutputIsPinned(t *testing.T) {
	ctx := context.Background()
	o := synthetic.DefaultOptions()
	o.Turns = 3000
	work := t.TempDir()
	in := filepath.Join(work, "corpus")
	if _, err := synthetic.Generate(ctx, in, o); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, procs := range []int{1, 4} {
		was := runtime.GOMAXPROCS(procs)
		lines := pipelineDigests(t, ctx, in, filepath.Join(work, fmt.Sprint(procs)))
		runtime.GOMAXPROCS(was)
		if got != nil && !slices.Equal(got, lines) {
			t.Fatalf("the output on 4 cores differs from the output on 1:\n%s\n--\n%s", strings.Join(got, "\n"), strings.Join(lines, "\n"))
		}
		got = lines
	}
	checkGolden(t, got)
}

// pipelineDigests runs classify, the three exports, dedupe and stats over
// the corpus in, writing under work, and returns a "name digest" line for
// each output, the golden file's format.
func pipelineDigests(t *testing.T, ctx context.Context, in, work string) []string {
	t.Helper()
	var got []string
	add := func(name string, d digest) { got = append(got, fmt.Sprintf("%s %s", name, d)) }

	dsDir := filepath.Join(work, "dataset")
	if _, err := classify.Update(ctx, in, dsDir, dedupe.Deriver(), export.Deriver()); err != nil {
		t.Fatal(err)
	}
	add("classify/turns", tableDigest(t, dataset.Turns(ctx, dsDir)))
	add("classify/runs", tableDigest(t, dataset.Runs(ctx, dsDir)))

	for _, format := range []string{export.FormatJSONL, export.FormatParquet, export.FormatDPO} {
		opts := export.DefaultOptions()
		opts.In, opts.Out, opts.Format = in, filepath.Join(work, "export-"+format), format
		if _, err := export.Run(ctx, opts, io.Discard); err != nil {
			t.Fatal(err)
		}
		// export as the pipeline runs it, on classify's stored facts: the
		// same files.
		stored := opts
		stored.Out, stored.Dataset = opts.Out+"-stored", dsDir
		sum, err := export.Run(ctx, stored, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if format != export.FormatDPO && sum.FromStore != sum.Runs {
			t.Errorf("export %s took %d of %d runs from classify's facts, want all", format, sum.FromStore, sum.Runs)
		}
		for _, f := range dataFiles(t, opts.Out) {
			d := fileDigest(t, filepath.Join(opts.Out, f))
			if s := fileDigest(t, filepath.Join(stored.Out, f)); s.String() != d.String() {
				t.Errorf("export %s on classify's facts wrote %s as %s, on the traces %s", format, f, s, d)
			}
			add("export-"+format+"/"+f, d)
		}
	}

	// dedupe as the pipeline runs it, on classify's fingerprints, and on
	// the traces alone: the same report.
	rep, err := dedupe.Run(ctx, in, dedupe.Options{Threshold: dedupe.DefaultThreshold, Dataset: dsDir}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if rep.FromStore != rep.Runs {
		t.Errorf("dedupe took %d of %d runs from classify's fingerprints, want all", rep.FromStore, rep.Runs)
	}
	decoded, err := dedupe.Run(ctx, in, dedupe.Options{Threshold: dedupe.DefaultThreshold}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	rep.In, decoded.In = "", ""
	if a, b := jsonDigest(t, rep).String(), jsonDigest(t, decoded).String(); a != b {
		t.Errorf("dedupe on classify's fingerprints reports %s, on the traces %s", a, b)
	}
	add("dedupe/report", jsonDigest(t, rep))

	for _, from := range []string{in, dsDir} {
		sum, err := stats.Load(ctx, from, stats.Options{})
		if err != nil {
			t.Fatal(err)
		}
		sum.Input = ""
		add("stats/"+sum.Kind, jsonDigest(t, sum))
	}
	return got
}

// checkGolden compares the lines with testdata/pipeline.golden, or writes
// it with -update.
func checkGolden(t *testing.T, got []string) {
	t.Helper()
	golden := filepath.Join("testdata", "pipeline.golden")
	text := strings.Join(got, "\n") + "\n"
	if *update {
		if err := os.WriteFile(golden, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./collect/synthetic -run TestPipelineOutputIsPinned -update to write it)", err)
	}
	want := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	for _, line := range got {
		if !slices.Contains(want, line) {
			t.Errorf("output changed: %s\n(golden has %s)", line, goldenLine(want, line))
		}
	}
	for _, line := range want {
		if name, _, _ := strings.Cut(line, " "); goldenLine(got, name+" ") == "nothing" {
			t.Errorf("no longer written: %s", line)
		}
	}
	if t.Failed() {
		t.Log("if the change of output is meant, rerun with -update and say why in the commit")
	}
}

// digest is a SHA-256 of what a stage wrote and how much it was (rows or
// bytes), so that a failure says which output changed and by how much.
type digest struct {
	sum   []byte
	count int
	unit  string
}

func (d digest) String() string { return fmt.Sprintf("%x %d %s", d.sum, d.count, d.unit) }

func goldenLine(lines []string, prefix string) string {
	name, _, _ := strings.Cut(prefix, " ")
	for _, l := range lines {
		if strings.HasPrefix(l, name+" ") {
			return l
		}
	}
	return "nothing"
}

// tableDigest hashes every row of a classify table with its partition, in
// the order the dataset gives them, as JSON: every column, nulls as null.
func tableDigest[T any](t *testing.T, rows func(func(dataset.Partitioned[T], error) bool)) digest {
	t.Helper()
	h := sha256.New()
	n := 0
	for r, err := range rows {
		if err != nil {
			t.Fatal(err)
		}
		writeJSON(t, h, r)
		n++
	}
	return digest{h.Sum(nil), n, "rows"}
}

func writeJSON(t *testing.T, h hash.Hash, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	h.Write(b)
	h.Write([]byte{'\n'})
}

func jsonDigest(t *testing.T, v any) digest {
	t.Helper()
	h := sha256.New()
	writeJSON(t, h, v)
	return digest{h.Sum(nil), 1, "report"}
}

func fileDigest(t *testing.T, path string) digest {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return digest{s[:], len(b), "bytes"}
}

// dataFiles lists an export's data files (not its dataset card, which
// names the directories it was run on), relative to dir, sorted.
func dataFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if ext := filepath.Ext(path); ext == ".jsonl" || ext == ".parquet" {
			rel, _ := filepath.Rel(dir, path)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("%s: no data files", dir)
	}
	slices.Sort(files)
	return files
}

// TestRecordedReadingsNeverChangeTheOutput runs the pipeline over a corpus
// whose turns record the reader's reading of each draft, and over the same
// corpus with those readings taken out, as a trace written by an older
// harness has them: the stages after collect read such drafts again, and
// every output must come out the same.
func TestRecordedReadingsNeverChangeTheOutput(t *testing.T) {
	ctx := context.Background()
	o := synthetic.DefaultOptions()
	o.Turns = 1500
	work := t.TempDir()
	recorded := filepath.Join(work, "recorded")
	if _, err := synthetic.Generate(ctx, recorded, o); err != nil {
		t.Fatal(err)
	}
	unread := filepath.Join(work, "unread")
	files, err := trace.ListFiles(recorded)
	if err != nil {
		t.Fatal(err)
	}
	read, rewritten := 0, 0
	for _, f := range files {
		var out []byte
		for rec, err := range trace.ReadFile(f.Path) {
			if err != nil {
				t.Fatal(err)
			}
			if rec.Turn != nil && rec.Turn.Action.Reader != 0 {
				read++
				if rec.Turn.Action.Canonical != "" {
					rewritten++
				}
				rec.Turn.Action.Reader, rec.Turn.Action.Stated, rec.Turn.Action.Canonical = 0, false, ""
			}
			line, err := schemas.EncodeRecord(rec)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, line...)
		}
		rel, err := filepath.Rel(recorded, f.Path)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(unread, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if read == 0 || rewritten == 0 {
		t.Fatalf("the corpus records %d readings, %d of them in another form than the reply: nothing to compare", read, rewritten)
	}
	with := pipelineDigests(t, ctx, recorded, filepath.Join(work, "out-recorded"))
	without := pipelineDigests(t, ctx, unread, filepath.Join(work, "out-unread"))
	if !slices.Equal(with, without) {
		t.Fatalf("the recorded readings changed the output:\n%s\n-- read again:\n%s", strings.Join(with, "\n"), strings.Join(without, "\n"))
	}
}
