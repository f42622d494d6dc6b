package dedupe

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
)

// DefaultThreshold is the Jaccard similarity at or above which two pairs
// are near-duplicates.
const DefaultThreshold = 0.8

// Ref says where a pair's text can be read again: the run (its index in
// the corpus) and the turn (its position in the run's trace).
type Ref struct {
	Run  int32
	Turn int32
}

// Texts reads a pair's text again when the index needs it: the index keeps
// keys and band hashes, never text.
type Texts interface {
	// KeyText appends the exact key text of ref (AppendKeyText).
	KeyText(dst []byte, ref Ref) ([]byte, error)
	// NearText appends the near-duplicate text of ref (AppendNearText).
	NearText(dst []byte, ref Ref) ([]byte, error)
}

// Item is one raw turn offered to the index.
type Item struct {
	Ref Ref
	// Group is the case or dogfood task the turn belongs to (GroupOf).
	// Near-duplicates are looked for within a group only: two cases are two
	// tasks, however alike their turns read.
	Group string
	// Worked and Time decide which copy of a duplicate is kept: one from a
	// run that worked first, then the newest (Time in Unix nanoseconds).
	Worked bool
	Time   int64
}

// priority orders copies: a worked run first, then the newest.
type priority struct {
	worked bool
	time   int64
}

func (p priority) better(q priority) bool {
	if p.worked != q.worked {
		return p.worked
	}
	return p.time > q.time
}

// item is what the index keeps of a raw turn: 16 bytes.
type item struct {
	ref   Ref
	exact int32
	group int32
}

// exact is one exact-unique pair: the first copy seen (the one later copies
// are compared with, byte for byte), the copy kept, and how many there are.
type exact struct {
	key      uint64
	first    Ref
	kept     int32 // item index
	keptPrio priority
	mult     int32
	cluster  int32
	next     int32 // next exact with the same key (a hash collision), or -1
}

// cluster is a set of near-duplicate exact pairs, compared against its
// representative (its first exact pair) only, so clusters never chain.
type cluster struct {
	rep      int32 // exact index
	group    int32
	kept     int32 // item index
	keptPrio priority
	turns    int32
	exacts   int32
}

// Index counts exact duplicates and clusters near-duplicates of pairs
// offered one at a time. It holds, per raw turn, a reference and two
// numbers; per exact-unique pair, its key; per cluster, its band hashes.
// Text is read again through Texts when a key or a band matches.
type Index struct {
	threshold float64
	texts     Texts

	items      []item
	exacts     []exact
	clusters   []cluster
	byKey      map[uint64]int32 // key → first exact with it
	bandHead   map[uint64]int32 // band hash → last entry (cluster*Bands+band) in its bucket
	bandNext   []int32          // entry → previous entry in the same bucket, or -1
	groups     map[string]int32
	groupNames []string

	collisions int

	// scratch buffers, reused between calls
	keyBuf, nearBuf []byte
	shA, shB        []uint64
	cands           []int32
}

// NewIndex returns an empty index that confirms near-duplicates at
// threshold (DefaultThreshold when 0) and reads text again from texts.
func NewIndex(threshold float64, texts Texts) *Index {
	if threshold <= 0 {
		threshold = DefaultThreshold
	}
	return &Index{
		threshold: threshold, texts: texts,
		byKey: map[uint64]int32{}, bandHead: map[uint64]int32{}, groups: map[string]int32{},
	}
}

// Add offers one raw turn with its key text and near text (as
// AppendKeyText and AppendNearText make them) and returns its item number.
// A turn whose key is already known is compared byte for byte with the
// first copy, read again from Texts; equal, it adds to that pair's
// multiplicity. A new pair is compared, by its MinHash bands, with the
// representatives of its group's clusters, and joins the most similar one
// whose exact Jaccard similarity reaches the threshold, or starts its own.
func (ix *Index) Add(ctx context.Context, it Item, keyText, nearText []byte) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	g, ok := ix.groups[it.Group]
	if !ok {
		g = int32(len(ix.groupNames))
		ix.groups[it.Group] = g
		ix.groupNames = append(ix.groupNames, it.Group)
	}
	n := int32(len(ix.items))
	prio := priority{it.Worked, it.Time}
	key := Key(keyText)

	last := int32(-1)
	if head, ok := ix.byKey[key]; ok {
		for e := head; e >= 0; e = ix.exacts[e].next {
			var err error
			ix.keyBuf, err = ix.texts.KeyText(ix.keyBuf[:0], ix.exacts[e].first)
			if err != nil {
				return 0, fmt.Errorf("read pair again to confirm a key: %w", err)
			}
			if bytes.Equal(ix.keyBuf, keyText) {
				ix.items = append(ix.items, item{ref: it.Ref, exact: e, group: g})
				ix.addCopy(e, n, prio)
				return int(n), nil
			}
			last = e
		}
		ix.collisions++
	}

	e := int32(len(ix.exacts))
	ix.exacts = append(ix.exacts, exact{key: key, first: it.Ref, kept: n, keptPrio: prio, mult: 0, cluster: -1, next: -1})
	if last >= 0 {
		ix.exacts[last].next = e
	} else {
		ix.byKey[key] = e
	}
	ix.items = append(ix.items, item{ref: it.Ref, exact: e, group: g})

	c, bands, err := ix.nearest(g, nearText)
	if err != nil {
		return 0, err
	}
	if c < 0 {
		c = int32(len(ix.clusters))
		ix.clusters = append(ix.clusters, cluster{rep: e, group: g, kept: n, keptPrio: prio})
		for b, h := range bands {
			entry := c*Bands + int32(b)
			prev, ok := ix.bandHead[h]
			if !ok {
				prev = -1
			}
			ix.bandNext = append(ix.bandNext, prev)
			ix.bandHead[h] = entry
		}
	}
	ix.exacts[e].cluster = c
	ix.clusters[c].exacts++
	ix.addCopy(e, n, prio)
	return int(n), nil
}

// addCopy counts item n as a copy of exact e and of its cluster, keeping
// the better copy of each.
func (ix *Index) addCopy(e, n int32, prio priority) {
	x := &ix.exacts[e]
	x.mult++
	if prio.better(x.keptPrio) {
		x.kept, x.keptPrio = n, prio
	}
	c := &ix.clusters[x.cluster]
	c.turns++
	if prio.better(c.keptPrio) {
		c.kept, c.keptPrio = n, prio
	}
}

// nearest returns the cluster of group g whose representative is most
// similar to nearText at or above the threshold, or -1, and the band hashes
// of nearText.
func (ix *Index) nearest(g int32, nearText []byte) (int32, [Bands]uint64, error) {
	ix.shA = Shingles(ix.shA[:0], nearText)
	sig := Signature(ix.shA)
	bands := BandHashes(&sig)
	salt := mix64(uint64(g) + 0x632be59bd9b4e019)
	ix.cands = ix.cands[:0]
	for b := range bands {
		bands[b] ^= salt // buckets are per group
		head, ok := ix.bandHead[bands[b]]
		if !ok {
			continue
		}
		for entry := head; entry >= 0; entry = ix.bandNext[entry] {
			if c := entry / Bands; ix.clusters[c].group == g && !slices.Contains(ix.cands, c) {
				ix.cands = append(ix.cands, c)
			}
		}
	}
	slices.Sort(ix.cands)
	best, bestJ := int32(-1), 0.0
	for _, c := range ix.cands {
		var err error
		ix.nearBuf, err = ix.texts.NearText(ix.nearBuf[:0], ix.exacts[ix.clusters[c].rep].first)
		if err != nil {
			return 0, bands, fmt.Errorf("read pair again to confirm a near-duplicate: %w", err)
		}
		ix.shB = Shingles(ix.shB[:0], ix.nearBuf)
		if j := Jaccard(ix.shA, ix.shB); j >= ix.threshold && j > bestJ {
			best, bestJ = c, j
		}
	}
	return best, bands, nil
}

// Assignment is what the index decided about one raw turn.
type Assignment struct {
	Ref     Ref
	Exact   int // exact-unique pair number
	Cluster int // near-duplicate cluster number
	// Kept is true for the one copy of its exact pair that is kept.
	Kept bool
}

// Assignment returns what the index decided about item n.
func (ix *Index) Assignment(n int) Assignment {
	it := ix.items[n]
	x := ix.exacts[it.exact]
	return Assignment{Ref: it.ref, Exact: int(it.exact), Cluster: int(x.cluster), Kept: x.kept == int32(n)}
}

// Cluster is one near-duplicate cluster.
type Cluster struct {
	Group string
	// Kept is the copy kept of the whole cluster: from a run that worked
	// if any, then the newest.
	Kept Ref
	// KeptKey is the exact key of the kept copy, and KeptMultiplicity how
	// many raw turns share it.
	KeptKey          uint64
	KeptMultiplicity int
	// Turns is the number of raw turns in the cluster; Exacts the number of
	// exact-unique pairs.
	Turns, Exacts int
}

// Clusters returns every cluster, in the order they were started.
func (ix *Index) Clusters() []Cluster {
	out := make([]Cluster, len(ix.clusters))
	for i, c := range ix.clusters {
		kept := ix.items[c.kept]
		x := ix.exacts[kept.exact]
		out[i] = Cluster{Group: ix.groupNames[c.group], Kept: kept.ref, KeptKey: x.key, KeptMultiplicity: int(x.mult),
			Turns: int(c.turns), Exacts: int(c.exacts)}
	}
	return out
}

// Figures are the counts of an index.
type Figures struct {
	RawTurns    int `json:"raw_turns"`
	ExactUnique int `json:"exact_unique"`
	Clusters    int `json:"near_unique_clusters"`
	Groups      int `json:"groups"`
	// MaxMultiplicity is the most copies of one exact pair.
	MaxMultiplicity int `json:"max_multiplicity"`
	// KeyCollisions counts keys that matched with different text (xxhash64
	// collisions, confirmed apart byte for byte); expected 0.
	KeyCollisions int `json:"key_collisions"`
	// VarietyRatio is clusters ÷ raw turns.
	VarietyRatio float64 `json:"variety_ratio"`
}

// Figures returns the index's counts.
func (ix *Index) Figures() Figures {
	f := Figures{RawTurns: len(ix.items), ExactUnique: len(ix.exacts), Clusters: len(ix.clusters),
		Groups: len(ix.groupNames), KeyCollisions: ix.collisions}
	for _, x := range ix.exacts {
		f.MaxMultiplicity = max(f.MaxMultiplicity, int(x.mult))
	}
	if f.RawTurns > 0 {
		f.VarietyRatio = float64(f.Clusters) / float64(f.RawTurns)
	}
	return f
}

// GroupFigures are the counts of one group.
type GroupFigures struct {
	Group       string `json:"group"`
	RawTurns    int    `json:"raw_turns"`
	ExactUnique int    `json:"exact_unique"`
	Clusters    int    `json:"clusters"`
}

// ByGroup returns the counts of each group, sorted by group name.
func (ix *Index) ByGroup() []GroupFigures {
	out := make([]GroupFigures, len(ix.groupNames))
	for i, name := range ix.groupNames {
		out[i].Group = name
	}
	for _, it := range ix.items {
		out[it.group].RawTurns++
	}
	for _, c := range ix.clusters {
		out[c.group].Clusters++
		out[c.group].ExactUnique += int(c.exacts)
	}
	slices.SortFunc(out, func(a, b GroupFigures) int { return strings.Compare(a.Group, b.Group) })
	return out
}
