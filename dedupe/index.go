package dedupe

import (
	"bytes"
	"cmp"
	"context"
	"errors"
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
	// KeyText appends the exact key text of ref (appendKeyText).
	KeyText(dst []byte, ref Ref) ([]byte, error)
	// Shingles appends the shingles of the near-duplicate text of ref
	// (AppendNearText), sorted and distinct.
	Shingles(dst []uint64, ref Ref) ([]uint64, error)
}

// Item is one raw turn offered to the index.
type Item struct {
	Ref Ref
	// Group is the case or dogfood task the turn belongs to (trace.GroupOf).
	// Near-duplicates are looked for within a group only: two cases are two
	// tasks, however alike their turns read.
	Group string
	// Worked and Time decide which copy of a duplicate is kept: one from a
	// run that worked first, then the newest (Time in Unix nanoseconds).
	Worked bool
	Time   int64
}

// priority orders copies: a worked run first, then the newest. It packs
// both in one number (worked in the top bit, the time below it), so that
// the better copy is the greater number.
type priority uint64

func newPriority(worked bool, unixNano int64) priority {
	p := priority(max(unixNano, 0))
	if worked {
		p |= 1 << 63
	}
	return p
}

func (p priority) better(q priority) bool { return p > q }

// exact is one exact-unique pair of the open group: its key, the first
// copy seen (the one later copies are compared with, byte for byte), how
// many copies there are, and its cluster. 24 bytes.
type exact struct {
	key     uint64
	first   Ref
	mult    int32
	cluster int32
}

// cluster is a set of near-duplicate exact pairs of the open group,
// compared against its representative (its first exact pair) only, so
// clusters never chain. It keeps the best copy of all its pairs.
type cluster struct {
	keptPrio  priority
	kept      Ref
	keptExact int32
	rep       int32
	turns     int32
	exacts    int32
}

// errGroupReopened is returned by Add when a turn comes for a group the
// index has closed: the index holds one group at a time, so its turns must
// come together (trace.Corpus orders runs so).
var errGroupReopened = errors.New("index: turns of a group must come together")

// Index counts exact duplicates and clusters near-duplicates of pairs
// offered one at a time, group by group. Exact duplicates and
// near-duplicates are sought within a group (a case or a task), so the
// index holds the open group only: for each of its exact-unique pairs, the
// key and where the first copy is (24 bytes and a slot of the key table);
// for each of its clusters, the kept copy and counts (32 bytes) and Bands
// band hashes (slots of the band table). When the next group starts, the
// open group's clusters are handed to the settled function and forgotten;
// what stays is a few counts per group. It holds no text: text is read
// again through Texts when a key or a band matches. BenchmarkIndexMemory
// measures the bytes per unique pair.
type Index struct {
	threshold float64
	texts     Texts
	settled   func(Cluster) error

	groups        map[string]int32
	groupNames    []string
	groupTurns    []int32
	groupExacts   []int32
	groupClusters []int32

	// The open group: its number, its exact pairs and clusters, and the
	// tables over them.
	open     int32
	exacts   []exact
	clusters []cluster
	byKey    table // 32 bits of an exact key → exact
	byBand   table // 32 bits of a band hash → cluster

	rawTurns, exactsDone, clustersDone int
	maxMult                            int32 // most copies of one exact pair of a closed group
	collisions                         int

	// scratch buffers, reused between calls
	keyBuf   []byte
	fp       Fingerprint // Add's
	shB      []uint64
	cands    []int32
	settling []Cluster
}

// NewIndex returns an empty index that confirms near-duplicates at
// threshold (DefaultThreshold when 0) and reads text again from texts.
// settled, when not nil, receives the clusters of each group as the group
// closes (when the next group starts, or at Close), in the order of their
// kept copies.
func NewIndex(threshold float64, texts Texts, settled func(Cluster) error) *Index {
	if threshold <= 0 {
		threshold = DefaultThreshold
	}
	return &Index{threshold: threshold, texts: texts, settled: settled, groups: map[string]int32{}, open: -1}
}

// Assignment is what the index decided about one raw turn: the
// exact-unique pair and the near-duplicate cluster it belongs to (numbered
// in the order they were first seen). Neither changes later.
type Assignment struct {
	Exact   int
	Cluster int
}

// add offers one raw turn with its key text and near text (as
// appendKeyText and AppendNearText make them) and says where it went. A
// turn whose key is already known in its group is compared byte for byte
// with the first copy, read again from Texts; equal, it adds to that pair's
// multiplicity. A new pair is compared, by its MinHash bands, with the
// representatives of its group's clusters, and joins the most similar one
// whose exact Jaccard similarity reaches the threshold, or starts its own.
// A turn of another group than the last closes the last one; a turn of a
// closed group is errGroupReopened.
func (ix *Index) add(ctx context.Context, it Item, keyText, nearText []byte) (Assignment, error) {
	ix.fp.reset(keyText, nearText)
	a, err := ix.AddFingerprint(ctx, it, &ix.fp)
	ix.fp.KeyText = nil // the caller's
	return a, err
}

// AddFingerprint is Add of a turn whose fingerprint is made: the
// fingerprint is most of the cost of a turn and needs nothing of the
// index, so a caller can make the fingerprints of many turns at once, on
// every core, and add them in order. fp is not kept.
func (ix *Index) AddFingerprint(ctx context.Context, it Item, fp *Fingerprint) (Assignment, error) {
	if err := ctx.Err(); err != nil {
		return Assignment{}, err
	}
	g, ok := ix.groups[it.Group]
	switch {
	case !ok:
		if err := ix.Close(); err != nil {
			return Assignment{}, err
		}
		g = int32(len(ix.groupNames))
		ix.groups[it.Group] = g
		ix.groupNames = append(ix.groupNames, it.Group)
		ix.groupTurns = append(ix.groupTurns, 0)
		ix.groupExacts = append(ix.groupExacts, 0)
		ix.groupClusters = append(ix.groupClusters, 0)
		ix.open = g
	case g != ix.open:
		return Assignment{}, fmt.Errorf("%w: group %q came again after %q", errGroupReopened, it.Group, ix.groupNames[ix.open])
	}
	ix.rawTurns++
	ix.groupTurns[g]++
	prio := newPriority(it.Worked, it.Time)
	key, keyText := fp.Key, fp.KeyText

	ix.cands = ix.byKey.appendValues(ix.cands[:0], fold32(key))
	slices.Sort(ix.cands) // the oldest pair first
	collided := false
	for _, e := range ix.cands {
		if ix.exacts[e].key != key {
			continue
		}
		var err error
		ix.keyBuf, err = ix.texts.KeyText(ix.keyBuf[:0], ix.exacts[e].first)
		if err != nil {
			return Assignment{}, fmt.Errorf("read pair again to confirm a key: %w", err)
		}
		if bytes.Equal(ix.keyBuf, keyText) {
			ix.addCopy(e, it.Ref, prio)
			return Assignment{Exact: ix.exactsDone + int(e), Cluster: ix.clustersDone + int(ix.exacts[e].cluster)}, nil
		}
		collided = true
	}
	if collided {
		ix.collisions++
	}

	e := int32(len(ix.exacts))
	ix.exacts = append(ix.exacts, exact{key: key, first: it.Ref, cluster: -1})
	ix.byKey.add(fold32(key), e)

	c, err := ix.nearest(fp)
	if err != nil {
		return Assignment{}, err
	}
	if c < 0 {
		c = int32(len(ix.clusters))
		ix.clusters = append(ix.clusters, cluster{rep: e, kept: it.Ref, keptExact: e, keptPrio: prio})
		for _, h := range fp.Bands {
			ix.byBand.add(h, c)
		}
	}
	ix.exacts[e].cluster = c
	ix.clusters[c].exacts++
	ix.addCopy(e, it.Ref, prio)
	return Assignment{Exact: ix.exactsDone + int(e), Cluster: ix.clustersDone + int(c)}, nil
}

// addCopy counts ref as a copy of exact e and of its cluster, keeping the
// better copy of the cluster.
func (ix *Index) addCopy(e int32, ref Ref, prio priority) {
	x := &ix.exacts[e]
	x.mult++
	c := &ix.clusters[x.cluster]
	c.turns++
	if prio.better(c.keptPrio) {
		c.kept, c.keptExact, c.keptPrio = ref, e, prio
	}
}

// nearest returns the cluster of the open group whose representative is
// most similar to fp's near text at or above the threshold, or -1.
func (ix *Index) nearest(fp *Fingerprint) (int32, error) {
	ix.cands = ix.cands[:0]
	for _, h := range fp.Bands {
		ix.cands = ix.byBand.appendValues(ix.cands, h)
	}
	slices.Sort(ix.cands)
	ix.cands = slices.Compact(ix.cands)
	best, bestJ := int32(-1), 0.0
	for _, c := range ix.cands {
		var err error
		ix.shB, err = ix.texts.Shingles(ix.shB[:0], ix.exacts[ix.clusters[c].rep].first)
		if err != nil {
			return 0, fmt.Errorf("read pair again to confirm a near-duplicate: %w", err)
		}
		if j := jaccard(fp.Shingles, ix.shB); j >= ix.threshold && j > bestJ {
			best, bestJ = c, j
		}
	}
	return best, nil
}

// Close closes the open group: it hands the group's clusters to the
// settled function, sorted by their kept copies, keeps its counts and
// forgets the rest. Call it after the last Add; a later Add opens a new
// group.
func (ix *Index) Close() error {
	if ix.open < 0 {
		return nil
	}
	g := ix.open
	ix.open = -1
	ix.groupExacts[g] = int32(len(ix.exacts))
	ix.groupClusters[g] = int32(len(ix.clusters))
	for _, x := range ix.exacts {
		ix.maxMult = max(ix.maxMult, x.mult)
	}
	ix.exactsDone += len(ix.exacts)
	ix.clustersDone += len(ix.clusters)
	var err error
	if ix.settled != nil {
		ix.settling = ix.settling[:0]
		for _, c := range ix.clusters {
			x := ix.exacts[c.keptExact]
			ix.settling = append(ix.settling, Cluster{Group: ix.groupNames[g], GroupNumber: int(g), Kept: c.kept, KeptKey: x.key,
				KeptMultiplicity: int(x.mult), Turns: int(c.turns), Exacts: int(c.exacts)})
		}
		slices.SortFunc(ix.settling, func(a, b Cluster) int {
			return cmp.Or(cmp.Compare(a.Kept.Run, b.Kept.Run), cmp.Compare(a.Kept.Turn, b.Kept.Turn))
		})
		for _, c := range ix.settling {
			if err = ix.settled(c); err != nil {
				break
			}
		}
	}
	ix.exacts = resetSlice(ix.exacts)
	ix.clusters = resetSlice(ix.clusters)
	ix.settling = resetSlice(ix.settling)
	ix.byKey.reset()
	ix.byBand.reset()
	return err
}

// resetSlice empties s, keeping its memory unless it grew large for one
// big group.
func resetSlice[T any](s []T) []T {
	if cap(s) > 1<<16 {
		return nil
	}
	return s[:0]
}

// Cluster is one near-duplicate cluster, as its group closes.
type Cluster struct {
	Group string
	// GroupNumber numbers the group in the order groups were first seen
	// (GroupNames names them).
	GroupNumber int
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

// GroupNames names the groups by number (Cluster.GroupNumber). The slice
// is the index's own, to be read, not changed; it stays valid when the
// index is dropped, which lets go of everything else.
func (ix *Index) GroupNames() []string { return ix.groupNames }

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

// Figures returns the index's counts, the open group's included.
func (ix *Index) Figures() Figures {
	f := Figures{RawTurns: ix.rawTurns, ExactUnique: ix.exactsDone + len(ix.exacts), Clusters: ix.clustersDone + len(ix.clusters),
		Groups: len(ix.groupNames), KeyCollisions: ix.collisions, MaxMultiplicity: int(ix.maxMult)}
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

// ByGroup returns the counts of each group, the open one included,
// sorted by group name.
func (ix *Index) ByGroup() []GroupFigures {
	out := make([]GroupFigures, len(ix.groupNames))
	for i, name := range ix.groupNames {
		out[i].Group = name
	}
	for g := range out {
		out[g].RawTurns, out[g].ExactUnique, out[g].Clusters = int(ix.groupTurns[g]), int(ix.groupExacts[g]), int(ix.groupClusters[g])
	}
	if ix.open >= 0 {
		out[ix.open].ExactUnique, out[ix.open].Clusters = len(ix.exacts), len(ix.clusters)
	}
	slices.SortFunc(out, func(a, b GroupFigures) int { return strings.Compare(a.Group, b.Group) })
	return out
}
