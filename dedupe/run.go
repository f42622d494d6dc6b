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

	"github.com/pyharness/pyharness/classify/derivedcache"
	"github.com/pyharness/pyharness/internal/ordered"
	"github.com/pyharness/pyharness/schemas/trace"
)

// Options are the knobs of a dedupe run.
type Options struct {
	// Threshold is the Jaccard similarity that makes a near-duplicate
	// (DefaultThreshold when 0).
	Threshold float64
	// JSON writes the report as one JSON document instead of text.
	JSON bool
	// Dataset is the dataset classify wrote of these traces: the
	// fingerprints it stored (Deriver) are taken for every run whose
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
	// stamp the one classify read it with.
	Unread int `json:"-"`
	// GroupsFromStore counts the runs ordered by the group the store holds
	// for them, their run_start not read for it; Regrouped says one of
	// those groups no longer held and the runs were ordered and read
	// again. Neither is in the report.
	GroupsFromStore int  `json:"-"`
	Regrouped       bool `json:"-"`
}

// Run dedupes every model turn of the traces in dir and writes the report
// to w. With a dataset, each run's fingerprints and group come from what
// classify stored (derived.Regroup and Lookup say how), and the others
// are decoded.
func Run(ctx context.Context, dir string, opts Options, w io.Writer) (*Report, error) {
	var store *derivedcache.Store
	if opts.Dataset != "" {
		var err error
		if store, err = openPrints(opts.Dataset); err != nil {
			return nil, fmt.Errorf("dedupe: %w", err)
		}
		defer store.Close()
	}
	rep, regrouped, err := derivedcache.Regroup(store, func(l derivedcache.Lookup) (*Report, error) {
		return run(ctx, dir, opts, l)
	})
	if err != nil {
		return rep, err
	}
	rep.Regrouped = regrouped
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

// run is one pass of Run over the runs, their entries found by l.
func run(ctx context.Context, dir string, opts Options, l derivedcache.Lookup) (*Report, error) {
	c, err := trace.OpenCorpus(ctx, dir, l.Groups())
	if err != nil {
		return nil, err
	}
	src := &printSource{corpus: c, lookup: l}
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
			return nil, derivedcache.ErrRegroup
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
	return rep, nil
}

// printSource gives dedupe the fingerprints of each run: the store's
// when the run's trace is the one classify read, else made from the trace,
// decoded. It serves the index the key digest and shingles of the pairs
// it confirms against, from the runs it read last (runs come group by
// group, so those are nearly always there) or read again.
type printSource struct {
	corpus *trace.Corpus
	lookup derivedcache.Lookup
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
	var p *runPrints
	got, err := s.lookup.Load(s.corpus.File(int(i)), readPrints(&p))
	switch {
	case err != nil:
		return loadedRun{index: i, regroup: true}
	case got.Entry != nil:
		return loadedRun{index: i, prints: p, fromStore: true, unread: got.Unread}
	}
	l := loadedRun{index: i, err: got.Err}
	if got.Run.Start != nil {
		r := trace.Rebuild(got.Run)
		r.Index = i
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
