package dedupe

// table is an open-addressed multimap from 32-bit hashes to int32 values:
// linear probing, every value of a hash in the probe run that starts at
// the hash's home slot, at most three quarters full. A slot is 8 bytes, so
// a value costs 11 to 21 bytes (14 on average over the table's doublings),
// where a Go map[uint64]int32 costs about 35. The index keeps its keys and
// band hashes here; a hash is 32 bits of a 64-bit one, and a value whose
// full hash differs is weeded out by the caller (keys) or costs one
// Jaccard check that fails (bands).
type table struct {
	slots []tableSlot
	n     int
	shift uint // 32 − log2(len(slots))
}

// tableSlot holds one value; val is the value plus one, so that the zero
// slot is empty.
type tableSlot struct {
	hash uint32
	val  uint32
}

const tableMinSlots = 1 << 10

// home is the first slot probed for hash h: Fibonacci hashing spreads
// hashes that differ only in their high bits.
func (t *table) home(h uint32) int {
	return int((h * 0x9e3779b1) >> t.shift)
}

// add records v under h.
func (t *table) add(h uint32, v int32) {
	if (t.n+1)*4 > len(t.slots)*3 {
		t.grow()
	}
	mask := len(t.slots) - 1
	i := t.home(h)
	for t.slots[i].val != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = tableSlot{hash: h, val: uint32(v) + 1}
	t.n++
}

// appendValues appends to dst every value recorded under h, in no
// particular order.
func (t *table) appendValues(dst []int32, h uint32) []int32 {
	if len(t.slots) == 0 {
		return dst
	}
	mask := len(t.slots) - 1
	for i := t.home(h); t.slots[i].val != 0; i = (i + 1) & mask {
		if t.slots[i].hash == h {
			dst = append(dst, int32(t.slots[i].val-1))
		}
	}
	return dst
}

// grow doubles the slots (or makes the first ones) and puts every value
// back.
func (t *table) grow() {
	old := t.slots
	size := max(tableMinSlots, 2*len(old))
	t.slots = make([]tableSlot, size)
	t.shift = 32
	for s := size; s > 1; s >>= 1 {
		t.shift--
	}
	t.n = 0
	for _, s := range old {
		if s.val != 0 {
			t.add(s.hash, int32(s.val-1))
		}
	}
}

// reset empties the table, keeping its slots unless it grew large for one
// big group.
func (t *table) reset() {
	if len(t.slots) > 16*tableMinSlots {
		*t = table{}
		return
	}
	clear(t.slots)
	t.n = 0
}

// fold32 folds a 64-bit hash into 32 bits.
func fold32(h uint64) uint32 { return uint32(h ^ h>>32) }
