package countcache

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
	"slices"
	"sync"

	"github.com/parquet-go/parquet-go"
)

// The grouping of a row group's rows by their columns' value indexes, and
// the readers that turn a column chunk's pages into those indexes, for
// Turns and Runs (counts.go).

// counterState is what countPart reuses from part file to part file: the
// buffers of its columns and of its grouping.
type counterState struct {
	keys []chunkKeys
	gb   groupBy
}

var counterStates = sync.Pool{New: func() any { return new(counterState) }}

// groupBy groups the rows of a row group by their keys.
type groupBy struct {
	id     []int32 // the group of each row
	first  []int32 // the first row of each group, in the order they occur
	counts []int32 // the rows of each group
	order  []int   // the columns in the order they are combined
	dense  []int32
	sparse map[int64]int32
	// packed is each row's keys side by side in one number, and slots
	// and slotKeys the hash table that numbers them (packedGroup).
	packed   []uint64
	slots    []int32
	slotKeys []uint64
}

// denseGroups bounds the table that numbers the combinations of keys met
// so far; past it a map numbers them.
const denseGroups = 1 << 16

// group numbers the distinct combinations of keys of n rows in the order
// they first occur. Columns are folded into one number per row (id × width
// + index) while the combinations fit in denseGroups; then the numbers are
// made dense again, or, for a column too wide even so, combined through a
// map. The widest column goes first: the others seldom split its values
// (a refusal's feedback comes with one kind and code), so the numbers
// stay dense.
//
// When every column's indexes fit in one 64-bit number side by side (a
// turns row group's do: a dozen columns of a few values each and the
// feedback's thousand or so), packedGroup numbers the rows instead: one
// pass a column, then one pass through a hash table, where this takes a
// pass a column and one or more renumbering passes through scattered
// tables.
func (gb *groupBy) group(keys []chunkKeys, n int) {
	if gb.packedGroup(keys, n) {
		return
	}
	gb.id = slices.Grow(gb.id[:0], n)[:n]
	clear(gb.id)
	gb.order = gb.order[:0]
	for i := range keys {
		if keys[i].distinct() > 1 {
			gb.order = append(gb.order, i)
		}
	}
	slices.SortStableFunc(gb.order, func(a, b int) int { return keys[b].distinct() - keys[a].distinct() })
	space := 1 // every id is below it
	for _, i := range gb.order {
		k := &keys[i]
		width := k.distinct()
		if space*width > denseGroups && space > 1 {
			space = gb.renumber(space)
		}
		if space*width <= denseGroups {
			w := int32(width)
			for r, x := range k.idx {
				gb.id[r] = gb.id[r]*w + x
			}
			space *= width
			continue
		}
		if gb.sparse == nil {
			gb.sparse = map[int64]int32{}
		}
		clear(gb.sparse)
		next := int32(0)
		for r, x := range k.idx {
			key := int64(gb.id[r])*int64(width) + int64(x)
			g, ok := gb.sparse[key]
			if !ok {
				g = next
				gb.sparse[key] = g
				next++
			}
			gb.id[r] = g
		}
		space = int(next)
	}
	gb.first = gb.first[:0]
	gb.counts = gb.counts[:0]
	dense := gb.table(space)
	for r, id := range gb.id {
		slot := &dense[id]
		if *slot < 0 {
			*slot = int32(len(gb.first))
			gb.first = append(gb.first, int32(r))
			gb.counts = append(gb.counts, 0)
		}
		gb.counts[*slot]++
	}
}

// packedGroup groups n rows as group does, by their keys packed side by
// side into one number per row, and reports false, having done nothing,
// when they take more than 64 bits.
func (gb *groupBy) packedGroup(keys []chunkKeys, n int) bool {
	width := 0
	for i := range keys {
		if d := keys[i].distinct(); d > 1 {
			width += bits.Len(uint(d - 1))
		}
	}
	if width > 64 {
		return false
	}
	packed := slices.Grow(gb.packed[:0], n)[:n]
	gb.packed = packed
	clear(packed)
	// Two columns a pass: half the loads and stores of packed.
	shift, pending := 0, -1
	for i := range keys {
		d := keys[i].distinct()
		if d <= 1 {
			continue
		}
		if pending < 0 {
			pending = i
			continue
		}
		a, b := keys[pending].idx[:len(packed)], keys[i].idx[:len(packed)]
		sa := shift
		sb := sa + bits.Len(uint(keys[pending].distinct()-1))
		for r := range packed {
			packed[r] |= uint64(uint32(a[r]))<<(sa&63) | uint64(uint32(b[r]))<<(sb&63)
		}
		shift, pending = sb+bits.Len(uint(d-1)), -1
	}
	if pending >= 0 {
		a := keys[pending].idx[:len(packed)]
		for r := range packed {
			packed[r] |= uint64(uint32(a[r])) << (shift & 63)
		}
	}
	gb.first = gb.first[:0]
	gb.counts = gb.counts[:0]
	if width <= denseBits {
		// Few enough combinations to number through a table of them all.
		dense := gb.table(1 << width)
		for r, key := range packed {
			slot := &dense[key]
			if *slot < 0 {
				*slot = int32(len(gb.first))
				gb.first = append(gb.first, int32(r))
				gb.counts = append(gb.counts, 0)
			}
			gb.counts[*slot]++
		}
		return true
	}
	// An open-addressing table of at least twice as many slots as rows,
	// each the group of the key in slotKeys, or -1.
	logSize := max(bits.Len(uint(2*n)), 4)
	size := 1 << logSize
	gb.slots = slices.Grow(gb.slots[:0], size)[:size]
	gb.slotKeys = slices.Grow(gb.slotKeys[:0], size)[:size]
	slots, slotKeys := gb.slots, gb.slotKeys
	for i := range slots {
		slots[i] = -1
	}
	mask := uint64(size - 1)
	last, lastGroup := uint64(0), int32(-1)
	for r, key := range packed {
		// Rows in a row are often alike: no lookup for a repeat.
		if key == last && lastGroup >= 0 {
			gb.counts[lastGroup]++
			continue
		}
		h := (key * 0x9E3779B97F4A7C15) >> (64 - logSize)
		for {
			g := slots[h]
			if g < 0 {
				g = int32(len(gb.first))
				slots[h], slotKeys[h] = g, key
				gb.first = append(gb.first, int32(r))
				gb.counts = append(gb.counts, 0)
			} else if slotKeys[h] != key {
				h = (h + 1) & mask
				continue
			}
			gb.counts[g]++
			last, lastGroup = key, g
			break
		}
	}
	return true
}

// denseBits bounds the width of packed keys numbered through a table of
// every combination (1 << 16 entries, as denseGroups).
const denseBits = 16

// renumber numbers the ids, all below space, from 0 in the order they
// first occur, and returns how many there are.
func (gb *groupBy) renumber(space int) int {
	dense := gb.table(space)
	next := int32(0)
	for r, id := range gb.id {
		slot := &dense[id]
		if *slot < 0 {
			*slot = next
			next++
		}
		gb.id[r] = *slot
	}
	return int(next)
}

// table is a table of size entries of -1.
func (gb *groupBy) table(size int) []int32 {
	gb.dense = slices.Grow(gb.dense[:0], size)[:size]
	for i := range gb.dense {
		gb.dense[i] = -1
	}
	return gb.dense
}

// chunkValues are the distinct values of a column chunk: strs for a text
// column, ints for a number, a boolean (0, 1) or a list's length, lists for
// a list of text.
type chunkValues struct {
	strs  []string
	ints  []int32
	lists [][]string
}

// chunkKeys is a column chunk read as an index per row into its distinct
// values. A worker keeps one per column and reuses it from row group to
// row group, but not its values, which it hands over.
type chunkKeys struct {
	idx []int32
	chunkValues

	values []parquet.Value
	bools  []bool
	dict   parquet.Dictionary // the dictionary whose strings start at strs[dictAt]
	dictAt int32
	plain  map[string]int32 // the strings of plain pages, by index
	number map[int32]int32  // the ints, by index
	// small is the index + 1 of each int below smallNumbers among ints,
	// 0 for none: an array lookup per row, not a map's.
	small   []int32
	listIdx map[string]int32 // the lists, by their encoding
	listKey []byte
	// elems is the list of the row being read, as indexes into strs;
	// lastElems and lastLen the previous row's, whose index is lastIdx.
	elems     []int32
	lastElems []int32
	lastLen   int32
	lastIdx   int32
	hasLast   bool
	lastEmpty bool // the previous row's list is empty
	// pageElems are the values of a page of a list, as indexes into strs.
	pageElems []int32
}

func (k *chunkKeys) distinct() int {
	switch {
	case k.lists != nil:
		return len(k.lists)
	case k.strs != nil:
		return len(k.strs)
	}
	return len(k.ints)
}

func (k *chunkKeys) reset(kind keyKind) {
	if k.small != nil {
		for _, v := range k.ints {
			if uint32(v) < smallNumbers {
				k.small[v] = 0
			}
		}
	}
	k.idx, k.dict, k.hasLast = k.idx[:0], nil, false
	k.strs, k.ints, k.lists = nil, nil, nil
	switch kind {
	case keyText:
		k.strs = []string{}
	case keyTextList:
		k.lists = [][]string{{}} // index 0: the empty list
		k.strs = []string{}
		clear(k.listIdx)
	default:
		k.ints = []int32{}
	}
	clear(k.plain)
	clear(k.number)
}

// read reads a column chunk of a row group of rows rows.
func (k *chunkKeys) read(chunk parquet.ColumnChunk, kind keyKind, rows int) error {
	k.reset(kind)
	var list listState
	err := eachPage(chunk, func(p parquet.Page) error {
		var err error
		switch kind {
		case keyText:
			if p.NumNulls() != 0 {
				return errColumnLength
			}
			k.idx, err = k.readText(p, k.idx)
		case keyInt32:
			err = k.readInt32s(p)
		case keyBool:
			err = k.readBools(p)
		case keyTextList, keyListLen:
			err = k.readList(p, kind, &list)
		}
		return err
	})
	if err != nil {
		return err
	}
	if kind == keyTextList || kind == keyListLen {
		k.endRow(kind, &list)
	}
	if len(k.idx) != rows {
		return errColumnLength
	}
	return nil
}

// readText appends the strings of a page to at as indexes into k.strs.
func (k *chunkKeys) readText(p parquet.Page, at []int32) ([]int32, error) {
	data := p.Data()
	if d := p.Dictionary(); d != nil {
		if d != k.dict {
			k.dict, k.dictAt = d, int32(len(k.strs))
			k.strs = slices.Grow(k.strs, d.Len())
			// One string for the whole dictionary, the entries slices of
			// it: most of a dictionary's strings are the chunk's only (the
			// feedback of refusals names files), and a string each would
			// be an allocation each. (So a consumer that keeps a few of
			// them copies them: see Turns.)
			entries := d.Page().Data()
			values, offsets := entries.ByteArray()
			if len(offsets) != d.Len()+1 {
				return at, fmt.Errorf("a dictionary of %d strings with %d offsets", d.Len(), len(offsets))
			}
			all := string(values)
			for e := range d.Len() {
				k.strs = append(k.strs, all[offsets[e]:offsets[e+1]])
			}
		}
		n := uint32(d.Len())
		idx := data.Int32()
		// The largest index checked first, then the indexes copied: two
		// tight passes rather than a check and an add a row.
		var hi uint32
		for _, e := range idx {
			hi = max(hi, uint32(e))
		}
		if len(idx) > 0 && hi >= n {
			return at, fmt.Errorf("dictionary index %d of a dictionary of %d", hi, n)
		}
		start := len(at)
		at = slices.Grow(at, len(idx))[:start+len(idx)]
		dst, base := at[start:], k.dictAt
		if base == 0 {
			copy(dst, idx)
			return at, nil
		}
		for i, e := range idx[:len(dst)] {
			dst[i] = base + e
		}
		return at, nil
	}
	if p.Type().Kind() != parquet.ByteArray {
		return at, fmt.Errorf("a %s page in a column of strings", p.Type())
	}
	values, offsets := data.ByteArray()
	if k.plain == nil {
		k.plain = map[string]int32{}
	}
	for i := 0; i+1 < len(offsets); i++ {
		b := values[offsets[i]:offsets[i+1]]
		s, ok := k.plain[string(b)]
		if !ok {
			s = int32(len(k.strs))
			v := string(b)
			k.strs = append(k.strs, v)
			k.plain[v] = s
		}
		at = append(at, s)
	}
	return at, nil
}

// smallNumbers bounds the int32s numbered through chunkKeys.small rather
// than a map: turn counts, steps, tiers, passes, reasoning tokens of none.
const smallNumbers = 4096

// number is the index of an int32 among the chunk's.
func (k *chunkKeys) numberIndex(v int32) int32 {
	if uint32(v) < smallNumbers {
		if k.small == nil {
			k.small = make([]int32, smallNumbers)
		}
		i := k.small[v] - 1
		if i < 0 {
			i = int32(len(k.ints))
			k.ints = append(k.ints, v)
			k.small[v] = i + 1
		}
		return i
	}
	if k.number == nil {
		k.number = map[int32]int32{}
	}
	i, ok := k.number[v]
	if !ok {
		i = int32(len(k.ints))
		k.ints = append(k.ints, v)
		k.number[v] = i
	}
	return i
}

func (k *chunkKeys) readInt32s(p parquet.Page) error {
	if p.NumNulls() != 0 {
		return errColumnLength
	}
	if p.Dictionary() == nil && p.Type().Kind() == parquet.Int32 {
		last, at := int32(0), int32(-1)
		data := p.Data()
		for _, v := range data.Int32() {
			if at < 0 || v != last {
				last, at = v, k.numberIndex(v)
			}
			k.idx = append(k.idx, at)
		}
		return nil
	}
	return k.eachValue(p, func(v parquet.Value) { k.idx = append(k.idx, k.numberIndex(v.Int32())) })
}

func (k *chunkKeys) readBools(p parquet.Page) error {
	if p.NumNulls() != 0 {
		return errColumnLength
	}
	k.ints = append(k.ints[:0], 0, 1)
	if r, ok := p.Values().(parquet.BooleanReader); ok && p.Dictionary() == nil {
		if k.bools == nil {
			k.bools = make([]bool, valuesPerRead)
		}
		for {
			n, err := r.ReadBooleans(k.bools)
			for _, b := range k.bools[:n] {
				k.idx = append(k.idx, boolIndex(b))
			}
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
		}
	}
	return k.eachValue(p, func(v parquet.Value) { k.idx = append(k.idx, boolIndex(v.Boolean())) })
}

func boolIndex(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// listState is the row a list column is in the middle of.
type listState struct {
	started bool
	n       int32
}

// readList reads a page of a list's leaf column: for keyListLen the
// number of elements of each row, for keyTextList the list of each row as
// an index into k.lists.
func (k *chunkKeys) readList(p parquet.Page, kind keyKind, list *listState) error {
	reps, defs := p.RepetitionLevels(), p.DefinitionLevels()
	if len(reps) != len(defs) {
		return errColumnLength
	}
	var elems []int32 // the page's values, as indexes into k.strs
	if kind == keyTextList {
		var err error
		if k.pageElems, err = k.readText(p, k.pageElems[:0]); err != nil {
			return err
		}
		elems = k.pageElems
	}
	if len(reps) > 0 && len(elems) == 0 && bytes.IndexByte(reps, 1) < 0 && bytes.IndexByte(defs, 1) < 0 {
		// Every entry starts a row and holds no element: a page of empty
		// lists (the turns' warnings, most of the time), each row the
		// index of the empty list, without a look at each entry.
		k.endRow(kind, list) // the row the page before left open, if any
		list.started = true
		if len(reps) > 1 {
			k.endRow(kind, list) // the first entry's
			for range len(reps) - 2 {
				k.idx = append(k.idx, k.lastIdx)
			}
			list.started = true // the last entry's, left open
		}
		return nil
	}
	v := 0
	for i, rep := range reps {
		switch {
		case rep == 0 && list.started && list.n == 0 && k.hasLast && k.lastEmpty:
			// An empty list after an empty list: the commonest row (no
			// warnings), kept cheap.
			k.idx = append(k.idx, k.lastIdx)
		case rep == 0:
			k.endRow(kind, list)
			list.started = true
		}
		if !list.started {
			return errColumnLength
		}
		if defs[i] == 1 {
			if kind == keyTextList {
				if v >= len(elems) {
					return errColumnLength
				}
				k.elems = append(k.elems, elems[v])
				v++
			}
			list.n++
		}
	}
	if kind == keyTextList && v != len(elems) {
		return errColumnLength
	}
	return nil
}

// endRow ends the row a list column is in, if any.
func (k *chunkKeys) endRow(kind keyKind, list *listState) {
	if !list.started {
		return
	}
	// Rows in a row have the same list more often than not (the same
	// tags, no warnings, one write).
	if kind == keyListLen {
		if !k.hasLast || list.n != k.lastLen {
			k.hasLast, k.lastLen, k.lastIdx = true, list.n, k.numberIndex(list.n)
		}
	} else if !k.hasLast || !slices.Equal(k.elems, k.lastElems) {
		k.hasLast, k.lastIdx = true, k.listIndex(k.elems)
		k.lastElems = append(k.lastElems[:0], k.elems...)
	}
	k.lastEmpty = list.n == 0
	k.idx = append(k.idx, k.lastIdx)
	k.elems = k.elems[:0]
	*list = listState{}
}

// listIndex is the index among the chunk's lists of a list of strings,
// given as indexes into k.strs.
func (k *chunkKeys) listIndex(l []int32) int32 {
	if len(l) == 0 {
		return 0
	}
	k.listKey = k.listKey[:0]
	for _, s := range l {
		k.listKey = binary.LittleEndian.AppendUint32(k.listKey, uint32(s))
	}
	if i, ok := k.listIdx[string(k.listKey)]; ok {
		return i
	}
	if k.listIdx == nil {
		k.listIdx = map[string]int32{}
	}
	i := int32(len(k.lists))
	list := make([]string, len(l))
	for j, s := range l {
		list[j] = k.strs[s]
	}
	k.lists = append(k.lists, list)
	k.listIdx[string(k.listKey)] = i
	return i
}

// eachValue calls f for each value of a page, in order.
func (k *chunkKeys) eachValue(p parquet.Page, f func(parquet.Value)) error {
	return eachValue(p, &k.values, f)
}
