package derivedcache

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/pyharness/pyharness/internal/wholefile"
	"github.com/pyharness/pyharness/schemas/trace"
)

// Deriver makes one stage's entry of each run.
type Deriver struct {
	// Name names the deriver's pack files (DATASET/derived/NAME-*.bin): a
	// word, unique among the derivers.
	Name string
	// Version names everything an entry depends on (its layout, and the
	// settings of what it holds): a pack of another version is not read,
	// and its runs are decoded.
	Version string
	// Derive returns the entry of a run read whole and without problems,
	// its prompts rebuilt. It runs on several goroutines at once, a run
	// each.
	Derive func(*Run) []byte
}

// Run is a decoded run as derivers take it. Besides the run it carries
// what one deriver made of it for the others (Shared).
type Run struct {
	*trace.RebuiltRun
	shared  map[any]any
	release []func()
}

// NewRun is run as derivers take it; Release it once every deriver has
// had it.
func NewRun(run *trace.RebuiltRun) *Run { return &Run{RebuiltRun: run} }

// Release gives back what the derivers shared of the run (Shared).
func (r *Run) Release() {
	for _, release := range r.release {
		release()
	}
	r.shared, r.release = nil, nil
}

// Shared returns the value kept under key for r, made by make the first
// time it is asked for: work that two derivers both need of a run is done
// once. release, when make gives one, runs once every deriver has had
// the run.
func Shared[T any](r *Run, key any, make func() (T, func())) T {
	if v, ok := r.shared[key]; ok {
		return v.(T)
	}
	v, release := make()
	if r.shared == nil {
		r.shared = map[any]any{}
	}
	r.shared[key] = v
	if release != nil {
		r.release = append(r.release, release)
	}
	return v
}

// Made is every deriver's entry of one run, and the trace they were made
// of, as Writer.Add takes them.
type Made struct {
	src     source
	group   string
	entries [][]byte
}

// Derive makes the entry of every deriver of run, decoded from data, the
// bytes of its trace read with stamp (wholefile.Read). Made on the worker
// that read the run, the entries leave Writer.Add only their writing.
func Derive(derivers []Deriver, run *trace.RebuiltRun, data []byte, stamp wholefile.Stamp) Made {
	if len(derivers) == 0 {
		return Made{}
	}
	r := NewRun(run)
	defer r.Release()
	m := Made{src: sourceOf(data, stamp), group: trace.GroupOf(run.Start), entries: make([][]byte, len(derivers))}
	for i, d := range derivers {
		m.entries[i] = d.Derive(r)
	}
	return m
}

// dir is the directory of a dataset that holds the derived packs.
func dir(dataset string) string { return filepath.Join(dataset, "derived") }

// packName is the pack file of d that classify batch n writes.
func packName(dataset string, d Deriver, n int) string {
	return filepath.Join(dir(dataset), fmt.Sprintf("%s-%06d.bin", d.Name, n))
}

// Writer writes the entries one classify made, a pack file per deriver:
// named for the classify's batch, written to temporary names, and given
// their names by Commit.
type Writer struct {
	packs []*packWriter
}

// Create starts the packs of classify batch n of dataset, one per
// deriver, and removes what an earlier classify that did not commit left.
func Create(dataset string, n int, derivers []Deriver) (*Writer, error) {
	if err := os.MkdirAll(dir(dataset), 0o755); err != nil {
		return nil, fmt.Errorf("write derived entries: %w", err)
	}
	if tmps, err := filepath.Glob(filepath.Join(dir(dataset), "*.tmp")); err == nil {
		for _, t := range tmps {
			os.Remove(t)
		}
	}
	w := &Writer{}
	for _, d := range derivers {
		pw, err := createPack(packName(dataset, d, n), formatOf(d))
		if err != nil {
			w.Abort()
			return nil, fmt.Errorf("write derived entries: %w", err)
		}
		w.packs = append(w.packs, pw)
	}
	return w, nil
}

// Add adds the entries made of the run read from f (Derive).
func (w *Writer) Add(f trace.File, m Made) error {
	for i, pw := range w.packs {
		if err := pw.add(f, m.group, m.src, m.entries[i]); err != nil {
			return fmt.Errorf("write derived entries: %w", err)
		}
	}
	return nil
}

// Commit writes each pack's index and gives it its name.
func (w *Writer) Commit() error {
	for _, pw := range w.packs {
		if err := pw.commit(); err != nil {
			return fmt.Errorf("write derived entries: %w", err)
		}
	}
	return nil
}

// Abort drops the packs.
func (w *Writer) Abort() {
	for _, pw := range w.packs {
		pw.abort()
	}
}
