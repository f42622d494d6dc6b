package trace

import (
	"cmp"
	"context"
	"fmt"
	"iter"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/pyharness/pyharness/internal/ordered"
	"github.com/pyharness/pyharness/schemas"
)

// Corpus is a trace directory as dedupe and export read it: the last
// attempt of every run, each turn with the whole prompt it was sent,
// rebuilt from the recorded deltas and proved by its prompt_hash. Runs come
// group by group (GroupOf: a benchmark case, a dogfood task), in run id
// order within a group, so that
// a dedupe index holds one group at a time. Runs are read one at a time; a
// few recent ones are cached (Load) so that the text of a pair can be read
// again cheaply while duplicates are confirmed.
type Corpus struct {
	dir        string
	files      *listing // the last attempt of every run, group by group
	group      []int32  // group of each run, an index into groupNames
	groupNames []string
	// knownGroups is how many runs took their group from OpenCorpus's
	// known, their run_start not read for it.
	knownGroups int
	setAside    int
	cache       []*RebuiltRun // most recent last
}

// cacheRuns is how many rebuilt runs a Corpus keeps. Runs come group by
// group, so the copies a new pair is compared with are nearly always among
// the last few.
const cacheRuns = 8

// OpenCorpus lists the traces of dir (DIR/runs/*.jsonl or DIR/*.jsonl) and
// puts the runs in the order of their groups (GroupOf), reading the
// run_start of each on every core. A run whose run_start cannot be read
// goes last, in a group of its own; reading it again reports why.
//
// known, when not nil, gives a run's group when it has it (ok), without
// its run_start being read: for a caller that learnt the groups elsewhere
// (package derivedcache's store) and checks them when it reads the runs. It is
// called on every core at once.
func OpenCorpus(ctx context.Context, dir string, known func(File) (string, bool)) (*Corpus, error) {
	all, err := list(dir)
	if err != nil {
		return nil, fmt.Errorf("open traces: %w", err)
	}
	if all.Len() == 0 {
		return nil, fmt.Errorf("open traces: no trace files (*.jsonl) in %s or %s/runs", dir, dir)
	}
	latest, aside := all.Latest()
	c := &Corpus{dir: dir, setAside: aside}
	ids := map[string]int32{}
	groups := make([]int32, latest.Len())
	order := make([]int32, latest.Len())
	for i := range order {
		order[i] = int32(i)
	}
	var knownGroups atomic.Int64 // groupOfFile runs on every core
	groupOfFile := func(i int32) string {
		if ctx.Err() != nil {
			return ""
		}
		if known != nil {
			if g, ok := known(latest.File(int(i))); ok {
				knownGroups.Add(1)
				return g
			}
		}
		s, err := ReadStart(latest.File(int(i)))
		if err != nil {
			return ""
		}
		return GroupOf(s)
	}
	for i, g := range ordered.Map(order, runtime.GOMAXPROCS(0), groupOfFile) {
		id, ok := ids[g]
		if !ok {
			id = int32(len(c.groupNames))
			ids[g] = id
			c.groupNames = append(c.groupNames, g)
		}
		groups[i] = id
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("open traces: %w", err)
	}
	// Group by group, by name ("" last), then by run id as listed.
	rank := make([]int32, len(c.groupNames))
	byName := make([]int32, len(c.groupNames))
	for i := range byName {
		byName[i] = int32(i)
	}
	slices.SortFunc(byName, func(a, b int32) int {
		na, nb := c.groupNames[a], c.groupNames[b]
		if (na == "") != (nb == "") {
			if na == "" {
				return 1
			}
			return -1
		}
		return strings.Compare(na, nb)
	})
	for r, id := range byName {
		rank[id] = int32(r)
	}
	slices.SortStableFunc(order, func(a, b int32) int { return cmp.Compare(rank[groups[a]], rank[groups[b]]) })
	c.knownGroups = int(knownGroups.Load())
	c.files = latest.Select(order)
	c.group = make([]int32, len(order))
	for k, i := range order {
		c.group[k] = groups[i]
	}
	return c, nil
}

// KnownGroups is the number of runs whose group came from OpenCorpus's
// known rather than from their run_start.
func (c *Corpus) KnownGroups() int { return c.knownGroups }

// Len is the number of runs (last attempts).
func (c *Corpus) Len() int { return c.files.Len() }

// SetAside is the number of earlier attempts left out.
func (c *Corpus) SetAside() int { return c.setAside }

// File returns the trace file of run i.
func (c *Corpus) File(i int) File { return c.files.File(i) }

// Group returns the group of run i (GroupOf of its run_start, "" when that
// could not be read), without reading the run.
func (c *Corpus) Group(i int) string { return c.groupNames[c.group[i]] }

// RebuiltRun is one run's records with the rebuilt prompt of every turn.
type RebuiltRun struct {
	Index int32
	*Run
	// readErr holds the errors met reading the file; the good records
	// before and after them are kept, and MapRuns reports them.
	readErr error
	// Prompts[i] is the whole prompt turn i was sent, or nil when it could
	// not be rebuilt (its hash did not match); PromptErrs says why.
	Prompts    [][]schemas.Message
	PromptErrs []error
}

// Worked reports whether the run ended with the verdict worked.
func (r *RebuiltRun) Worked() bool { return r.End != nil && r.End.Verdict == schemas.VerdictWorked }

// Time is the moment of turn i, for choosing the newest copy.
func (r *RebuiltRun) Time(i int) int64 {
	if t := r.Turns[i].StartedAt; !t.IsZero() {
		return t.UnixNano()
	}
	if r.Start != nil {
		return r.Start.StartedAt.UnixNano()
	}
	return 0
}

// ReadCached reads run i, from the cache of recent runs when it is there.
// It keeps the run in that cache, so unlike Read it must not be called on
// several goroutines at once.
func (c *Corpus) ReadCached(i int) (*RebuiltRun, error) {
	for k, r := range c.cache {
		if int(r.Index) == i {
			c.cache = append(append(c.cache[:k:k], c.cache[k+1:]...), r)
			return r, nil
		}
	}
	r, err := c.read(i)
	if r != nil {
		c.keep(r)
	}
	return r, err
}

// keep puts a run at the recent end of the cache.
func (c *Corpus) keep(r *RebuiltRun) {
	if len(c.cache) >= cacheRuns {
		c.cache = slices.Delete(c.cache, 0, 1)
	}
	c.cache = append(c.cache, r)
}

// read reads and rebuilds run i, touching nothing of c but its file list,
// so that several runs can be read at once.
func (c *Corpus) read(i int) (*RebuiltRun, error) { return c.readIf(i, nil) }

// readIf is read, rebuilding the prompts only when rebuild (if not nil)
// wants the run.
func (c *Corpus) readIf(i int, rebuild func(*Run) bool) (*RebuiltRun, error) {
	f := c.File(i)
	tr, err := ReadRun(f)
	if tr == nil {
		return nil, fmt.Errorf("read run: %w", err)
	}
	r := &RebuiltRun{Run: tr}
	if rebuild == nil || rebuild(tr) {
		r = Rebuild(tr)
	}
	r.Index, r.readErr = int32(i), err
	return r, nil
}

// Rebuild rebuilds the prompt of every turn of a run read on its own
// (ReadRun), as a Corpus does: classify, which reads every run, keys its
// turns for dedupe so that dedupe need not read them again. The run has
// no index or group.
func Rebuild(tr *Run) *RebuiltRun {
	r := &RebuiltRun{Run: tr}
	var conv schemas.Conversation
	r.Prompts = make([][]schemas.Message, len(tr.Turns))
	r.PromptErrs = make([]error, len(tr.Turns))
	for k, t := range tr.Turns {
		msgs, err := conv.Apply(t)
		if err != nil {
			r.PromptErrs[k] = fmt.Errorf("%s: %w", tr.File.Path, err)
			continue
		}
		r.Prompts[k] = slices.Clip(msgs)
	}
	return r
}

// RunWithValue is a run with the value MapRuns's function made of it.
type RunWithValue[T any] struct {
	*RebuiltRun
	Value T
}

// MapRuns streams every run in order, each with f's value for it. The
// problems of the files are handed to problem, one call per file with
// problems: a file that cannot be read at all (it is not streamed, and f
// is not called for it) or one with bad lines (its good records are
// streamed). The only error yielded is the context's, which ends the
// stream. Runs are read, rebuilt and given to f ahead on every core
// (reading, decoding and hashing the prompts, and keying the turns for a
// dedupe index, are most of a dedupe or an export), and handed over in
// order, so that what each run needs on its own is not left to the one
// goroutine that takes them in order. rebuild, when not nil, says which
// runs' prompts are rebuilt: a run it refuses comes with Prompts and
// PromptErrs nil and is not kept for ReadCached, for a caller that reads
// no turn of the runs it leaves out (rebuilding is hashing every prompt).
func MapRuns[T any](ctx context.Context, c *Corpus, rebuild func(*Run) bool, f func(*RebuiltRun) T, problem func(error)) iter.Seq2[RunWithValue[T], error] {
	return func(yield func(RunWithValue[T], error) bool) {
		idx := make([]int32, c.Len())
		for i := range idx {
			idx[i] = int32(i)
		}
		type loaded struct {
			m   RunWithValue[T]
			err error
		}
		read := func(i int32) loaded {
			if ctx.Err() != nil {
				return loaded{}
			}
			r, err := c.readIf(int(i), rebuild)
			if r == nil {
				return loaded{err: err}
			}
			return loaded{m: RunWithValue[T]{r, f(r)}}
		}
		for _, l := range ordered.Map(idx, runtime.GOMAXPROCS(0), read) {
			if err := ctx.Err(); err != nil {
				yield(RunWithValue[T]{}, err)
				return
			}
			if l.m.RebuiltRun == nil {
				problem(l.err)
				continue
			}
			if l.m.readErr != nil {
				problem(l.m.readErr)
			}
			if l.m.Prompts != nil {
				c.keep(l.m.RebuiltRun)
			}
			if !yield(l.m, nil) {
				return
			}
		}
	}
}

// Read reads and rebuilds run i without the cache: it is safe on several
// goroutines at once, where ReadCached is not. The errors of a file read
// in part are left out: MapRuns reports them the first time round.
func (c *Corpus) Read(i int) (*RebuiltRun, error) { return c.read(i) }
