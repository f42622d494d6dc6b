package dedupe

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// memTexts serves texts from memory, as the corpus serves them from disk.
type memTexts struct {
	key, near map[Ref][]byte
	reads     int
}

func (m *memTexts) KeyText(dst []byte, ref Ref) ([]byte, error) {
	m.reads++
	return append(dst, m.key[ref]...), nil
}

func (m *memTexts) Shingles(dst []uint64, ref Ref) ([]uint64, error) {
	m.reads++
	return appendShingles(dst, m.near[ref]), nil
}

type genItem struct {
	group     string
	key, near string
	worked    bool
	time      int64
}

// generate makes a corpus with planted exact copies, near-duplicates
// (Jaccard ≥ 0.9 to their source) and distinct pairs (Jaccard ≤ 0.5).
func generate(n int) []genItem {
	rng := rand.New(rand.NewPCG(7, 11))
	vocab := make([]string, 5000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("tok%d", i)
	}
	text := func(words int) []string {
		out := make([]string, words)
		for i := range out {
			out[i] = vocab[rng.IntN(len(vocab))]
		}
		return out
	}
	var items []genItem
	var bases []genItem
	for i := 0; i < n; i++ {
		group := fmt.Sprintf("g%d", rng.IntN(4))
		it := genItem{group: group, worked: rng.IntN(2) == 0, time: int64(rng.IntN(1000))}
		switch r := rng.IntN(10); {
		case r < 3 && len(bases) > 0: // an exact copy, volatile tokens changed
			b := bases[rng.IntN(len(bases))]
			it.group, it.near = b.group, b.near
			it.key = strings.ReplaceAll(b.key, "in 0.001s", fmt.Sprintf("in 0.%03ds", rng.IntN(1000))) + "  \n"
		case r < 5 && len(bases) > 0: // a near-duplicate: one word of 300 changed
			b := bases[rng.IntN(len(bases))]
			words := strings.Fields(b.near)
			words[len(words)-1] = "changed"
			it.group, it.near = b.group, strings.Join(words, " ")
			it.key = it.near + " Ran 1 test in 0.001s"
			bases = append(bases, it)
		default:
			it.near = strings.Join(text(300), " ")
			it.key = it.near + " Ran 1 test in 0.001s"
			bases = append(bases, it)
		}
		items = append(items, it)
	}
	return items
}

// The index's counts equal a brute-force count: exact pairs by a map of
// normalised texts, clusters by comparing every pair with every earlier
// representative of its group.
func TestIndexMatchesBruteForce(t *testing.T) {
	items := generate(400)
	// The index takes a group's turns together, as Corpus gives them.
	slices.SortStableFunc(items, func(a, b genItem) int { return strings.Compare(a.group, b.group) })
	texts := &memTexts{key: map[Ref][]byte{}, near: map[Ref][]byte{}}
	var settled []Cluster
	ix := NewIndex(0.8, texts, func(c Cluster) error { settled = append(settled, c); return nil })
	assigned := make([]Assignment, len(items))
	for i, it := range items {
		ref := Ref{Run: int32(i)}
		key := appendNormalized(nil, []byte(it.key))
		near := appendNormalized(nil, []byte(it.near))
		texts.key[ref], texts.near[ref] = key, near
		a, err := ix.add(context.Background(), Item{Ref: ref, Group: it.group, Worked: it.worked, Time: it.time}, key, near)
		if err != nil {
			t.Fatal(err)
		}
		assigned[i] = a
	}

	refKeys := make([]string, len(items))
	for i, it := range items {
		refKeys[i] = referenceNormalize(it.key)
	}
	exact := map[string]int{} // normalised text → first item
	type rep struct {
		group    string
		shingles []uint64
	}
	var reps []rep
	cluster := map[string]int{} // exact text → cluster
	groups := map[string]bool{}
	for i, it := range items {
		groups[it.group] = true
		k := refKeys[i]
		if _, ok := exact[k]; ok {
			continue
		}
		exact[k] = i
		sh := appendShingles(nil, []byte(referenceNormalize(it.near)))
		best, bestJ := -1, 0.0
		for c, r := range reps {
			if r.group != it.group {
				continue
			}
			if j := jaccard(sh, r.shingles); j >= 0.8 && j > bestJ {
				best, bestJ = c, j
			}
		}
		if best < 0 {
			best = len(reps)
			reps = append(reps, rep{it.group, sh})
		}
		cluster[k] = best
	}

	f := ix.Figures()
	if f.RawTurns != len(items) || f.ExactUnique != len(exact) || f.Clusters != len(reps) || f.Groups != len(groups) {
		t.Fatalf("index: %d raw, %d exact, %d clusters, %d groups; brute force: %d, %d, %d, %d",
			f.RawTurns, f.ExactUnique, f.Clusters, f.Groups, len(items), len(exact), len(reps), len(groups))
	}
	if f.ExactUnique == f.RawTurns || f.Clusters == f.ExactUnique {
		t.Fatalf("the corpus planted no duplicates: %+v", f)
	}
	// Every item is in the cluster brute force put it in, and the kept copy
	// of each cluster is its best by priority.
	for i := range items {
		a := assigned[i]
		if want := cluster[refKeys[i]]; a.Cluster != want {
			t.Fatalf("item %d in cluster %d, brute force %d", i, a.Cluster, want)
		}
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	if len(settled) != f.Clusters {
		t.Fatalf("%d clusters settled, %d counted", len(settled), f.Clusters)
	}
	// A cluster's number is not settled with it: find it by its kept copy.
	clusterOf := map[Ref]int{}
	for i := range items {
		clusterOf[Ref{Run: int32(i)}] = assigned[i].Cluster
	}
	for _, cl := range settled {
		c := clusterOf[cl.Kept]
		kept := items[cl.Kept.Run]
		for i, it := range items {
			if assigned[i].Cluster == c && newPriority(it.worked, it.time).better(newPriority(kept.worked, kept.time)) {
				t.Fatalf("cluster %d kept item %d, but item %d is from a worked run or newer", c, cl.Kept.Run, i)
			}
		}
	}
}

// A key that matches over different text (a hash collision) is confirmed
// apart, counted, and both pairs are kept.
func TestIndexConfirmsKeysByteForByte(t *testing.T) {
	texts := &memTexts{key: map[Ref][]byte{}, near: map[Ref][]byte{}}
	ix := NewIndex(0, texts, nil)
	a, b := Ref{Run: 0}, Ref{Run: 1}
	texts.key[a], texts.near[a] = []byte("stored text of a"), []byte("alpha beta gamma delta epsilon")
	texts.near[b] = []byte("one two three four five six")
	ctx := context.Background()
	// Both offered with the same key text, but the first copy reads back
	// different on disk: to the index, a collision.
	if _, err := ix.add(ctx, Item{Ref: a, Group: "g"}, []byte("same key text"), texts.near[a]); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.add(ctx, Item{Ref: b, Group: "g"}, []byte("same key text"), texts.near[b]); err != nil {
		t.Fatal(err)
	}
	f := ix.Figures()
	if f.ExactUnique != 2 || f.KeyCollisions != 1 || f.MaxMultiplicity != 1 {
		t.Fatalf("figures %+v: want 2 exact-unique pairs and 1 collision", f)
	}
	// A third copy with the text b holds matches b through the chain.
	texts.key[b] = []byte("same key text")
	if _, err := ix.add(ctx, Item{Ref: Ref{Run: 2}, Group: "g"}, []byte("same key text"), texts.near[b]); err != nil {
		t.Fatal(err)
	}
	if f := ix.Figures(); f.ExactUnique != 2 || f.MaxMultiplicity != 2 {
		t.Fatalf("figures %+v: the third copy should join b", f)
	}
}

// Near-duplicates are sought within a group only.
func TestIndexKeepsGroupsApart(t *testing.T) {
	texts := &memTexts{key: map[Ref][]byte{}, near: map[Ref][]byte{}}
	ix := NewIndex(0, texts, nil)
	near := []byte("RUN tests Tests: 5 ran, all passed.")
	for i, g := range []string{"case-a", "case-b"} {
		ref := Ref{Run: int32(i)}
		texts.key[ref], texts.near[ref] = []byte(g), near
		if _, err := ix.add(context.Background(), Item{Ref: ref, Group: g}, []byte(g), near); err != nil {
			t.Fatal(err)
		}
	}
	if f := ix.Figures(); f.Clusters != 2 {
		t.Fatalf("%d clusters over two groups, want 2", f.Clusters)
	}
}

// A group's turns must come together: a turn of a group the index has
// closed is refused, and nothing is counted for it.
func TestIndexRefusesAReopenedGroup(t *testing.T) {
	texts := &memTexts{key: map[Ref][]byte{}, near: map[Ref][]byte{}}
	ix := NewIndex(0, texts, nil)
	ctx := context.Background()
	for i, g := range []string{"case-a", "case-b", "case-a"} {
		ref := Ref{Run: int32(i)}
		text := []byte(fmt.Sprintf("pair %d of %s", i, g))
		texts.key[ref], texts.near[ref] = text, text
		_, err := ix.add(ctx, Item{Ref: ref, Group: g}, text, text)
		if i < 2 && err != nil {
			t.Fatal(err)
		}
		if i == 2 && !errors.Is(err, errGroupReopened) {
			t.Fatalf("case-a again after case-b: %v, want errGroupReopened", err)
		}
	}
	if f := ix.Figures(); f.RawTurns != 2 || f.Clusters != 2 {
		t.Fatalf("figures %+v: the refused turn was counted", f)
	}
}

// A closed group's clusters keep the key and multiplicity of their kept
// copy, as the open group's do.
func TestIndexSettlesClosedGroups(t *testing.T) {
	texts := &memTexts{key: map[Ref][]byte{}, near: map[Ref][]byte{}}
	var got []Cluster
	ix := NewIndex(0, texts, func(c Cluster) error { got = append(got, c); return nil })
	ctx := context.Background()
	add := func(run int32, g, text string, worked bool) {
		ref := Ref{Run: run}
		texts.key[ref], texts.near[ref] = []byte(text), []byte(text)
		if _, err := ix.add(ctx, Item{Ref: ref, Group: g, Worked: worked}, []byte(text), []byte(text)); err != nil {
			t.Fatal(err)
		}
	}
	add(0, "a", "the same pair twice", false)
	add(1, "a", "the same pair twice", true)
	add(2, "a", "another pair entirely different words", false)
	add(3, "b", "the same pair twice", false)
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	want := []Cluster{
		{Group: "a", Kept: Ref{Run: 1}, KeptKey: Key([]byte("the same pair twice")), KeptMultiplicity: 2, Turns: 2, Exacts: 1},
		{Group: "a", Kept: Ref{Run: 2}, KeptKey: Key([]byte("another pair entirely different words")), KeptMultiplicity: 1, Turns: 1, Exacts: 1},
		{Group: "b", GroupNumber: 1, Kept: Ref{Run: 3}, KeptKey: Key([]byte("the same pair twice")), KeptMultiplicity: 1, Turns: 1, Exacts: 1},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("clusters\n%+v\nwant\n%+v", got, want)
	}
	if f := ix.Figures(); f.ExactUnique != 3 || f.MaxMultiplicity != 2 || f.Groups != 2 {
		t.Fatalf("figures %+v", f)
	}
}
