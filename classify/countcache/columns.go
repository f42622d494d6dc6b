package countcache

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/pyharness/pyharness/classify/dataset"
	"github.com/pyharness/pyharness/schemas"
)

// The column readers below read the summary columns of a row group page by
// page, turn each dictionary into strings once, and fill the rows from the
// dictionary indexes, where parquet-go's row reader rebuilds a Go row per
// row from its columns and converts it from the file's schema to the
// summary's. They read the runs' failures that claimed DONE (ClaimedDone,
// WriteCounts) and the turns of a row group counted row by row
// (turnsByRow).

// A column is a leaf column of a table that a summary row holds, with the
// physical type it must have to be read page by page and where its values
// go: str or set for a required column, elem and none for the elements
// of a list (the i-th of the row's list, counted from 0).
type column[T any] struct {
	path string // dotted: "writes.list.element.path"
	kind parquet.Kind
	str  func(r *T, s string) // a required string column
	set  func(r *T, v parquet.Value)
	elem func(r *T, i int, v parquet.Value)
	// none is called for an empty list: parquet-go's row reader gives an
	// empty slice, not nil, and the summaries are the same either way.
	none func(r *T)
}

// text is a required string column: a dictionary page gives its strings,
// made once per dictionary (and shared between the dictionaries of a
// batch); a plain page, written for values that are mostly distinct, a
// string per value.
func text[T any, S ~string](path string, field func(*T) *S) column[T] {
	return column[T]{path: path, kind: parquet.ByteArray, str: func(r *T, s string) { *field(r) = S(s) }}
}

func int32s[T any](path string, field func(*T) *int32) column[T] {
	return column[T]{path: path, kind: parquet.Int32, set: func(r *T, v parquet.Value) { *field(r) = v.Int32() }}
}

func bools[T any](path string, field func(*T) *bool) column[T] {
	return column[T]{path: path, kind: parquet.Boolean, set: func(r *T, v parquet.Value) { *field(r) = v.Boolean() }}
}

// turnSummaryColumns are the columns of TurnSummary.
var turnSummaryColumns = []column[dataset.TurnSummary]{
	text("case_id", func(t *dataset.TurnSummary) *string { return &t.CaseID }),
	int32s("tier", func(t *dataset.TurnSummary) *int32 { return &t.Tier }),
	text("kind", func(t *dataset.TurnSummary) *schemas.Kind { return &t.Kind }),
	text("code", func(t *dataset.TurnSummary) *schemas.Code { return &t.Code }),
	text("label_from", func(t *dataset.TurnSummary) *string { return &t.LabelFrom }),
	text("feedback", func(t *dataset.TurnSummary) *string { return &t.Feedback }),
	text("verb", func(t *dataset.TurnSummary) *string { return &t.Verb }),
	text("shape", func(t *dataset.TurnSummary) *string { return &t.Shape }),
	text("status", func(t *dataset.TurnSummary) *schemas.Status { return &t.Status }),
	text("outcome_code", func(t *dataset.TurnSummary) *schemas.Code { return &t.OutcomeCode }),
	bools("model_step", func(t *dataset.TurnSummary) *bool { return &t.ModelStep }),
	text("reasoning_source", func(t *dataset.TurnSummary) *string { return &t.ReasoningSource }),
	int32s("reasoning_tokens", func(t *dataset.TurnSummary) *int32 { return &t.ReasoningTokens }),
	{path: "warning_codes.list.element", kind: parquet.ByteArray, elem: func(t *dataset.TurnSummary, _ int, v parquet.Value) {
		t.WarningCodes = append(t.WarningCodes, string(v.ByteArray()))
	}, none: func(t *dataset.TurnSummary) { t.WarningCodes = []string{} }},
}

// writeAt returns the i-th write of a run, growing the list to hold it:
// the three columns of a write fill it in turn.
func writeAt(r *dataset.RunSummary, i int) *dataset.Write {
	for len(r.Writes) <= i {
		r.Writes = append(r.Writes, dataset.Write{})
	}
	return &r.Writes[i]
}

// runSummaryColumns are the columns of RunSummary.
var runSummaryColumns = []column[dataset.RunSummary]{
	text("run_id", func(r *dataset.RunSummary) *string { return &r.RunID }),
	text("case_id", func(r *dataset.RunSummary) *string { return &r.CaseID }),
	int32s("tier", func(r *dataset.RunSummary) *int32 { return &r.Tier }),
	int32s("pass", func(r *dataset.RunSummary) *int32 { return &r.Pass }),
	text("verdict", func(r *dataset.RunSummary) *schemas.Verdict { return &r.Verdict }),
	text("failure_class", func(r *dataset.RunSummary) *schemas.FailureClass { return &r.FailureClass }),
	bools("claimed_done", func(r *dataset.RunSummary) *bool { return &r.ClaimedDone }),
	text("stop_reason", func(r *dataset.RunSummary) *schemas.StopReason { return &r.StopReason }),
	int32s("model_steps", func(r *dataset.RunSummary) *int32 { return &r.ModelSteps }),
	int32s("turns", func(r *dataset.RunSummary) *int32 { return &r.Turns }),
	{path: "writes.list.element.path", kind: parquet.ByteArray, elem: func(r *dataset.RunSummary, i int, v parquet.Value) {
		writeAt(r, i).Path = string(v.ByteArray())
	}, none: func(r *dataset.RunSummary) { r.Writes = []dataset.Write{} }},
	{path: "writes.list.element.added", kind: parquet.Int32, elem: func(r *dataset.RunSummary, i int, v parquet.Value) {
		writeAt(r, i).Added = v.Int32()
	}},
	{path: "writes.list.element.removed", kind: parquet.Int32, elem: func(r *dataset.RunSummary, i int, v parquet.Value) {
		writeAt(r, i).Removed = v.Int32()
	}},
	text("first_failure", func(r *dataset.RunSummary) *string { return &r.FirstFailure }),
	{path: "tags.list.element", kind: parquet.ByteArray, elem: func(r *dataset.RunSummary, i int, v parquet.Value) {
		r.Tags = append(r.Tags, string(v.ByteArray()))
	}, none: func(r *dataset.RunSummary) { r.Tags = []string{} }},
}

// columnIndexes returns the leaf column index of each of cols in a file's
// schema, or false when one is missing or is not laid out as classify
// writes it (a required column, or a required list of required elements,
// of the expected type): such a file is read row by row, as a part file
// written before the feedback column existed is.
func columnIndexes[T any](s *parquet.Schema, cols []column[T]) ([]int, bool) {
	idx := make([]int, len(cols))
	for i, c := range cols {
		leaf, ok := s.Lookup(strings.Split(c.path, ".")...)
		depth := 0
		if c.elem != nil {
			depth = 1
		}
		if !ok || leaf.MaxRepetitionLevel != depth || leaf.MaxDefinitionLevel != depth || leaf.Node.Type().Kind() != c.kind {
			return nil, false
		}
		idx[i] = leaf.ColumnIndex
	}
	return idx, true
}

// readRunSummaries reads a runs part file as RunSummary rows, one row
// group at a time, when the consumer reaches it: a consumer that stops
// after the first few runs (the failures that claimed DONE) reads no more
// of the file. A file whose columns are not laid out as classify writes
// them is read by parquet-go's row reader.
func readRunSummaries(ctx context.Context, path string, part dataset.Partition, yield func(dataset.Partitioned[dataset.RunSummary], error) bool) bool {
	f, pf, err := dataset.OpenPart(path, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return yield(dataset.Partitioned[dataset.RunSummary]{}, err)
	}
	defer f.Close()
	idx, ok := columnIndexes(pf.Schema(), runSummaryColumns)
	if !ok {
		return dataset.ReadPart(ctx, path, part, nil, yield)
	}
	for _, g := range pf.RowGroups() {
		if err := ctx.Err(); err != nil {
			yield(dataset.Partitioned[dataset.RunSummary]{}, err)
			return false
		}
		var cr columnReader // its strings interned for this row group only
		rows, err := readColumns(&cr, []parquet.RowGroup{g}, runSummaryColumns, idx)
		if err != nil {
			yield(dataset.Partitioned[dataset.RunSummary]{}, fmt.Errorf("read %s: %w", path, err))
			return false
		}
		for i := range rows {
			if !yield(dataset.Partitioned[dataset.RunSummary]{Partition: part, Row: rows[i]}, nil) {
				return false
			}
		}
	}
	return true
}

// columnReader reads column chunks page by page. It keeps the strings it
// made of dictionaries, so that a value repeated across row groups (a case
// id, a kind) is one string, not one per row group.
type columnReader struct {
	values  []parquet.Value
	dict    parquet.Dictionary // whose entries strs holds
	strs    []string
	interns map[string]string
}

func (cr *columnReader) intern(b []byte) string {
	if s, ok := cr.interns[string(b)]; ok {
		return s
	}
	if cr.interns == nil {
		cr.interns = map[string]string{}
	}
	s := string(b)
	cr.interns[s] = s
	return s
}

// dictStrings returns a dictionary's entries as strings.
func (cr *columnReader) dictStrings(d parquet.Dictionary) []string {
	if d != cr.dict {
		cr.dict, cr.strs = d, cr.strs[:0]
		for k := range d.Len() {
			cr.strs = append(cr.strs, cr.intern(d.Index(int32(k)).ByteArray()))
		}
	}
	return cr.strs
}

// readColumns reads the rows of row groups, column by column.
func readColumns[T any](cr *columnReader, groups []parquet.RowGroup, cols []column[T], idx []int) ([]T, error) {
	n := 0
	for _, g := range groups {
		n += int(g.NumRows())
	}
	rows := make([]T, n)
	at := 0
	for _, g := range groups {
		chunks := g.ColumnChunks()
		into := rows[at : at+int(g.NumRows())]
		for i, c := range cols {
			if err := readChunk(cr, chunks[idx[i]], into, c); err != nil {
				return nil, fmt.Errorf("column %s: %w", c.path, err)
			}
		}
		at += len(into)
	}
	return rows, nil
}

var errColumnLength = errors.New("the column's pages do not hold the row group's rows")

// readChunk reads a column chunk into the rows of its row group.
func readChunk[T any](cr *columnReader, chunk parquet.ColumnChunk, rows []T, c column[T]) error {
	cr.dict = nil // a column chunk has a dictionary of its own
	i := 0        // the row the next value of a required column goes to
	row, elem := -1, 0
	err := eachPage(chunk, func(p parquet.Page) error {
		var bad error
		switch d := p.Dictionary(); {
		case c.elem != nil:
			err := cr.eachValue(p, func(v parquet.Value) {
				if v.RepetitionLevel() == 0 {
					row, elem = row+1, 0
				}
				if row < 0 || row >= len(rows) {
					bad = errColumnLength
					return
				}
				switch {
				case v.DefinitionLevel() == 1:
					c.elem(&rows[row], elem, v)
					elem++
				case c.none != nil:
					c.none(&rows[row])
				}
			})
			if err != nil {
				return err
			}
		case p.NumNulls() != 0 || i+int(p.NumValues()) > len(rows):
			return errColumnLength
		case d != nil && c.str != nil:
			strs := cr.dictStrings(d)
			data := p.Data()
			for _, k := range data.Int32() {
				if k < 0 || int(k) >= len(strs) {
					return fmt.Errorf("dictionary index %d of a dictionary of %d", k, len(strs))
				}
				c.str(&rows[i], strs[k])
				i++
			}
		default:
			err := cr.eachValue(p, func(v parquet.Value) {
				if c.str != nil {
					c.str(&rows[i], string(v.ByteArray()))
				} else {
					c.set(&rows[i], v)
				}
				i++
			})
			if err != nil {
				return err
			}
		}
		return bad
	})
	if err != nil {
		return err
	}
	if c.elem != nil {
		i = row + 1
	}
	if i != len(rows) {
		return errColumnLength
	}
	return nil
}

// eachPage calls f with each page of a column chunk, in order, releasing
// each page after: the page loop of both readers of a chunk (readChunk,
// which fills rows, and chunkKeys, which keys them for counting).
func eachPage(chunk parquet.ColumnChunk, f func(parquet.Page) error) error {
	pages := chunk.Pages()
	defer pages.Close()
	for {
		p, err := pages.ReadPage()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		err = f(p)
		parquet.Release(p)
		if err != nil {
			return err
		}
	}
}

// eachValue calls f for each value of a page, in order.
func (cr *columnReader) eachValue(p parquet.Page, f func(parquet.Value)) error {
	return eachValue(p, &cr.values, f)
}

// valuesPerRead is how many values of a page are read at once: a row
// group's worth, as classify writes them.
const valuesPerRead = 8192

// eachValue calls f for each value of a page, in order, reading them into
// *buf (made the first time).
func eachValue(p parquet.Page, buf *[]parquet.Value, f func(parquet.Value)) error {
	if *buf == nil {
		*buf = make([]parquet.Value, valuesPerRead)
	}
	r := p.Values()
	for {
		n, err := r.ReadValues(*buf)
		for _, v := range (*buf)[:n] {
			f(v)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// readTurnSummaries reads a turns part file as TurnSummary rows through
// parquet-go's row reader, for a file whose columns cannot be counted page
// by page. A refusal, nudge or parse failure with no feedback (in a part
// file written before the column existed, or copied from one) has it
// computed from its messages, which are read for those rows' batches only.
func readTurnSummaries(ctx context.Context, path string, part dataset.Partition, yield func(dataset.Partitioned[dataset.TurnSummary], error) bool) bool {
	var fb feedbackFiller
	defer fb.close()
	return dataset.ReadPart(ctx, path, part, fb.fill, yield)
}

// turnMessages is the messages column of a turns row.
type turnMessages struct {
	Messages []dataset.MessageRow `parquet:"messages,list"`
}

// feedbackFiller computes the feedback of the turn summaries of one part
// file that lack it. It opens its reader of the messages at the first batch
// that needs them, and seeks it forward past the batches that do not.
type feedbackFiller struct {
	msgs *parquet.GenericReader[turnMessages]
	buf  []turnMessages
}

func lacksFeedback(t dataset.TurnSummary) bool {
	return t.Feedback == "" && dataset.HasFeedback(t.Kind)
}

func (fb *feedbackFiller) fill(f *parquet.File, first int64, rows []dataset.TurnSummary) error {
	if !slices.ContainsFunc(rows, lacksFeedback) {
		return nil
	}
	if fb.msgs == nil {
		fb.msgs = parquet.NewGenericReader[turnMessages](f)
	}
	if err := fb.msgs.SeekToRow(first); err != nil {
		return fmt.Errorf("read messages for the feedback: %w", err)
	}
	fb.buf = slices.Grow(fb.buf[:0], len(rows))[:len(rows)]
	clear(fb.buf)
	n, err := fb.msgs.Read(fb.buf)
	if n < len(rows) {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return fmt.Errorf("read messages for the feedback: %w", err)
	}
	for i := range rows {
		if lacksFeedback(rows[i]) {
			rows[i].Feedback = dataset.FeedbackOfRows(rows[i].Kind, fb.buf[i].Messages)
		}
	}
	return nil
}

func (fb *feedbackFiller) close() {
	if fb.msgs != nil {
		fb.msgs.Close()
	}
}
