package countcache

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"math/bits"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/cespare/xxhash/v2"
	"github.com/parquet-go/parquet-go"

	"github.com/pyharness/pyharness/classify/dataset"
	"github.com/pyharness/pyharness/internal/binfmt"
	"github.com/pyharness/pyharness/internal/ordered"
	"github.com/pyharness/pyharness/schemas"
)

// Counting a table from its Parquet columns still decompresses them, the
// feedback column most (a refusal names files, so a row group has hundreds
// of wordings). So classify, once it has written a part file, has it
// counted as Turns and Runs would (WriteCounts: countPart, with the case
// columns), and the result kept in a small file beside the tables:
// counts/<table>/<partition>/part-NNNNNN-NNNN.counts. The readers take a
// part file's counts from there when the file is there, whole, and names
// the part file as it is now; any other part file is counted from its
// columns. The counts are a cache: deleting counts/ changes no number,
// only the time it takes.
//
// A counts file names its part file by the part file's size, the xxhash64
// of its footer (the Parquet metadata) and the xxhash64 of the column
// chunks it was counted from (partID): a part file rewritten, grown, cut,
// edited in place or replaced by another of the same name is counted from
// its columns. Checking reads those chunks as they are stored, without
// decompressing them.

// countsDir is the directory of a dataset that holds the counts files.
const countsDir = "counts"

// countsMagic starts every counts file; the version follows it.
const countsMagic = "pyharness-counts"

// countsVersion is the layout of a counts file this build reads and writes.
const countsVersion = 2

// ClaimedDonePerPart is how many of a runs part file's failures that
// claimed DONE ClaimedDone lists, at most: the first of them, which its
// counts file keeps.
const ClaimedDonePerPart = 20

// countsPath is where the counts of the part file rel (relative to the
// dataset root) are kept.
func countsPath(root, rel string) string {
	return filepath.Join(root, countsDir, filepath.FromSlash(strings.TrimSuffix(rel, ".parquet")+".counts"))
}

// partID is what a counts file names its part file by: the part file's
// size, the xxhash64 of its footer, and the xxhash64 of the bytes of the
// column chunks the counts were made from (ranges, as the footer places
// them), the file's leading magic first. The counts are a function of
// those bytes alone, so a part file whose ID is the counts file's would
// be counted the same from its columns.
type partID struct {
	size   int64
	footer uint64
	ranges []byteRange
	data   uint64
}

// byteRange is a range of bytes of a file.
type byteRange struct{ off, n int64 }

// readPartID reads the ID of the part file at path, with the data hash of
// the given ranges.
func readPartID(path string, ranges []byteRange) (partID, error) {
	f, err := os.Open(path)
	if err != nil {
		return partID{}, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return partID{}, err
	}
	id := partID{size: info.Size(), ranges: ranges}
	var tail [8]byte
	if id.size < 12 {
		return partID{}, fmt.Errorf("%s: %d bytes is no Parquet file", path, id.size)
	}
	if _, err := f.ReadAt(tail[:], id.size-8); err != nil {
		return partID{}, err
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	if string(tail[4:]) != "PAR1" || n+12 > id.size {
		return partID{}, fmt.Errorf("%s: no Parquet footer", path)
	}
	footer := make([]byte, n)
	if _, err := f.ReadAt(footer, id.size-8-n); err != nil {
		return partID{}, err
	}
	id.footer = xxhash.Sum64(footer)
	h := xxhash.New()
	var head [4]byte
	if _, err := f.ReadAt(head[:], 0); err != nil {
		return partID{}, err
	}
	h.Write(head[:])
	var buf []byte
	for i := 0; i < len(ranges); {
		// Ranges a short gap apart are read at once: the chunks of a row
		// group's small columns lie side by side.
		start, end, j := ranges[i].off, ranges[i].off+ranges[i].n, i+1
		for j < len(ranges) && ranges[j].off >= end && ranges[j].off-end <= rangeGap && ranges[j].off+ranges[j].n-start <= maxRead {
			end = ranges[j].off + ranges[j].n
			j++
		}
		if start < 0 || end > id.size || end < start {
			return partID{}, fmt.Errorf("%s: a column chunk out of the file", path)
		}
		buf = slices.Grow(buf[:0], int(end-start))[:end-start]
		if _, err := f.ReadAt(buf, start); err != nil {
			return partID{}, err
		}
		for _, r := range ranges[i:j] {
			h.Write(buf[r.off-start : r.off-start+r.n])
		}
		i = j
	}
	id.data = h.Sum64()
	return id, nil
}

// rangeGap is the most bytes between two ranges readPartID reads with them,
// and maxRead the most it reads at once.
const (
	rangeGap = 16 << 10
	maxRead  = 4 << 20
)

func (id *partID) equal(o *partID) bool {
	return id.size == o.size && id.footer == o.footer && id.data == o.data && slices.Equal(id.ranges, o.ranges)
}

// countedRanges are the byte ranges of the column chunks of cols in a part
// file, row group by row group, in the file's order.
func countedRanges[T any](path string, cols []keyColumn[T]) ([]byteRange, error) {
	f, pf, err := dataset.OpenPart(path, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	idx, ok := keyColumnIndexes(pf.Schema(), cols)
	if !ok {
		return nil, nil
	}
	var ranges []byteRange
	for _, rg := range pf.Metadata().RowGroups {
		for _, i := range idx {
			if i >= len(rg.Columns) {
				return nil, fmt.Errorf("%s: a row group without column %d", path, i)
			}
			md := &rg.Columns[i].MetaData
			off := md.DataPageOffset
			if md.DictionaryPageOffset > 0 && md.DictionaryPageOffset < off {
				off = md.DictionaryPageOffset
			}
			ranges = append(ranges, byteRange{off: off, n: md.TotalCompressedSize})
		}
	}
	slices.SortFunc(ranges, func(a, b byteRange) int { return cmp.Compare(a.off, b.off) })
	return ranges, nil
}

// WriteCounts writes the counts files of the part files rels (relative to
// the dataset root), on every core. A part file that cannot be counted
// from its columns (a row group of turns without feedback, a layout not
// classify's) gets none, and its old one, if any, goes.
func WriteCounts(ctx context.Context, root string, rels []string) error {
	write := func(rel string) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		data, err := encodePartCounts(ctx, root, rel)
		if err != nil {
			return fmt.Errorf("count %s: %w", rel, err)
		}
		path := countsPath(root, rel)
		if data == nil {
			return RemoveCounts(root, rel)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("write counts: %w", err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return fmt.Errorf("write counts: %w", err)
		}
		return nil
	}
	var first error
	for _, err := range ordered.Map(rels, runtime.GOMAXPROCS(0), write) {
		if err != nil && first == nil {
			first = err
		}
	}
	return first
}

// RemoveCounts removes the counts file of the part file rel, if any.
func RemoveCounts(root, rel string) error {
	if err := os.Remove(countsPath(root, rel)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove counts: %w", err)
	}
	return nil
}

// RemoveOrphanCounts removes the counts files of part files that are not
// live (relative to the dataset root, as the state lists them): those of a
// classify that did not commit.
func RemoveOrphanCounts(root string, live map[string]bool) error {
	dir := filepath.Join(root, countsDir)
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() || !strings.HasSuffix(d.Name(), ".counts") {
			return nil
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		if !live[strings.TrimSuffix(filepath.ToSlash(rel), ".counts")+".parquet"] {
			return os.Remove(path)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("remove orphan counts: %w", err)
	}
	return nil
}

// encodePartCounts is the counts file of the part file rel, or nil when it
// is to be counted from its columns.
func encodePartCounts(ctx context.Context, root, rel string) ([]byte, error) {
	table, _, _ := strings.Cut(rel, "/")
	path := filepath.Join(root, filepath.FromSlash(rel))
	switch table {
	case dataset.TurnsTable:
		cols := turnKeyColumns
		id, err := countedPartID(path, cols)
		if err != nil || id == nil {
			return nil, err
		}
		same := func(t dataset.TurnSummary) dataset.TurnSummary { return t }
		groups, byRow, err := countPart(path, cols, turnsByRow(keyColumnAt(cols, "kind"), keyColumnAt(cols, "feedback"), same))
		if err != nil || !countedByGroups(byRow, groups) {
			return nil, err
		}
		return encodeCounts(id, cols, groups, nil), nil
	case dataset.RunsTable:
		id, err := countedPartID(path, runKeyColumns)
		if err != nil || id == nil {
			return nil, err
		}
		groups, byRow, err := countPart(path, runKeyColumns, nil)
		if err != nil || !countedByGroups(byRow, groups) {
			return nil, err
		}
		part, err := dataset.PartitionOf(rel)
		if err != nil {
			return nil, err
		}
		ex := &claimedDone{all: true}
		var readErr error
		readRunSummaries(ctx, path, part, func(r dataset.Partitioned[dataset.RunSummary], err error) bool {
			switch {
			case err != nil:
				readErr = err
				return false
			case !isClaimedDone(&r.Row):
				return true
			case len(ex.runs) == ClaimedDonePerPart:
				ex.all = false // there are more than it keeps
				return false
			}
			ex.runs = append(ex.runs, r.Row)
			return true
		})
		if readErr != nil {
			return nil, readErr
		}
		return encodeCounts(id, runKeyColumns, groups, ex), nil
	}
	return nil, nil
}

// countedPartID is the ID of a part file for its counts by cols, nil when
// its columns are not laid out as classify writes them.
func countedPartID[T any](path string, cols []keyColumn[T]) (*partID, error) {
	ranges, err := countedRanges(path, cols)
	if err != nil || ranges == nil {
		return nil, err
	}
	id, err := readPartID(path, ranges)
	return &id, err
}

// countedByGroups reports whether every row group of a part file was
// counted by groups of equal rows, none read row by row.
func countedByGroups[T any](byRow bool, groups []rowGroupCounts[T]) bool {
	if byRow {
		return false
	}
	for i := range groups {
		if groups[i].rows != nil {
			return false
		}
	}
	return true
}

// isClaimedDone reports whether a run failed claiming DONE.
func isClaimedDone(r *dataset.RunSummary) bool {
	return r.Verdict == schemas.VerdictFailed && r.ClaimedDone
}

// claimedDone are the first failures that claimed DONE of a runs part file,
// and whether they are all of them.
type claimedDone struct {
	runs []dataset.RunSummary
	all  bool
}

// A counts file, every number an unsigned varint unless said otherwise:
//
//	"pyharness-counts", the version (a byte)
//	the part file's ID (partID): its size; the xxhash64 of its footer (8
//	  bytes, little-endian); the ranges counted: their number, each its
//	  offset from the end of the one before and its length; the xxhash64 of
//	  the file's first 4 bytes and the ranges' bytes (8 bytes)
//	the strings: their number; each one's length; then all their bytes
//	two sections, the counts by the columns without the case columns, then
//	  by all of them (Options.Cases), each: its length in bytes; its
//	  columns (their number; each its path, as a length and bytes, and
//	  keyKind); its row groups: their number; for each, for each column
//	  its values (text: their number, each a string's index; a number, a
//	  boolean or a list's length: their number, each zigzag-encoded; a
//	  list of text: their number, each its length and its strings'
//	  indexes), then its groups: their number, and each a mask of the
//	  columns whose value differs from the group before's (the first
//	  group's from index 0), those values' indexes, and its rows
//	for a runs part file, 1 and its first failures that claimed DONE (1
//	  if they are all of them, their number, each a RunSummary); else 0
//	the xxhash64 of all the bytes before it (8 bytes, little-endian)
//
// Most groups of turns past a row group's first few are refusals that
// differ by their feedback alone: a mask and one index each.

// countsEncoder writes the parts of a counts file, and the strings they
// name by index.
type countsEncoder struct {
	body  []byte
	index map[string]uint64
	strs  []string
}

func (e *countsEncoder) uint(v uint64) { e.body = binary.AppendUvarint(e.body, v) }
func (e *countsEncoder) int(v int64)   { e.body = binary.AppendVarint(e.body, v) }

func (e *countsEncoder) str(s string) {
	i, ok := e.index[s]
	if !ok {
		i = uint64(len(e.strs))
		e.index[s] = i
		e.strs = append(e.strs, s)
	}
	e.uint(i)
}

func (e *countsEncoder) strList(l []string) {
	e.uint(uint64(len(l)))
	for _, s := range l {
		e.str(s)
	}
}

// section appends the counts of a part file's row groups by the columns
// paths (of kinds), and its length before them.
func (e *countsEncoder) section(paths []string, kinds []keyKind, groups []storedGroup) {
	outer := e.body
	e.body = nil
	e.uint(uint64(len(paths)))
	for i, p := range paths {
		e.uint(uint64(len(p)))
		e.body = append(e.body, p...)
		e.uint(uint64(kinds[i]))
	}
	e.uint(uint64(len(groups)))
	ncols := len(paths)
	for gi := range groups {
		g := &groups[gi]
		for i, kind := range kinds {
			vals := &g.values[i]
			switch kind {
			case keyText:
				e.uint(uint64(len(vals.strs)))
				for _, s := range vals.strs {
					e.str(s)
				}
			case keyTextList:
				e.uint(uint64(len(vals.lists)))
				for _, l := range vals.lists {
					e.strList(l)
				}
			default:
				e.uint(uint64(len(vals.ints)))
				for _, v := range vals.ints {
					e.int(int64(v))
				}
			}
		}
		e.uint(uint64(len(g.counts)))
		prev := make([]int32, ncols)
		for k, n := range g.counts {
			keys := g.keys[k*ncols : (k+1)*ncols]
			var mask uint64
			for i := range keys {
				if keys[i] != prev[i] {
					mask |= 1 << i
				}
			}
			e.uint(mask)
			for i := range keys {
				if mask&(1<<i) != 0 {
					e.uint(uint64(keys[i]))
				}
			}
			e.uint(uint64(n))
			prev = keys
		}
	}
	sec := e.body
	e.body = binary.AppendUvarint(outer, uint64(len(sec)))
	e.body = append(e.body, sec...)
}

// encodeCounts is the counts file of a part file of size bytes and footer
// hash, counted by countPart by cols (every key column of its table), and
// for a runs part file its first failures that claimed DONE.
func encodeCounts[T any](id *partID, cols []keyColumn[T], groups []rowGroupCounts[T], ex *claimedDone) []byte {
	e := &countsEncoder{index: map[string]uint64{}}
	paths, kinds := make([]string, len(cols)), make([]keyKind, len(cols))
	var plain []int // the columns but the case columns
	for i, c := range cols {
		paths[i], kinds[i] = c.path, c.kind
		if !c.cases {
			plain = append(plain, i)
		}
	}
	all := make([]storedGroup, len(groups))
	for i := range groups {
		all[i] = storedGroup{values: groups[i].values, keys: groups[i].keys, counts: groups[i].counts}
	}
	merged := make([]storedGroup, len(all))
	for i := range all {
		merged[i] = all[i].merge(plain)
	}
	e.section(pick(paths, plain), pick(kinds, plain), merged)
	e.section(paths, kinds, all)
	if ex == nil {
		e.uint(0)
	} else {
		e.uint(1)
		e.uint(uint64(boolIndex(ex.all)))
		e.uint(uint64(len(ex.runs)))
		for i := range ex.runs {
			e.runSummary(&ex.runs[i])
		}
	}

	out := append([]byte(countsMagic), byte(countsVersion))
	out = binary.AppendUvarint(out, uint64(id.size))
	out = binary.LittleEndian.AppendUint64(out, id.footer)
	out = binary.AppendUvarint(out, uint64(len(id.ranges)))
	at := int64(0)
	for _, r := range id.ranges {
		out = binary.AppendUvarint(out, uint64(r.off-at))
		out = binary.AppendUvarint(out, uint64(r.n))
		at = r.off + r.n
	}
	out = binary.LittleEndian.AppendUint64(out, id.data)
	out = binary.AppendUvarint(out, uint64(len(e.strs)))
	for _, s := range e.strs {
		out = binary.AppendUvarint(out, uint64(len(s)))
	}
	for _, s := range e.strs {
		out = append(out, s...)
	}
	out = append(out, e.body...)
	return binary.LittleEndian.AppendUint64(out, xxhash.Sum64(out))
}

func pick[E any](s []E, at []int) []E {
	out := make([]E, len(at))
	for i, j := range at {
		out[i] = s[j]
	}
	return out
}

func (e *countsEncoder) runSummary(r *dataset.RunSummary) {
	e.str(r.RunID)
	e.str(r.CaseID)
	e.int(int64(r.Tier))
	e.int(int64(r.Pass))
	e.str(string(r.Verdict))
	e.str(string(r.FailureClass))
	e.uint(uint64(boolIndex(r.ClaimedDone)))
	e.str(string(r.StopReason))
	e.int(int64(r.ModelSteps))
	e.int(int64(r.Turns))
	e.uint(uint64(len(r.Writes)))
	for _, w := range r.Writes {
		e.str(w.Path)
		e.int(int64(w.Added))
		e.int(int64(w.Removed))
	}
	e.str(r.FirstFailure)
	e.strList(r.Tags)
}

// storedGroup is a rowGroupCounts without its type: the values of each
// column, each group's index into them (a group after another), and each
// group's rows.
type storedGroup struct {
	values []chunkValues
	keys   []int32
	counts []int32
}

// merge is the counts of the row group by the columns at only: the groups
// that differ by the other columns alone are one, in the order of their
// first row, as countPart groups the rows by those columns.
func (g *storedGroup) merge(at []int) storedGroup {
	ncols := len(g.values)
	out := storedGroup{values: pick(g.values, at)}
	merged := map[string]int32{}
	var key []byte
	for k, n := range g.counts {
		keys := g.keys[k*ncols : (k+1)*ncols]
		key = key[:0]
		for _, j := range at {
			key = binary.LittleEndian.AppendUint32(key, uint32(keys[j]))
		}
		if m, ok := merged[string(key)]; ok {
			out.counts[m] += n
			continue
		}
		merged[string(key)] = int32(len(out.counts))
		out.counts = append(out.counts, n)
		for _, j := range at {
			out.keys = append(out.keys, keys[j])
		}
	}
	return out
}

// countsDecoder reads a counts file: binfmt's Reader (past the first
// number that does not read it reads zeros), the file's strings, and
// whether a value was out of range.
type countsDecoder struct {
	binfmt.Reader
	strs  []string
	wrong bool
}

// bad reports whether the file was cut short or held a wrong value.
func (d *countsDecoder) bad() bool { return d.wrong || d.Short() }

func (d *countsDecoder) int32() int32 {
	v := d.Varint()
	if int64(int32(v)) != v {
		d.wrong = true
	}
	return int32(v)
}

func (d *countsDecoder) str() string {
	i := d.Uvarint()
	if i >= uint64(len(d.strs)) {
		d.wrong = true
		return ""
	}
	return d.strs[i]
}

func (d *countsDecoder) strList() []string {
	l := make([]string, d.Count())
	for i := range l {
		l[i] = d.str()
	}
	return l
}

func (d *countsDecoder) runSummary() dataset.RunSummary {
	r := dataset.RunSummary{RunID: d.str(), CaseID: d.str(), Tier: d.int32(), Pass: d.int32(),
		Verdict: schemas.Verdict(d.str()), FailureClass: schemas.FailureClass(d.str()), ClaimedDone: d.Uvarint() == 1,
		StopReason: schemas.StopReason(d.str()), ModelSteps: d.int32(), Turns: d.int32()}
	r.Writes = make([]dataset.Write, d.Count()) // empty, not nil, as the column reader's
	for i := range r.Writes {
		r.Writes[i] = dataset.Write{Path: d.str(), Added: d.int32(), Removed: d.int32()}
	}
	r.FirstFailure = d.str()
	r.Tags = d.strList()
	return r
}

// openCounts reads the counts file of the part file rel up to its
// sections, which it returns with a decoder at the first, and reports
// false when there is none, or it is damaged, of another version, or names
// another part file than the one there now.
func openCounts(root, rel string) (*countsDecoder, bool) {
	data, err := os.ReadFile(countsPath(root, rel))
	if err != nil || len(data) < len(countsMagic)+1+8 {
		return nil, false
	}
	body, sum := data[:len(data)-8], binary.LittleEndian.Uint64(data[len(data)-8:])
	if xxhash.Sum64(body) != sum || string(body[:len(countsMagic)]) != countsMagic || body[len(countsMagic)] != countsVersion {
		return nil, false
	}
	d := &countsDecoder{Reader: *binfmt.NewReader(body[len(countsMagic)+1:])}
	want := partID{size: int64(d.Uvarint())}
	want.footer = d.Uint64()
	want.ranges = make([]byteRange, d.Count())
	at := int64(0)
	for i := range want.ranges {
		off := at + int64(d.Uvarint())
		want.ranges[i] = byteRange{off: off, n: int64(d.Uvarint())}
		at = off + want.ranges[i].n
	}
	want.data = d.Uint64()
	if d.bad() {
		return nil, false
	}
	if id, err := readPartID(filepath.Join(root, filepath.FromSlash(rel)), want.ranges); err != nil || !id.equal(&want) {
		return nil, false
	}
	// The strings share one allocation, as a dictionary's do (Turns).
	lens := make([]int, d.Count())
	total := 0
	for i := range lens {
		lens[i] = d.Count()
		total += lens[i]
	}
	all := string(d.Bytes(total))
	if d.bad() {
		return nil, false
	}
	d.strs = make([]string, len(lens))
	for i, n := range lens {
		d.strs[i], all = all[:n], all[n:]
	}
	return d, true
}

// storedRowGroups are the counts of the part file rel by cols, from its
// counts file: the section counted by the same columns.
func storedRowGroups[T any](root, rel string, cols []keyColumn[T]) ([]rowGroupCounts[T], bool) {
	d, ok := openCounts(root, rel)
	if !ok {
		return nil, false
	}
	for range 2 {
		sec := &countsDecoder{Reader: *binfmt.NewReader(d.Bytes(d.Count())), strs: d.strs}
		if d.bad() {
			return nil, false
		}
		if groups, ok := readSection(sec, cols); ok {
			return groups, !sec.bad()
		}
	}
	return nil, false
}

// readSection reads a section of a counts file if it counts by cols, and
// reports false when it does not, or is damaged.
func readSection[T any](d *countsDecoder, cols []keyColumn[T]) ([]rowGroupCounts[T], bool) {
	if d.Count() != len(cols) {
		return nil, false
	}
	for _, c := range cols {
		if string(d.Bytes(d.Count())) != c.path || keyKind(d.Uvarint()) != c.kind {
			return nil, false
		}
	}
	ncols := len(cols)
	groups := make([]rowGroupCounts[T], d.Count())
	distinct := make([]int, ncols)
	for gi := range groups {
		rg := &groups[gi]
		rg.values = make([]chunkValues, ncols)
		for i, c := range cols {
			vals := &rg.values[i]
			n := d.Count()
			distinct[i] = n
			switch c.kind {
			case keyText:
				vals.strs = make([]string, n)
				for j := range vals.strs {
					vals.strs[j] = d.str()
				}
			case keyTextList:
				vals.lists = make([][]string, n)
				for j := range vals.lists {
					vals.lists[j] = d.strList()
				}
			default:
				vals.ints = make([]int32, n)
				for j := range vals.ints {
					vals.ints[j] = d.int32()
				}
			}
		}
		n := d.Count()
		rg.counts = make([]int32, n)
		rg.keys = make([]int32, n*ncols)
		prev := make([]int32, ncols)
		for j := range n {
			keys := rg.keys[j*ncols : (j+1)*ncols]
			copy(keys, prev)
			mask := d.Uvarint()
			if mask>>ncols != 0 {
				return nil, false
			}
			for ; mask != 0; mask &= mask - 1 {
				i := bits.TrailingZeros64(mask)
				keys[i] = int32(d.Uvarint())
			}
			for i, k := range keys {
				if int(k) >= distinct[i] || k < 0 {
					return nil, false
				}
			}
			rg.counts[j] = int32(d.Uvarint())
			prev = keys
		}
		if d.bad() {
			return nil, false
		}
	}
	return groups, true
}

// storedClaimedDone is the failures that claimed DONE the counts file of
// the runs part file rel lists, and false when there is no such file, or
// it lists none.
func storedClaimedDone(root, rel string) (*claimedDone, bool) {
	d, ok := openCounts(root, rel)
	if !ok {
		return nil, false
	}
	d.Bytes(d.Count()) // the sections
	d.Bytes(d.Count())
	if d.Uvarint() != 1 {
		return nil, false
	}
	done := &claimedDone{all: d.Uvarint() == 1}
	done.runs = make([]dataset.RunSummary, d.Count())
	for i := range done.runs {
		done.runs[i] = d.runSummary()
	}
	return done, !d.bad() && d.Len() == 0
}

// ClaimedDone streams the runs of a dataset that failed claiming DONE, in
// the table's order: the first ClaimedDonePerPart of each part file, from
// the part file's counts when they are fresh, else from its columns, read
// until it has them.
func ClaimedDone(ctx context.Context, dir string) iter.Seq2[dataset.Partitioned[dataset.RunSummary], error] {
	return claimedDoneRuns(ctx, dir, ClaimedDonePerPart)
}

// claimedDoneRuns is ClaimedDone with at most perPart of each part file:
// the counts file serves when it lists that many or all of them.
func claimedDoneRuns(ctx context.Context, dir string, perPart int) iter.Seq2[dataset.Partitioned[dataset.RunSummary], error] {
	return dataset.ReadTable(ctx, dir, dataset.RunsTable, func(ctx context.Context, dir, rel string, part dataset.Partition, yield func(dataset.Partitioned[dataset.RunSummary], error) bool) bool {
		return readClaimedDone(ctx, dir, rel, part, perPart, yield)
	})
}

// readClaimedDone yields the first perPart runs of the part file rel that
// failed claiming DONE; it returns false when the consumer stopped.
func readClaimedDone(ctx context.Context, dir, rel string, part dataset.Partition, perPart int, yield func(dataset.Partitioned[dataset.RunSummary], error) bool) bool {
	if perPart <= 0 {
		return true
	}
	if done, ok := storedClaimedDone(dir, rel); ok && (done.all || len(done.runs) >= perPart) {
		for i := range done.runs[:min(perPart, len(done.runs))] {
			if !yield(dataset.Partitioned[dataset.RunSummary]{Partition: part, Row: done.runs[i]}, nil) {
				return false
			}
		}
		return true
	}
	n, stopped := 0, false
	readRunSummaries(ctx, filepath.Join(dir, filepath.FromSlash(rel)), part, func(r dataset.Partitioned[dataset.RunSummary], err error) bool {
		if err == nil && !isClaimedDone(&r.Row) {
			return true
		}
		if err == nil {
			n++
		}
		if !yield(r, err) {
			stopped = true
			return false
		}
		return err == nil && n < perPart
	})
	return !stopped
}
