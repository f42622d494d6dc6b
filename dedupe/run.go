package dedupe

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/pyharness/pyharness/internal/ordered"
	"github.com/pyharness/pyharness/trace"
)

// Options are the knobs of a dedupe run.
type Options struct {
	// Threshold is the Jaccard similarity that makes a near-duplicate
	// (DefaultThreshold when 0).
	Threshold float64
	// JSON writes the report as one JSON document instead of text.
	JSON bool
	// Dataset is the dataset classify wrote of these traces: the
	// fingerprints it stored (printStore) are taken for every run whose
	// trace is byte for byte the one classify read, and only the others are
	// decoded. Empty, or a dataset without them: every run is decoded.
	Dataset string
}

// lowVariety is the variety ratio under which the report says plainly that
// more passes will not help.
const lowVariety = 0.5

// Report is what a dedupe run found.
type Report struct {
	In       string `json:"in"`
	Runs     int    `json:"runs"`
	SetAside int    `json:"earlier_attempts_set_aside"`
	// BadLines are the bad lines of the trace files read; their good
	// records were used.
	trace.BadLines
	// NoModel counts turns settled without the model: they have no draft.
	NoModel int `json:"turns_without_model"`
	// NotRebuilt counts turns whose prompt did not rebuild to its
	// prompt_hash: their context is not known exactly, so they are no pair.
	NotRebuilt int `json:"prompts_not_rebuilt"`
	Figures
	Threshold float64        `json:"threshold"`
	Bands     int            `json:"bands"`
	Rows      int            `json:"rows"`
	ByGroup   []GroupFigures `json:"by_group"`
	// Sentence says plainly when variety is low; empty otherwise.
	Sentence string `json:"sentence,omitempty"`
	// FromStore counts the runs whose fingerprints came from the dataset
	// (Options.Dataset) instead of their trace: how much decoding the
	// store spared. It is not in the report, which is the same either way.
	FromStore int `json:"-"`
	// Unread counts those of them whose trace was not even read, its
	// stamp the one classify read it with (trace.Stamp).
	Unread int `json:"-"`
	// GroupsFromStore counts the runs ordered by the group the store holds
	// for them, their run_start not read for it; Regrouped says one of
	// those groups no longer held and the runs were ordered and read
	// again. Neither is in the report.
	GroupsFromStore int  `json:"-"`
	Regrouped       bool `json:"-"`
}

// errRegroup says that a run was ordered by a group the store holds for it
// that its trace no longer has.
var errRegroup = errors.New("a run's group changed since classify")

// Run dedupes every model turn of the traces in dir and writes the report
// to w.
//
// The runs are read group by group. With a dataset, a run's group is taken
// from the fingerprint store, where classify put it, instead of from its
// run_start, which would have every trace opened twice; each such run's
// group is checked when the run is read (the trace hashes to the bytes
// classify read, or its run_start is read), and if one no longer holds,
// the runs are ordered again from their run_starts and read again.
func Run(ctx context.Context, dir string, opts Options, w io.Writer) (*Report, error) {
	var store *printStore
	if opts.Dataset != "" {
		var err error
		if store, err = openPrints(opts.Dataset); err != nil {
			return nil, fmt.Errorf("dedupe: %w", err)
		}
		defer store.Close()
		if store.Len() == 0 {
			store = nil // nothing to look up: no trace need be hashed
		}
	}
	rep, err := run(ctx, dir, opts, store, true, w)
	if errors.Is(err, errRegroup) {
		rep, err = run(ctx, dir, opts, store, false, w)
		if rep != nil {
			rep.Regrouped = true
		}
	}
	return rep, err
}

// run is Run with the store, whose groups order the runs when storeGroups.
func run(ctx context.Context, dir string, opts Options, store *printStore, storeGroups bool, w io.Writer) (*Report, error) {
	var known func(trace.File) (string, bool)
	if store != nil && storeGroups {
		known = store.group
	}
	c, err := trace.OpenCorpusKnowing(ctx, dir, GroupOf, known)
	if err != nil {
		return nil, err
	}
	src := &printSource{corpus: c, store: store, known: known}
	ix := NewIndex(opts.Threshold, src, nil)
	rep := &Report{In: dir, SetAside: c.SetAside(), Threshold: ix.threshold, Bands: Bands, Rows: Rows}
	rep.GroupsFromStore = c.KnownGroups()
	idx := make([]int32, c.Len())
	for i := range idx {
		idx[i] = int32(i)
	}
	for _, run := range ordered.Map(idx, runtime.GOMAXPROCS(0), src.load) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if run.regroup {
			return nil, errRegroup
		}
		if run.err != nil {
			rep.AddFile(run.err)
		}
		if run.prints == nil {
			continue
		}
		src.keep(run)
		rep.Runs++
		if run.fromStore {
			rep.FromStore++
			if run.unread {
				rep.Unread++
			}
		}
		group := c.Group(int(run.index))
		for i := range run.prints.Turns {
			t := &run.prints.Turns[i]
			switch t.What {
			case turnNoModel:
				rep.NoModel++
				continue
			case turnNotRebuilt:
				rep.NotRebuilt++
				continue
			}
			it := Item{Ref: Ref{Run: run.index, Turn: int32(i)}, Group: group, Worked: run.prints.Worked, Time: t.Time}
			if _, err := ix.AddFingerprint(ctx, it, &t.Print); err != nil {
				return nil, fmt.Errorf("dedupe: %w", err)
			}
		}
	}
	if err := ix.Close(); err != nil {
		return nil, fmt.Errorf("dedupe: %w", err)
	}
	rep.Figures = ix.Figures()
	rep.ByGroup = ix.ByGroup()
	rep.Sentence = Sentence(rep.Runs, rep.Figures, allCases(rep.ByGroup))
	if opts.JSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return rep, fmt.Errorf("write dedupe report: %w", err)
		}
		return rep, nil
	}
	if err := rep.writeText(w); err != nil {
		return rep, fmt.Errorf("write dedupe report: %w", err)
	}
	return rep, nil
}

// printSource gives dedupe the fingerprints of each run: the store's
// when the run's trace is the one classify read, else made from the trace,
// decoded. It serves the index the key digest and shingles of the pairs
// it confirms against, from the runs it read last (runs come group by
// group, so those are nearly always there) or read again.
type printSource struct {
	corpus *trace.Corpus
	store  *printStore // nil: decode every run
	// known gave the corpus the groups it had from the store (nil: every
	// group came from a run_start).
	known  func(trace.File) (string, bool)
	recent []loadedRun // most recent last
}

// loadedRun is one run's fingerprints, or nil when the run has no
// run_start or could not be read; err is what reading it met.
type loadedRun struct {
	index     int32
	prints    *runPrints
	err       error
	fromStore bool
	unread    bool // from the store by the trace's stamp, unread
	// regroup says the run's group is not the one it was ordered by.
	regroup bool
}

// recentRuns is how many runs' fingerprints printSource keeps for the
// index's confirmations.
const recentRuns = 16

// load reads run i: it touches nothing of s but the corpus's file list
// and the store, so that several runs load at once.
func (s *printSource) load(i int32) loadedRun {
	f := s.corpus.File(int(i))
	if s.store != nil {
		// A trace whose stamp is the one classify read it with is not
		// read at all: these are the bytes classify read, and a group
		// the store gave the corpus for them is theirs.
		if stamp, err := trace.StatStamp(f.Path); err == nil {
			if p, ok := s.store.lookupByStamp(f, stamp); ok {
				return loadedRun{index: i, prints: p, fromStore: true, unread: true}
			}
		}
		// A file that cannot be read is read again below, which says why.
		data, _, done, err := trace.ReadWhole(f.Path)
		if err == nil {
			// These are the bytes classify read: a group the store gave
			// the corpus for them is theirs.
			p, ok := s.store.lookup(f, data)
			done()
			if ok {
				return loadedRun{index: i, prints: p, fromStore: true}
			}
		}
	}
	if s.known != nil {
		if g, ok := s.known(f); ok {
			// Ordered by the group of the bytes classify read, which
			// these are not: the run_start says whether it still holds,
			// as OpenCorpus reads it.
			actual := ""
			if st, err := trace.ReadStart(f); err == nil {
				actual = GroupOf(st)
			}
			if actual != g {
				return loadedRun{index: i, regroup: true}
			}
		}
	}
	r, err := s.corpus.Read(int(i))
	if r == nil {
		return loadedRun{index: i, err: err}
	}
	l := loadedRun{index: i, err: r.Err()}
	if r.Start != nil {
		l.prints = makeRunPrints(r)
	}
	return l
}

// keep puts a run at the recent end.
func (s *printSource) keep(l loadedRun) {
	if len(s.recent) >= recentRuns {
		s.recent = slices.Delete(s.recent, 0, 1)
	}
	s.recent = append(s.recent, l)
}

// pair returns the fingerprint of the pair at ref.
func (s *printSource) pair(ref Ref) (*Fingerprint, error) {
	var p *runPrints
	for k := len(s.recent) - 1; k >= 0; k-- {
		if s.recent[k].index == ref.Run {
			p = s.recent[k].prints
			break
		}
	}
	if p == nil {
		l := s.load(ref.Run)
		if l.prints == nil {
			return nil, fmt.Errorf("read run again: %w", cmp.Or(l.err, errors.New("no run_start")))
		}
		s.keep(l)
		p = l.prints
	}
	if int(ref.Turn) >= len(p.Turns) || p.Turns[ref.Turn].What != turnPair {
		return nil, errors.New("no such pair in " + s.corpus.File(int(ref.Run)).Path)
	}
	return &p.Turns[ref.Turn].Print, nil
}

// KeyText appends the key digest of ref (confirmDigest): the index
// compares it with the digest the new pair's fingerprint carries.
func (s *printSource) KeyText(dst []byte, ref Ref) ([]byte, error) {
	fp, err := s.pair(ref)
	if err != nil {
		return dst, err
	}
	return append(dst, fp.KeyText...), nil
}

// Shingles appends the shingles of ref's near text.
func (s *printSource) Shingles(dst []uint64, ref Ref) ([]uint64, error) {
	fp, err := s.pair(ref)
	if err != nil {
		return dst, err
	}
	return append(dst, fp.Shingles...), nil
}

// allCases reports whether every group is a benchmark case (named without
// a source prefix).
func allCases(groups []GroupFigures) bool {
	for _, g := range groups {
		if strings.Contains(g.Group, "/") {
			return false
		}
	}
	return true
}

// Sentence is the plain statement of low variety, or "" when the variety
// ratio is at least lowVariety.
func Sentence(runs int, f Figures, onlyCases bool) string {
	if f.RawTurns == 0 || f.VarietyRatio >= lowVariety {
		return ""
	}
	what := "cases"
	if !onlyCases {
		what = "cases and tasks"
	}
	return fmt.Sprintf("%d runs gave %d turns but %d distinct pairs, from %d %s: collect on more repositories, not more passes.",
		runs, f.RawTurns, f.Clusters, f.Groups, what)
}

// writeText writes the report for a person.
func (r *Report) writeText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Dedupe of %s: %d runs", r.In, r.Runs)
	if r.SetAside > 0 {
		fmt.Fprintf(&b, " (%d earlier attempts set aside)", r.SetAside)
	}
	b.WriteString("\n\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "raw turns\t%d\tmodel turns with a rebuilt prompt\n", r.RawTurns)
	fmt.Fprintf(tw, "exact-unique\t%d\tafter normalising; most copies of one pair: %d\n", r.ExactUnique, r.MaxMultiplicity)
	fmt.Fprintf(tw, "near-unique clusters\t%d\tJaccard ≥ %.2f on token 5-grams of draft + last message, %d bands × %d rows\n", r.Clusters, r.Threshold, r.Bands, r.Rows)
	fmt.Fprintf(tw, "groups\t%d\tcases and dogfood tasks\n", r.Groups)
	fmt.Fprintf(tw, "variety ratio\t%.2f\tclusters ÷ raw turns\n", r.VarietyRatio)
	tw.Flush()
	if r.NoModel > 0 || r.NotRebuilt > 0 || r.FilesWithErrors > 0 || r.KeyCollisions > 0 {
		b.WriteString("\n")
		if r.NoModel > 0 {
			fmt.Fprintf(&b, "%d turn(s) settled without the model are not pairs.\n", r.NoModel)
		}
		if r.NotRebuilt > 0 {
			fmt.Fprintf(&b, "%d turn(s) left out: their prompt did not rebuild to its prompt_hash.\n", r.NotRebuilt)
		}
		r.WriteBadLines(&b)
		if r.KeyCollisions > 0 {
			fmt.Fprintf(&b, "%d key collision(s): equal keys over different text, kept apart.\n", r.KeyCollisions)
		}
	}
	if len(r.ByGroup) > 0 {
		b.WriteString("\n")
		tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "group\tturns\texact-unique\tclusters\t\n")
		for _, g := range r.ByGroup {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t\n", g.Group, g.RawTurns, g.ExactUnique, g.Clusters)
		}
		tw.Flush()
	}
	if r.Sentence != "" {
		fmt.Fprintf(&b, "\n%s\n", r.Sentence)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
