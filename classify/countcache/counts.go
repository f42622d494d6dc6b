package countcache

import (
	"context"
	"fmt"
	"iter"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/pyharness/pyharness/classify/dataset"
	"github.com/pyharness/pyharness/internal/ordered"
	"github.com/pyharness/pyharness/schemas"
)

// Counting a table does not need its rows one by one: most turns of a row
// group have the kind, code, shape and outcome of many others, and only
// the feedback of refusals (which names files) sets each of those apart.
// Turns and Runs read each column chunk of a row group as an index per
// row into the chunk's distinct values (its dictionary, most of the time),
// group the rows by those indexes, and build one summary per group. Part
// files are read on every core, one each.

// Counted is a summary standing for Count rows of one row group of a part
// file that are equal to it.
//
// A row group's summaries come in the order of their first row, and the
// row groups in the table's order: a consumer that adds Count to its
// tallies, and that only keeps the first N distinct values of something,
// gets what it would from the rows one by one.
type Counted[T any] struct {
	Partition dataset.Partition
	Row       T
	Count     int
}

// Options choose what Turns and Runs read beyond what every summary
// needs.
type Options struct {
	// Cases reads the case id of turns and runs and the tier of turns,
	// which a breakdown by case or tier needs; without it they are left
	// empty, and the rows of a row group fall into fewer groups.
	Cases bool
}

// RunTally is the columns of a runs row that counting runs needs: a
// RunSummary without what differs from run to run (its id, its first
// failure, the paths of its writes).
type RunTally struct {
	CaseID       string
	Tier         int32
	Pass         int32
	Verdict      schemas.Verdict
	FailureClass schemas.FailureClass
	ClaimedDone  bool
	StopReason   schemas.StopReason
	ModelSteps   int32
	Turns        int32
	// Writes is how many files the run wrote.
	Writes int32
	Tags   []string
}

// RunTallyOf is the run's columns that RunTally holds.
func RunTallyOf(r *dataset.RunSummary) RunTally {
	return RunTally{
		CaseID: r.CaseID, Tier: r.Tier, Pass: r.Pass, Verdict: r.Verdict, FailureClass: r.FailureClass,
		ClaimedDone: r.ClaimedDone, StopReason: r.StopReason, ModelSteps: r.ModelSteps, Turns: r.Turns, Writes: int32(len(r.Writes)), Tags: r.Tags,
	}
}

// Turns streams the turns table of a dataset as counted summaries, part
// file by part file. A row group holding a refusal, nudge or parse failure
// without feedback (copied from a part file written before the column
// existed) is read row by row, its feedback computed from the messages as
// dataset.Turns does; so is a part file laid out otherwise.
//
// The strings of a column chunk's dictionary share one allocation: a
// consumer that keeps a few strings out of many (the first wordings of a
// code) copies them (strings.Clone), or it keeps every dictionary they
// come from.
func Turns(ctx context.Context, dir string, o Options) iter.Seq2[Counted[dataset.TurnSummary], error] {
	cols := turnKeyColumns
	if !o.Cases {
		cols = withoutCases(cols)
	}
	clean := func(t dataset.TurnSummary) dataset.TurnSummary {
		if !o.Cases {
			t.CaseID, t.Tier = "", 0
		}
		return t
	}
	fallback := func(ctx context.Context, path string, part dataset.Partition, yield func(Counted[dataset.TurnSummary], error) bool) bool {
		return readTurnSummaries(ctx, path, part, func(t dataset.Partitioned[dataset.TurnSummary], err error) bool {
			return yield(Counted[dataset.TurnSummary]{Partition: t.Partition, Row: clean(t.Row), Count: 1}, err)
		})
	}
	byRow := turnsByRow(keyColumnAt(cols, "kind"), keyColumnAt(cols, "feedback"), clean)
	return countTable(ctx, dir, dataset.TurnsTable, cols, byRow, fallback)
}

// Runs streams the runs table of a dataset as counted tallies, part file
// by part file; a part file laid out otherwise is read row by row.
func Runs(ctx context.Context, dir string, o Options) iter.Seq2[Counted[RunTally], error] {
	cols := runKeyColumns
	if !o.Cases {
		cols = withoutCases(cols)
	}
	fallback := func(ctx context.Context, path string, part dataset.Partition, yield func(Counted[RunTally], error) bool) bool {
		return dataset.ReadPart(ctx, path, part, nil, func(r dataset.Partitioned[dataset.RunSummary], err error) bool {
			t := RunTallyOf(&r.Row)
			if !o.Cases {
				t.CaseID = ""
			}
			return yield(Counted[RunTally]{Partition: r.Partition, Row: t, Count: 1}, err)
		})
	}
	return countTable(ctx, dir, dataset.RunsTable, cols, nil, fallback)
}

// What a key column's values are.
type keyKind int

const (
	keyText     keyKind = iota // a required string
	keyInt32                   // a required int32
	keyBool                    // a required boolean
	keyTextList                // a required list of required strings
	keyListLen                 // the length of a required list, from one of its leaf columns
)

// A keyColumn is a leaf column read as an index per row into the distinct
// values of its column chunk, and the field of T those values go to.
type keyColumn[T any] struct {
	path  string // dotted: "tags.list.element"
	kind  keyKind
	cases bool // read only with Options.Cases
	text  func(r *T, s string)
	int   func(r *T, v int32) // keyInt32 and keyListLen
	bool  func(r *T, v bool)
	list  func(r *T, l []string)
}

// textKey, int32Key, boolKey and textListKey are key columns of the
// field of T that field points to.
func textKey[T any, S ~string](path string, field func(*T) *S) keyColumn[T] {
	return keyColumn[T]{path: path, kind: keyText, text: func(r *T, s string) { *field(r) = S(s) }}
}

func int32Key[T any](path string, field func(*T) *int32) keyColumn[T] {
	return keyColumn[T]{path: path, kind: keyInt32, int: func(r *T, v int32) { *field(r) = v }}
}

func boolKey[T any](path string, field func(*T) *bool) keyColumn[T] {
	return keyColumn[T]{path: path, kind: keyBool, bool: func(r *T, v bool) { *field(r) = v }}
}

func textListKey[T any](path string, field func(*T) *[]string) keyColumn[T] {
	return keyColumn[T]{path: path, kind: keyTextList, list: func(r *T, l []string) { *field(r) = l }}
}

func caseColumn[T any](c keyColumn[T]) keyColumn[T] {
	c.cases = true
	return c
}

func withoutCases[T any](cols []keyColumn[T]) []keyColumn[T] {
	var out []keyColumn[T]
	for _, c := range cols {
		if !c.cases {
			out = append(out, c)
		}
	}
	return out
}

// turnKeyColumns are the columns of TurnSummary.
var turnKeyColumns = []keyColumn[dataset.TurnSummary]{
	textKey("kind", func(t *dataset.TurnSummary) *schemas.Kind { return &t.Kind }),
	textKey("code", func(t *dataset.TurnSummary) *schemas.Code { return &t.Code }),
	textKey("label_from", func(t *dataset.TurnSummary) *string { return &t.LabelFrom }),
	textKey("verb", func(t *dataset.TurnSummary) *string { return &t.Verb }),
	textKey("shape", func(t *dataset.TurnSummary) *string { return &t.Shape }),
	textKey("status", func(t *dataset.TurnSummary) *schemas.Status { return &t.Status }),
	textKey("outcome_code", func(t *dataset.TurnSummary) *schemas.Code { return &t.OutcomeCode }),
	boolKey("model_step", func(t *dataset.TurnSummary) *bool { return &t.ModelStep }),
	textKey("reasoning_source", func(t *dataset.TurnSummary) *string { return &t.ReasoningSource }),
	// Zero for every turn without reasoning: a table without it keeps its
	// groups; one with it groups its reasoning turns by their size.
	int32Key("reasoning_tokens", func(t *dataset.TurnSummary) *int32 { return &t.ReasoningTokens }),
	textListKey("warning_codes.list.element", func(t *dataset.TurnSummary) *[]string { return &t.WarningCodes }),
	// The most distinct values last: the table that combines a column
	// with the groups so far stays small.
	textKey("feedback", func(t *dataset.TurnSummary) *string { return &t.Feedback }),
	caseColumn(int32Key("tier", func(t *dataset.TurnSummary) *int32 { return &t.Tier })),
	caseColumn(textKey("case_id", func(t *dataset.TurnSummary) *string { return &t.CaseID })),
}

// keyColumnAt is the index of the column of cols at path.
func keyColumnAt[T any](cols []keyColumn[T], path string) int {
	for i, c := range cols {
		if c.path == path {
			return i
		}
	}
	panic("tally: no key column " + path) // the columns are fixed: a bug
}

// runKeyColumns are the columns of RunTally.
var runKeyColumns = []keyColumn[RunTally]{
	textKey("verdict", func(r *RunTally) *schemas.Verdict { return &r.Verdict }),
	int32Key("tier", func(r *RunTally) *int32 { return &r.Tier }),
	int32Key("pass", func(r *RunTally) *int32 { return &r.Pass }),
	textKey("failure_class", func(r *RunTally) *schemas.FailureClass { return &r.FailureClass }),
	boolKey("claimed_done", func(r *RunTally) *bool { return &r.ClaimedDone }),
	textKey("stop_reason", func(r *RunTally) *schemas.StopReason { return &r.StopReason }),
	int32Key("model_steps", func(r *RunTally) *int32 { return &r.ModelSteps }),
	int32Key("turns", func(r *RunTally) *int32 { return &r.Turns }),
	// The number of writes from the levels of their added lines, numbers
	// that cost less to decompress than the paths.
	{path: "writes.list.element.added", kind: keyListLen, int: func(r *RunTally, n int32) { r.Writes = n }},
	textListKey("tags.list.element", func(r *RunTally) *[]string { return &r.Tags }),
	caseColumn(textKey("case_id", func(r *RunTally) *string { return &r.CaseID })),
}

// keyColumnIndexes returns the leaf column index of each of cols in a
// file's schema, or false when one is missing or is not laid out as
// classify writes it.
func keyColumnIndexes[T any](s *parquet.Schema, cols []keyColumn[T]) ([]int, bool) {
	idx := make([]int, len(cols))
	for i, c := range cols {
		leaf, ok := s.Lookup(strings.Split(c.path, ".")...)
		if !ok {
			return nil, false
		}
		depth, kind := 0, parquet.ByteArray
		switch c.kind {
		case keyTextList:
			depth = 1
		case keyListLen:
			depth, kind = 1, leaf.Node.Type().Kind()
		case keyInt32:
			kind = parquet.Int32
		case keyBool:
			kind = parquet.Boolean
		}
		if leaf.MaxRepetitionLevel != depth || leaf.MaxDefinitionLevel != depth || leaf.Node.Type().Kind() != kind {
			return nil, false
		}
		idx[i] = leaf.ColumnIndex
	}
	return idx, true
}

// A rowGroupFallback reads a row group row by row when its keys say the
// counts cannot be built from them; first is the index in the file of its
// first row. nil when there is no such case.
type rowGroupFallback[T any] struct {
	needed func(keys []chunkKeys) bool
	read   func(pf *parquet.File, g parquet.RowGroup, first int64) ([]T, error)
}

// turnsByRow reads the row groups holding a refusal, nudge or parse
// failure without feedback row by row, its feedback computed from the
// messages (feedbackFiller).
func turnsByRow(kind, feedback int, clean func(dataset.TurnSummary) dataset.TurnSummary) *rowGroupFallback[dataset.TurnSummary] {
	return &rowGroupFallback[dataset.TurnSummary]{
		needed: func(keys []chunkKeys) bool {
			kinds, feedback := &keys[kind], &keys[feedback]
			lacks := make([]bool, len(kinds.strs))
			for k, s := range kinds.strs {
				lacks[k] = dataset.HasFeedback(schemas.Kind(s))
			}
			for r, k := range kinds.idx {
				if lacks[k] && feedback.strs[feedback.idx[r]] == "" {
					return true
				}
			}
			return false
		},
		read: func(pf *parquet.File, g parquet.RowGroup, first int64) ([]dataset.TurnSummary, error) {
			idx, ok := columnIndexes(pf.Schema(), turnSummaryColumns)
			if !ok {
				return nil, fmt.Errorf("the turns' columns are not laid out as classify writes them")
			}
			var cr columnReader
			rows, err := readColumns(&cr, []parquet.RowGroup{g}, turnSummaryColumns, idx)
			if err != nil {
				return nil, err
			}
			var fb feedbackFiller
			defer fb.close()
			if err := fb.fill(pf, first, rows); err != nil {
				return nil, err
			}
			for i := range rows {
				rows[i] = clean(rows[i])
			}
			return rows, nil
		},
	}
}

// partCounts are the counted row groups of a part file, or why they could
// not be read, or that the file is to be read row by row.
type partCounts[T any] struct {
	groups []rowGroupCounts[T]
	byRow  bool
	err    error
	path   string
	part   dataset.Partition
	dirErr error // the partition directory's error
}

// rowGroupCounts are the groups of equal rows of a row group, in the order
// of their first row: the index of each group's value in each column's
// values (keys, a group after another), and its rows; or the row group's
// rows, read one by one. The consumer builds a group's summary as it yields
// it: a worker hands over a few int32s a group, not a summary.
type rowGroupCounts[T any] struct {
	values []chunkValues
	keys   []int32
	counts []int32
	rows   []T
}

// countTable reads a table's part files on every core, each counted from
// its counts file (partcounts.go) or, without a fresh one, by countPart,
// and yields their counts in the table's order; a part file
// not laid out as cols say is read by fallback in the consumer's goroutine.
func countTable[T any](ctx context.Context, dir, table string, cols []keyColumn[T], byRow *rowGroupFallback[T], fallback func(context.Context, string, dataset.Partition, func(Counted[T], error) bool) bool) iter.Seq2[Counted[T], error] {
	return func(yield func(Counted[T], error) bool) {
		rels, err := dataset.PartFiles(dir, table)
		if err != nil {
			yield(Counted[T]{}, err)
			return
		}
		read := func(rel string) partCounts[T] {
			pc := partCounts[T]{path: filepath.Join(dir, filepath.FromSlash(rel))}
			if pc.part, pc.dirErr = dataset.PartitionOf(rel); pc.dirErr != nil {
				return pc
			}
			if err := ctx.Err(); err != nil {
				pc.err = err
				return pc
			}
			if groups, ok := storedRowGroups(dir, rel, cols); ok {
				pc.groups = groups
				return pc
			}
			pc.groups, pc.byRow, pc.err = countPart(pc.path, cols, byRow)
			return pc
		}
		for _, pc := range ordered.Map(rels, runtime.GOMAXPROCS(0), read) {
			switch {
			case pc.dirErr != nil:
				// As dataset.Turns and Runs: a bad partition
				// directory is reported and the next part file read.
				if !yield(Counted[T]{}, pc.dirErr) {
					return
				}
				continue
			case pc.err != nil:
				yield(Counted[T]{}, pc.err)
				return
			case pc.byRow:
				if !fallback(ctx, pc.path, pc.part, yield) {
					return
				}
				continue
			}
			for i := range pc.groups {
				if !yieldCounts(pc.part, cols, &pc.groups[i], yield) {
					return
				}
			}
		}
	}
}

// yieldCounts yields the counted summaries of a row group.
func yieldCounts[T any](part dataset.Partition, cols []keyColumn[T], rg *rowGroupCounts[T], yield func(Counted[T], error) bool) bool {
	for _, r := range rg.rows {
		if !yield(Counted[T]{Partition: part, Row: r, Count: 1}, nil) {
			return false
		}
	}
	// One row, reused: the setters take its address, which would move a
	// row per group to the heap. Each column sets its field (the key
	// columns fill every field a count holds), and only when its value is
	// not the previous group's: the groups past the first few of a row
	// group are refusals that differ by their feedback alone.
	row := new(T)
	var prev []int32
	for g, n := range rg.counts {
		keys := rg.keys[g*len(cols) : (g+1)*len(cols)]
		for i, v := range keys {
			if prev != nil && prev[i] == v {
				continue
			}
			c, vals := &cols[i], &rg.values[i]
			switch c.kind {
			case keyText:
				c.text(row, vals.strs[v])
			case keyInt32, keyListLen:
				c.int(row, vals.ints[v])
			case keyBool:
				c.bool(row, vals.ints[v] != 0)
			case keyTextList:
				c.list(row, vals.lists[v])
			}
		}
		prev = keys
		if !yield(Counted[T]{Partition: part, Row: *row, Count: int(n)}, nil) {
			return false
		}
	}
	return true
}

// countPart counts the rows of a part file row group by row group, or
// says it is to be read row by row.
func countPart[T any](path string, cols []keyColumn[T], byRow *rowGroupFallback[T]) ([]rowGroupCounts[T], bool, error) {
	f, pf, err := dataset.OpenPart(path, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	idx, ok := keyColumnIndexes(pf.Schema(), cols)
	if !ok {
		return nil, true, nil
	}
	st := counterStates.Get().(*counterState)
	defer counterStates.Put(st)
	for len(st.keys) < len(cols) {
		st.keys = append(st.keys, chunkKeys{})
	}
	var (
		groups = make([]rowGroupCounts[T], len(pf.RowGroups()))
		keys   = st.keys[:len(cols)]
		gb     = &st.gb
		first  int64
	)
	for gi, g := range pf.RowGroups() {
		n := int(g.NumRows())
		chunks := g.ColumnChunks()
		for i, c := range cols {
			if err := keys[i].read(chunks[idx[i]], c.kind, n); err != nil {
				return nil, false, fmt.Errorf("read %s: column %s: %w", path, c.path, err)
			}
		}
		rg := &groups[gi]
		if byRow != nil && byRow.needed(keys) {
			if rg.rows, err = byRow.read(pf, g, first); err != nil {
				return nil, false, fmt.Errorf("read %s: %w", path, err)
			}
			first += int64(n)
			continue
		}
		first += int64(n)
		gb.group(keys, n)
		rg.values = make([]chunkValues, len(cols))
		for i := range keys {
			rg.values[i] = keys[i].chunkValues
		}
		// A copy of its size: the grouping's buffer, grown to a row group's
		// groups once, is reused.
		rg.counts = slices.Clone(gb.counts)
		rg.keys = make([]int32, 0, len(gb.first)*len(cols))
		for _, r := range gb.first {
			for i := range keys {
				rg.keys = append(rg.keys, keys[i].idx[r])
			}
		}
	}
	return groups, false, nil
}
