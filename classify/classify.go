package classify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/pyharness/pyharness/classify/countcache"
	"github.com/pyharness/pyharness/classify/dataset"
	"github.com/pyharness/pyharness/classify/derivedcache"
	"github.com/pyharness/pyharness/classify/turnlabel"
	"github.com/pyharness/pyharness/internal/ordered"
	"github.com/pyharness/pyharness/internal/wholefile"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

// Result says what a classify did.
type Result struct {
	// Dataset and Traces are the directories written and read.
	Dataset string `json:"dataset"`
	Traces  string `json:"traces"`
	// Runs counts the runs found (the last attempt of each run id);
	// SetAside the earlier attempts left out.
	Runs     int `json:"runs"`
	SetAside int `json:"set_aside"`
	// Classified are runs new to the dataset; Reclassified runs whose rows
	// were replaced (a newer attempt, or an incomplete run that grew);
	// Unchanged runs already in the dataset as they are.
	Classified   int `json:"classified"`
	Reclassified int `json:"reclassified"`
	Unchanged    int `json:"unchanged"`
	// Incomplete counts the runs written without a run_end.
	Incomplete int `json:"incomplete"`
	// Turns counts the turn rows written, and Kinds them by kind.
	Turns int                  `json:"turns"`
	Kinds map[schemas.Kind]int `json:"kinds"`
	// RulesLabelled counts the turns labelled by the text rules.
	RulesLabelled int `json:"rules_labelled"`
	// Skipped counts trace files that could not be classified at all (no
	// run_start).
	Skipped int `json:"skipped"`
	// Problems are the bad lines and files met, as file:line: message.
	Problems trace.Problems `json:"problems"`
	// Parts are the part files written.
	Parts []string `json:"parts"`
}

// WriteText prints the result for a person.
func (r *Result) WriteText(w io.Writer) {
	fmt.Fprintf(w, "Classified %s into %s\n", r.Traces, r.Dataset)
	fmt.Fprintf(w, "runs: %d found (%d earlier attempt(s) set aside): %d new, %d reclassified, %d already classified",
		r.Runs, r.SetAside, r.Classified, r.Reclassified, r.Unchanged)
	if r.Skipped > 0 {
		fmt.Fprintf(w, ", %d unreadable", r.Skipped)
	}
	fmt.Fprintln(w)
	if r.Incomplete > 0 {
		fmt.Fprintf(w, "  %d run(s) have no run_end yet: written as verdict %q, and classified again when their trace grows\n", r.Incomplete, schemas.VerdictIncomplete)
	}
	fmt.Fprintf(w, "turns written: %d", r.Turns)
	if r.Turns > 0 {
		var parts []string
		for _, k := range kindOrder {
			if n := r.Kinds[k]; n > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", k, n))
			}
		}
		fmt.Fprintf(w, " (%s)", strings.Join(parts, ", "))
	}
	fmt.Fprintln(w)
	if r.RulesLabelled > 0 {
		fmt.Fprintf(w, "  %d turn(s) had no recorded kind and were labelled by the text rules\n", r.RulesLabelled)
	}
	fmt.Fprintf(w, "part files written: %d\n", len(r.Parts))
	if len(r.Problems) > 0 {
		fmt.Fprintf(w, "problems (%d): every good record was kept\n", len(r.Problems))
		for _, p := range r.Problems {
			fmt.Fprintf(w, "  %s\n", p)
		}
	}
}

var kindOrder = []schemas.Kind{schemas.KindOpening, schemas.KindToolResult, schemas.KindRefusalOrNudge, schemas.KindParseFailure}

// Update labels every run of the trace directory in and writes the turns
// and runs tables into the dataset out. It reads one run at a time, so its
// memory does not grow with the number of traces (beyond a few bytes of
// state per run), and it is incremental: a run already in the dataset at
// the same attempt is not read again; a run with a newer attempt, or an
// incomplete run whose trace grew, has its rows replaced. Problems in trace
// files are reported in the result and do not stop it; every good record is
// kept.
//
// While a run is decoded, each of derivers makes its entry of it, which
// classify stores keyed by the trace as it was read (package derivedcache): a
// later stage then takes the entry instead of decoding the trace again,
// as long as the trace is unchanged.
func Update(ctx context.Context, in, out string, derivers ...derivedcache.Deriver) (*Result, error) {
	res := &Result{Dataset: out, Traces: in, Kinds: map[schemas.Kind]int{}, Problems: trace.Problems{}, Parts: []string{}}
	st, err := loadState(out)
	if err != nil {
		return nil, err
	}
	jobs, drop, err := planJobs(ctx, in, st, res)
	if err != nil {
		return nil, err
	}
	if res.Runs == 0 {
		return nil, fmt.Errorf("classify: no trace files (*.jsonl) in %s or %s/runs", in, in)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, fmt.Errorf("classify: %w", err)
	}
	if err := removeOrphans(out, st); err != nil {
		return nil, err
	}
	if abs, err := filepath.Abs(in); err == nil && !slices.Contains(st.Traces, abs) {
		st.Traces = append(st.Traces, abs)
	}

	b := &batch{root: out, st: st, n: st.Batch + 1, turns: map[int]*partWriter[dataset.TurnRow]{}, runs: map[int]*partWriter[dataset.RunRow]{}}
	committed := false
	defer func() {
		if !committed {
			b.abort()
		}
	}()
	if len(drop) > 0 {
		if err := b.rewrite(ctx, drop); err != nil {
			return nil, err
		}
	}
	u := &update{res: res, st: st, b: b, traceDir: trace.Dir(in), drop: drop}
	if len(jobs) > 0 && len(derivers) > 0 {
		if u.entries, err = derivedcache.Create(out, b.n, derivers); err != nil {
			return nil, fmt.Errorf("classify: %w", err)
		}
		defer func() {
			if !committed {
				u.entries.Abort()
			}
		}()
	}
	// Reading and labelling a run is most of the work and needs nothing
	// from the others: it runs on every core, and the rows are written in
	// run order as before.
	label := func(j runJob) labelledRun { return labelRun(ctx, j.file(u.traceDir), u.entries, derivers) }
	workers := runtime.GOMAXPROCS(0)
	for k, l := range ordered.MapAhead(jobs, workers, max(readAhead, 4*workers), label) {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("classify: %w", err)
		}
		if err := u.write(jobs[k], l); err != nil {
			return nil, err
		}
	}
	if u.entries != nil {
		// The packs first: a pack whose classify did not commit is still
		// right about every trace it names, and is read only for those.
		if err := u.entries.Commit(); err != nil {
			return nil, fmt.Errorf("classify: %w", err)
		}
	}
	if err := b.commit(ctx); err != nil {
		return nil, err
	}
	committed = true
	res.Parts = b.written
	return res, nil
}

// runJob is a run Update classifies. It keeps the run id and attempt, not
// the file's path: the path is made again when the run is read (a path
// string a run was most of what classify held per run at a million
// turns). The run id is a part of the listing's own string, so the
// state's keys cost no string of their own.
type runJob struct {
	runID   string
	attempt int32
	seen    bool // the dataset holds an older classification of the run
}

// file is the trace file of j's attempt in traceDir.
func (j runJob) file(traceDir string) trace.File {
	return trace.File{RunID: j.runID, Attempt: int(j.attempt), Path: filepath.Join(traceDir, trace.AttemptFileName(j.runID, int(j.attempt)))}
}

// planJobs decides what to do with each run of in before anything is
// written: it returns the runs to classify and the ids of the runs whose
// old rows go, and counts the runs, the attempts set aside and the runs
// unchanged since the last classify into res.
func planJobs(ctx context.Context, in string, st *state, res *Result) ([]runJob, map[string]bool, error) {
	var jobs []runJob
	drop := map[string]bool{}
	for la, err := range trace.LastAttempts(ctx, in) {
		if err != nil {
			return nil, nil, fmt.Errorf("classify: %w", err)
		}
		res.Runs++
		res.SetAside += la.SetAside
		id := la.RunID
		old, seen := st.Runs[id]
		if seen && int(old.Attempt) == la.Attempt {
			// Only an incomplete run can have grown; a file no
			// other classify read needs no stat (its size is the
			// bytes read).
			unchanged := old.Complete
			if !unchanged {
				info, err := os.Stat(la.Path)
				if err != nil {
					return nil, nil, fmt.Errorf("classify: %w", err)
				}
				unchanged = old.Size == info.Size()
			}
			if unchanged {
				res.Unchanged++
				continue
			}
		}
		if seen {
			drop[id] = true
		}
		jobs = append(jobs, runJob{runID: la.RunID, attempt: int32(la.Attempt), seen: seen})
	}
	return jobs, drop, nil
}

// labelledRun is a run read and labelled, its rows ready to be written.
type labelledRun struct {
	run    *trace.Run
	err    error
	part   dataset.Partition
	runRow dataset.RunRow
	turns  []dataset.TurnRow
	// derived is what the derivers made of the run; none for a run
	// read with problems, which the later stages read again to
	// report them.
	derived  derivedcache.Made
	hasEntry bool
	size     int64 // of the bytes read
}

// labelRun reads the run of f and labels it; the derivers make their
// facts of it when entries (the derived-cache writer) is not nil.
func labelRun(ctx context.Context, f trace.File, entries *derivedcache.Writer, derivers []derivedcache.Deriver) labelledRun {
	if ctx.Err() != nil {
		return labelledRun{}
	}
	data, stamp, done, err := wholefile.Read(f.Path)
	defer done()
	if err != nil {
		// ReadRun says why the file cannot be read, as it always has.
		run, err := trace.ReadRun(f)
		return labelledRun{run: run, err: err}
	}
	run, err := trace.ReadRunBytes(f, data)
	l := labelledRun{run: run, err: err, size: int64(len(data))}
	if run.Start != nil {
		l.part, l.runRow, l.turns = Rows(run)
		if entries != nil && err == nil && len(run.Warnings) == 0 {
			l.derived, l.hasEntry = derivedcache.Derive(derivers, trace.Rebuild(run), data, stamp), true
		}
	}
	return l
}

// update is what one Update writes to and counts in, run by run.
type update struct {
	res      *Result
	st       *state
	b        *batch
	entries  *derivedcache.Writer // nil when no deriver runs
	traceDir string
	drop     map[string]bool // run ids whose old rows go
}

// write writes the rows of a labelled run, its derived facts, and its
// state, and counts it; a run without a start is counted as skipped.
func (u *update) write(j runJob, l labelledRun) error {
	res, st := u.res, u.st
	run, err := l.run, l.err
	id, attempt := j.runID, int(j.attempt)
	for _, w := range run.Warnings {
		res.Problems.Add(w)
	}
	if err != nil {
		res.Problems.Add(err)
	}
	if run.Start == nil {
		res.Skipped++
		if u.drop[id] {
			delete(st.Runs, id) // the old rows are gone and nothing replaces them
		}
		return nil
	}
	if j.seen {
		res.Reclassified++
	} else {
		res.Classified++
	}
	p := st.partition(l.part.Dir())
	if err := u.b.writeRun(p, l.runRow, l.turns); err != nil {
		return err
	}
	if l.hasEntry {
		if err := u.entries.Add(j.file(u.traceDir), l.derived); err != nil {
			return fmt.Errorf("classify: %w", err)
		}
	}
	st.Runs[id] = runState{Attempt: int32(attempt), Complete: run.Complete(), Size: l.size, Batch: int32(u.b.n), Part: int32(p)}
	if !run.Complete() {
		res.Incomplete++
	}
	res.Turns += len(l.turns)
	for _, t := range l.turns {
		res.Kinds[t.Kind]++
		if t.LabelFrom == turnlabel.FromRules {
			res.RulesLabelled++
		}
	}
	return nil
}

// batch is the part files one classify writes, committed together.
type batch struct {
	root    string
	st      *state
	n       int
	seq     int
	turns   map[int]*partWriter[dataset.TurnRow]
	runs    map[int]*partWriter[dataset.RunRow]
	written []string // new part files, closed or open
	retired []string // live part files replaced by this batch
}

func (b *batch) partName(table string, p int) string {
	b.seq++
	return fmt.Sprintf("%s/%s/part-%06d-%04d.parquet", table, b.st.Partitions[p], b.n, b.seq)
}

func (b *batch) writeRun(p int, run dataset.RunRow, turns []dataset.TurnRow) error {
	if err := writeTo(b, b.runs, dataset.RunsTable, p, []dataset.RunRow{run}); err != nil {
		return err
	}
	return writeTo(b, b.turns, dataset.TurnsTable, p, turns)
}

// writeTo appends rows to the partition's open part of a table, starting a
// new part file when the open one is full.
func writeTo[T any](b *batch, open map[int]*partWriter[T], table string, p int, rows []T) error {
	if len(rows) == 0 {
		return nil
	}
	w := open[p]
	if w != nil && w.rows >= rowsPerFile {
		if err := w.close(); err != nil {
			return err
		}
		w = nil
	}
	if w == nil {
		var err error
		if w, err = createPart[T](b.root, b.partName(table, p)); err != nil {
			return err
		}
		open[p] = w
		b.written = append(b.written, w.rel)
	}
	w.write(rows)
	return nil
}

// rewrite copies the live part files that hold rows of the dropped runs
// into this batch without those rows, and retires them.
func (b *batch) rewrite(ctx context.Context, drop map[string]bool) error {
	type key struct{ batch, part int }
	affected := map[key]bool{}
	for id := range drop {
		if rs, ok := b.st.Runs[id]; ok {
			affected[key{int(rs.Batch), int(rs.Part)}] = true
		}
	}
	for _, rel := range slices.Clone(b.st.Parts) {
		table, p, n, ok := b.parsePart(rel)
		if !ok || !affected[key{n, p}] {
			continue
		}
		var kept []string
		var err error
		switch table {
		case dataset.TurnsTable:
			kept, err = copyPart(ctx, b, b.turns, table, p, rel, func(r *dataset.TurnRow) string { return r.RunID }, (*dataset.TurnRow).FillFeedback, drop)
		case dataset.RunsTable:
			kept, err = copyPart(ctx, b, b.runs, table, p, rel, func(r *dataset.RunRow) string { return r.RunID }, nil, drop)
		}
		if err != nil {
			return err
		}
		for _, id := range kept {
			if rs, ok := b.st.Runs[id]; ok {
				rs.Batch = int32(b.n)
				b.st.Runs[id] = rs
			}
		}
		b.retired = append(b.retired, rel)
	}
	return nil
}

// parsePart reads the table, partition index and batch of a part path.
func (b *batch) parsePart(rel string) (table string, p, n int, ok bool) {
	dir, name := filepath.ToSlash(filepath.Dir(rel)), filepath.Base(rel)
	table, pdir, ok := strings.Cut(dir, "/")
	if !ok {
		return "", 0, 0, false
	}
	p = slices.Index(b.st.Partitions, pdir)
	var seq int
	if _, err := fmt.Sscanf(name, "part-%06d-%04d.parquet", &n, &seq); err != nil || p < 0 {
		return "", 0, 0, false
	}
	return table, p, n, true
}

// copyPart copies the rows of one part file whose run is not dropped into
// this batch's writer of the partition, and returns the run ids kept.
// update, when not nil, brings each copied row up to this build's columns.
func copyPart[T any](ctx context.Context, b *batch, open map[int]*partWriter[T], table string, p int, rel string, runID func(*T) string, update func(*T), drop map[string]bool) ([]string, error) {
	f, err := os.Open(filepath.Join(b.root, filepath.FromSlash(rel)))
	if err != nil {
		return nil, fmt.Errorf("rewrite %s: %w", rel, err)
	}
	defer f.Close()
	r := parquet.NewGenericReader[T](f)
	defer r.Close()
	kept := map[string]bool{}
	buf := make([]T, 256)
	for {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("rewrite %s: %w", rel, err)
		}
		clear(buf)
		n, err := r.Read(buf)
		var rows []T
		for i := range buf[:n] {
			if id := runID(&buf[i]); !drop[id] {
				if update != nil {
					update(&buf[i])
				}
				rows = append(rows, buf[i])
				kept[id] = true
			}
		}
		if werr := writeTo(b, open, table, p, rows); werr != nil {
			return nil, werr
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("rewrite %s: %w", rel, err)
		}
	}
	ids := make([]string, 0, len(kept))
	for id := range kept {
		ids = append(ids, id)
	}
	return ids, nil
}

// commit closes the part files, counts them for stats (countcache.WriteCounts),
// records them and the runs in the state, and removes the part files this
// batch replaced.
func (b *batch) commit(ctx context.Context) error {
	for _, w := range b.turns {
		if err := w.close(); err != nil {
			return err
		}
	}
	for _, w := range b.runs {
		if err := w.close(); err != nil {
			return err
		}
	}
	b.turns, b.runs = nil, nil
	if err := countcache.WriteCounts(ctx, b.root, b.written); err != nil {
		return fmt.Errorf("classify: %w", err)
	}
	parts := slices.DeleteFunc(slices.Clone(b.st.Parts), func(rel string) bool { return slices.Contains(b.retired, rel) })
	b.st.Parts = append(parts, b.written...)
	b.st.Batch = b.n
	if err := b.st.save(b.root); err != nil {
		return err
	}
	for _, rel := range b.retired {
		if err := os.Remove(filepath.Join(b.root, filepath.FromSlash(rel))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove replaced part: %w", err)
		}
		if err := countcache.RemoveCounts(b.root, rel); err != nil {
			return fmt.Errorf("classify: %w", err)
		}
	}
	return nil
}

// abort closes and removes what this batch wrote; the dataset stays as the
// last commit left it.
func (b *batch) abort() {
	for _, w := range b.turns {
		w.close()
	}
	for _, w := range b.runs {
		w.close()
	}
	for _, rel := range b.written {
		os.Remove(filepath.Join(b.root, filepath.FromSlash(rel)))
		countcache.RemoveCounts(b.root, rel)
	}
}

// removeOrphans deletes part files that no commit recorded: the leftovers
// of a classify that crashed before it committed.
func removeOrphans(root string, st *state) error {
	live := map[string]bool{}
	for _, p := range st.Parts {
		live[p] = true
	}
	for _, table := range []string{dataset.TurnsTable, dataset.RunsTable} {
		dir := filepath.Join(root, table)
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			if d.IsDir() || !strings.HasPrefix(d.Name(), "part-") || !strings.HasSuffix(d.Name(), ".parquet") {
				return nil
			}
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			if !live[filepath.ToSlash(rel)] {
				return os.Remove(path)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("classify: clean up an unfinished classify: %w", err)
		}
	}
	if err := countcache.RemoveOrphanCounts(root, live); err != nil {
		return fmt.Errorf("classify: clean up an unfinished classify: %w", err)
	}
	return nil
}
