package export

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/pyharness/pyharness/classify/derivedcache"
	"github.com/pyharness/pyharness/classify/turnlabel"
	"github.com/pyharness/pyharness/datasets"
	"github.com/pyharness/pyharness/dedupe"
	"github.com/pyharness/pyharness/internal/ordered"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

// NothingError says that the selection left nothing to export, and why.
// No file is written.
type NothingError struct{ Why string }

func (e *NothingError) Error() string { return "nothing exported: " + e.Why }

// Run exports the traces of opts.In to opts.Out in opts.Format and writes a
// summary to w. It returns a *NothingError, with the summary, when the
// selection leaves nothing, and writes no file then.
func Run(ctx context.Context, opts Options, w io.Writer) (*Summary, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	var facts *derivedcache.Store
	if opts.Dataset != "" {
		var err error
		if facts, err = openFacts(opts.Dataset); err != nil {
			return nil, fmt.Errorf("export: %w", err)
		}
		defer facts.Close()
	}
	// With classify's facts, the runs are ordered by the groups stored
	// with them (derived.Regroup): nothing is written before a pass that
	// finds one stale ends, and the export starts again.
	e, regrouped, err := derivedcache.Regroup(facts, func(l derivedcache.Lookup) (*exporter, error) {
		return exportRuns(ctx, opts, l)
	})
	if e == nil {
		return nil, err
	}
	e.sum.Regrouped = regrouped
	sum := e.sum
	sum.Redactions, sum.SecretValues = e.red.Count, len(e.red.values)
	var nothing *NothingError
	if err != nil && !errors.As(err, &nothing) {
		return sum, err
	}
	if werr := sum.writeText(w); werr != nil && err == nil {
		err = fmt.Errorf("write export summary: %w", werr)
	}
	return sum, err
}

// exportRuns makes one export of opts, its runs' stored facts found by l.
// It returns the exporter, whose summary says what was done, unless the
// traces could not be listed.
func exportRuns(ctx context.Context, opts Options, l derivedcache.Lookup) (*exporter, error) {
	c, err := trace.OpenCorpus(ctx, opts.In, l.Groups())
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	e := &exporter{opts: opts, corpus: c, lookup: l, red: newRedactor(), scanned: map[string]bool{},
		tags: map[string]bool{}, models: map[schemas.Model]bool{}, drafters: map[string]*Drafter{},
		sum: &Summary{Format: opts.Format, In: opts.In, Out: opts.Out, SetAside: c.SetAside(),
			RunsLeftOut: Tally{}, TurnsLeftOut: Tally{}, Splits: map[string]SplitCounts{}, opts: opts,
			GroupsFromStore: c.KnownGroups()}}
	if opts.KeepToolCalls {
		e.tools = harnessTools()
	}
	if opts.Format == FormatDPO {
		err = e.runDPO(ctx)
	} else {
		err = e.runSFT(ctx)
	}
	return e, err
}

// exporter holds one export's state.
type exporter struct {
	opts   Options
	corpus *trace.Corpus
	red    *redactor
	// lookup finds the facts classify stored of each run
	// (Options.Dataset).
	lookup  derivedcache.Lookup
	scanned map[string]bool // repositories searched for environment files
	sum     *Summary
	cases   map[string]datasets.Case
	// tags and models are those of every run read (models by backend and
	// name), to name a --tag or --model value that matches no run.
	tags     map[string]bool
	models   map[schemas.Model]bool
	drafters map[string]*Drafter
	// tools is the tools column of a --keep-tool-calls export.
	tools []tool
}

// considered streams the runs that pass the run filters, tallying the rest
// and learning every run's secrets on the way. prep runs on the worker
// that read each run (firstPass), and each gets its value.
func considered[T any](ctx context.Context, e *exporter, forDPO bool, prep func(*passRun) T, each func(*passRun, T) error) error {
	for m, err := range firstPass(ctx, e, forDPO, prep) {
		if err != nil {
			return err
		}
		run := &m.passRun
		e.sum.Runs++
		if run.run == nil {
			e.sum.FromStore++
			if run.unread {
				e.sum.Unread++
			}
		}
		e.learnSecrets(run.start, m.secrets)
		if s := run.start; s != nil {
			for _, t := range s.Tags {
				e.tags[t] = true
			}
			e.models[schemas.Model{Backend: s.Model.Backend, Name: s.Model.Name}] = true
		}
		if why := e.opts.runWhy(run.start, run.end, forDPO); why != "" {
			e.sum.RunsLeftOut[why]++
			continue
		}
		e.sum.RunsConsidered++
		if run.start.Model.HandWritten() {
			e.sum.ScriptedRuns++
		}
		e.sum.Turns += run.turns
		if err := each(run, m.value); err != nil {
			return err
		}
	}
	return nil
}

// passRun is a run as the first pass takes it: its run_start and run_end
// (of which runWhy reads a few fields), the number of its turns, and
// either the run decoded (run) or, served from classify's store, the facts
// of its turns (facts: nil for a run the run filters leave out).
type passRun struct {
	index int32
	start *schemas.RunStart
	end   *schemas.RunEnd
	turns int
	run   *trace.RebuiltRun
	facts []turnFacts
	// unread says the store served the run by its trace's stamp, the
	// trace not read.
	unread bool
}

func decodedRun(r *trace.RebuiltRun) passRun {
	return passRun{index: r.Index, start: r.Start, end: r.End, turns: len(r.Turns), run: r}
}

// worked reports whether the run ended with the verdict worked.
func (r *passRun) worked() bool { return r.end != nil && r.end.Verdict == schemas.VerdictWorked }

// prepared is a run of the first pass with its secret values and the
// value prep made of it on the worker that read it: scanning every message
// and draft for secrets is work of its own run only, and the values are
// learned in run order, as they were when found in that order.
type prepared[T any] struct {
	passRun
	secrets []string
	value   T
}

// firstPass streams every run in order, each with its secret values and
// prep's value, reading them ahead on every core. Without a store it
// decodes every run (trace.MapRuns). With classify's store (Options.Dataset)
// a run whose trace is byte for byte the one classify read is served from
// the store (loadRun), and only the others are decoded.
func firstPass[T any](ctx context.Context, e *exporter, forDPO bool, prep func(*passRun) T) iter.Seq2[prepared[T], error] {
	made := func(r passRun, secrets []string) prepared[T] {
		p := prepared[T]{passRun: r, secrets: secrets}
		p.value = prep(&p.passRun)
		return p
	}
	if !e.lookup.Stored() {
		// A run the run filters leave out gives no turn: its prompts are
		// not rebuilt.
		rebuild := func(run *trace.Run) bool { return e.opts.runWhy(run.Start, run.End, forDPO) == "" }
		prepare := func(run *trace.RebuiltRun) prepared[T] { return made(decodedRun(run), secretsOf(run)) }
		return func(yield func(prepared[T], error) bool) {
			for m, err := range trace.MapRuns(ctx, e.corpus, rebuild, prepare, e.sum.AddFile) {
				if !yield(m.Value, err) || err != nil {
					return
				}
			}
		}
	}
	// The stored facts of a run's turns serve an SFT export of the default
	// training text; any other decodes the runs the run filters take.
	turnsFromFacts := !forDPO && !e.opts.AsWritten && !e.opts.KeepToolCalls
	return func(yield func(prepared[T], error) bool) {
		idx := make([]int32, e.corpus.Len())
		for i := range idx {
			idx[i] = int32(i)
		}
		type loaded struct {
			p       prepared[T]
			problem error
		}
		load := func(i int32) loaded {
			if ctx.Err() != nil {
				return loaded{}
			}
			r, secrets, problem := e.loadRun(i, forDPO, turnsFromFacts)
			return loaded{made(r, secrets), problem}
		}
		for _, l := range ordered.Map(idx, runtime.GOMAXPROCS(0), load) {
			if err := ctx.Err(); err != nil {
				yield(prepared[T]{}, err)
				return
			}
			if errors.Is(l.problem, derivedcache.ErrRegroup) {
				yield(prepared[T]{}, derivedcache.ErrRegroup)
				return
			}
			if l.problem != nil {
				e.sum.AddFile(l.problem)
			}
			if !yield(l.p, nil) {
				return
			}
		}
	}
}

// loadRun reads run i from classify's store when the store holds it for
// exactly the bytes of its trace and its facts are all the pass needs
// (runFromFacts), and decodes the trace otherwise (a run added, grown or
// changed since the classify, an entry that does not read, or a run the
// run filters take whose turns are wanted decoded). It returns the run's
// secret values and the problems of its file, as trace.MapRuns reports
// them.
func (e *exporter) loadRun(i int32, forDPO, turnsFromFacts bool) (passRun, []string, error) {
	var r passRun
	var secrets []string
	got, err := e.lookup.Load(e.corpus.File(int(i)), func(entry []byte) bool {
		var ok bool
		r, secrets, ok = e.runFromFacts(i, entry, forDPO, turnsFromFacts)
		return ok
	})
	if err != nil {
		return passRun{}, nil, err
	}
	if got.Entry != nil {
		r.unread = got.Unread
		return r, secrets, nil
	}
	tr := got.Run
	run := &trace.RebuiltRun{Run: tr}
	if e.opts.runWhy(tr.Start, tr.End, forDPO) == "" {
		run = trace.Rebuild(tr)
	}
	run.Index = i
	return decodedRun(run), secretsOf(run), got.Err
}

// runFromFacts returns run i as entry (the facts classify stored of its
// trace) gives it, and true, when the entry reads whole and is all the
// pass needs: the run is left out by its filters, or its turns' facts are
// what the pass reads (turnsFromFacts) and the entry has them. Otherwise
// the run's turns are to be decoded.
func (e *exporter) runFromFacts(i int32, entry []byte, forDPO, turnsFromFacts bool) (passRun, []string, bool) {
	rf, err := readRunFacts(entry)
	if err != nil {
		return passRun{}, nil, false
	}
	r := passRun{index: i, start: rf.start, end: rf.end, turns: rf.turns}
	if e.opts.runWhy(rf.start, rf.end, forDPO) != "" {
		return r, rf.secrets, true
	}
	if turnsFromFacts && rf.turnFacts != nil {
		r.facts = rf.turnFacts
		return r, rf.secrets, true
	}
	return passRun{}, nil, false
}

// learnSecrets learns the secret values of a run: those of the
// environment files of its repository (on disk, or the embedded fixture
// of a benchmark case) and those assigned in its messages and drafts
// (secretsOf, found on the worker that read the run).
func (e *exporter) learnSecrets(s *schemas.RunStart, assigned []string) {
	if s != nil {
		e.learnRepo(s)
	}
	e.red.add(assigned...)
}

// secretsOf returns the secret values assigned in a run's messages and
// drafts (and its native calls' string arguments), in the order they
// appear.
func secretsOf(run *trace.RebuiltRun) []string {
	var found []string
	for _, t := range run.Turns {
		for _, m := range t.Sent.Messages {
			found = appendSecrets(found, m.Content)
		}
		found = appendSecrets(found, t.Reply.Content)
		for _, c := range t.Reply.ToolCalls {
			for _, v := range c.Arguments {
				if s, ok := v.(string); ok {
					found = appendSecrets(found, s)
				}
			}
		}
	}
	return found
}

func (e *exporter) learnRepo(s *schemas.RunStart) {
	// Only a repository at an absolute path can be found again; a relative
	// one is not remembered either, so a corpus of many tasks costs nothing.
	if p := s.Repo.Path; filepath.IsAbs(p) && !e.scanned[p] {
		e.scanned[p] = true
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			e.red.addRepo(os.DirFS(p))
		}
	}
	if s.Source != schemas.SourceBench || s.CaseID == "" {
		return
	}
	if e.cases == nil {
		e.cases = map[string]datasets.Case{}
		if all, err := datasets.Cases(); err == nil {
			for _, c := range all {
				e.cases[c.ID] = c
			}
		}
	}
	// Only an embedded case has files to scan: an unknown case id is not
	// remembered, so a corpus of many cases costs nothing here.
	if c, ok := e.cases[s.CaseID]; ok && !e.scanned["case:"+s.CaseID] {
		e.scanned["case:"+s.CaseID] = true
		e.red.addRepo(c.Repo())
	}
}

// pairRow is a selected pair waiting to be written.
type pairRow struct {
	ref     dedupe.Ref
	rejRef  dedupe.Ref // preference pairs: the rejected draft
	group   string
	gnum    int32 // the group's number in the names write is given
	split   string
	weight  float64
	copies  int
	key     uint64
	mult    int
	cluster int
}

// runSFT selects the SFT pairs, dedupes them group by group and writes
// one row per cluster. The index hands over each group's clusters as the
// group closes; they wait in a spill file (28 bytes each), not in memory,
// until the weights, which depend on every group's size, are known.
func (e *exporter) runSFT(ctx context.Context) error {
	spill, err := newPairSpill()
	if err != nil {
		return err
	}
	defer spill.remove()
	settled := func(cl dedupe.Cluster) error {
		return spill.add(pairRow{ref: cl.Kept, key: cl.KeptKey, mult: cl.KeptMultiplicity, cluster: cl.Turns}, cl.GroupNumber)
	}
	rd := newRenderer(e.opts, nil)
	var texts dedupe.Texts = dedupe.CorpusTexts{Corpus: e.corpus, Render: rd.training}
	if e.lookup.Stored() {
		// The store's fingerprints carry the SHA-256 of the key text, and
		// so do the ones made here then: keys are confirmed by digest.
		texts = dedupe.Digests{Texts: texts}
	}
	recent := &recentPrints{texts: texts}
	ix := dedupe.NewIndex(e.opts.Threshold, recent, settled)
	selectTurns := func(run *passRun) turnSelection { return e.selectTurns(rd, run) }
	err = considered(ctx, e, false, selectTurns, func(run *passRun, sel turnSelection) error {
		recent.keep(run.index, sel.fps)
		group, worked := e.corpus.Group(int(run.index)), run.worked()
		for i := range sel.whys {
			if why := sel.whys[i]; why != "" {
				e.sum.TurnsLeftOut[why]++
				continue
			}
			e.sum.Selected++
			it := dedupe.Item{Ref: dedupe.Ref{Run: run.index, Turn: int32(i)}, Group: group, Worked: worked, Time: sel.times[i]}
			if _, err := ix.AddFingerprint(ctx, it, &sel.fps[i]); err != nil {
				return fmt.Errorf("export: %w", err)
			}
		}
		return nil
	})
	if err == nil {
		err = ix.Close()
	}
	if err != nil {
		return err
	}
	e.sum.Dedupe = ix.Figures()
	if e.sum.Dedupe.Clusters == 0 {
		e.sum.Unmatched = e.unmatched()
		e.sum.Why = unmatchedWhy(e.sum.Unmatched) + nothingWhy(e.sum.Runs, e.sum.RunsLeftOut, e.sum.TurnsLeftOut, 0)
		return &NothingError{Why: e.sum.Why}
	}
	sizes := map[string]int{}
	for _, g := range ix.ByGroup() {
		sizes[g.Group] = g.Clusters
	}
	names := ix.GroupNames() // all the rows below need of the index, which is let go
	weights := groupWeights(sizes, e.opts.Alpha, e.opts.Cap)
	splits := assignSplits(mapKeys(sizes), e.opts.Valid, e.opts.Test, e.opts.Seed)
	pairs := map[string]int{}
	for g, n := range sizes {
		pairs[splits[g]] += n
	}
	// The spill holds the clusters group by group, each group's in the
	// order of their kept copies, and the corpus gives runs group by group:
	// read once per split, it gives the split's pairs in trace order.
	rows := func(split string) iter.Seq2[*pairRow, error] {
		return func(yield func(*pairRow, error) bool) {
			for r, err := range spill.rows(names) {
				if err != nil {
					yield(nil, err)
					return
				}
				if splits[r.group] != split {
					continue
				}
				r.split, r.weight = split, weights[r.group]
				if !yield(r, nil) {
					return
				}
			}
		}
	}
	return e.write(ctx, pairs, rows, names, splits, weights)
}

// turnSelection is why each turn of a run is no pair ("" for a selected
// turn), and the fingerprint and time of each selected turn, of the text
// it will be trained on.
type turnSelection struct {
	whys  []string
	fps   []dedupe.Fingerprint
	times []int64
}

// selectTurns decides the turns of a run on the worker that read it:
// deciding a turn parses its draft, work that the one goroutine taking
// the runs in order would otherwise do alone. A run served from
// classify's store has its facts and fingerprints stored.
func (e *exporter) selectTurns(rd *renderer, run *passRun) turnSelection {
	if e.opts.runWhy(run.start, run.end, false) != "" {
		return turnSelection{}
	}
	sel := turnSelection{whys: make([]string, run.turns), fps: make([]dedupe.Fingerprint, run.turns), times: make([]int64, run.turns)}
	if run.facts != nil {
		for i, t := range run.facts {
			sel.times[i] = t.time
			if sel.whys[i] = e.opts.whyOf(t.facts, e.opts.kindIn(t.kind)); sel.whys[i] == "" {
				sel.fps[i] = t.print
			}
		}
		return sel
	}
	var f dedupe.Fingerprinter
	for i := range run.run.Turns {
		sel.times[i] = run.run.Time(i)
		var p parsedDraft
		if sel.whys[i] = e.opts.turnWhy(run.run, i, &p); sel.whys[i] == "" {
			sel.fps[i] = trainingPrint(&f, rd, run.run, i, &p, e.lookup.Stored())
		}
	}
	return sel
}

func mapKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// write renders the rows through the format's sink, split by split (so
// meta.jsonl runs train, validation, test), each split's rows as rows
// gives them (in trace order), then writes the card. pairs counts the
// pairs of each split; names names the groups the rows' gnum number.
func (e *exporter) write(ctx context.Context, pairs map[string]int, rows func(split string) iter.Seq2[*pairRow, error],
	names []string, splits map[string]string, weights map[string]float64) error {
	splitNames := []string{SplitTrain, splitValidation}
	if e.opts.Test > 0 {
		splitNames = append(splitNames, splitTest)
	}
	if err := removeStale(e.opts.Out); err != nil {
		return err
	}
	var sk sink
	var err error
	switch e.opts.Format {
	case FormatJSONL, FormatDPO:
		var js *jsonlSink
		js, err = newJSONLSink(e.opts.Out, splitNames, e.opts.Format == FormatDPO)
		if err == nil && e.opts.ChatTemplate != nil {
			e.checkRows(js)
		}
		sk = js
	case FormatParquet:
		sk = newParquetRows(e.opts, pairs)
	}
	if err != nil {
		return err
	}
	e.red.sortValues() // every value is learned: the renderers only read them now
	w := &splitWriter{e: e, sk: sk, fromRun: make([]bool, e.corpus.Len()),
		groupRows: make([]int, len(names)), groupPairs: make([]int, len(names))}
	for _, split := range splitNames {
		if err := w.write(ctx, rows(split)); err != nil {
			sk.abort()
			return err
		}
	}
	fromRun, groupRows, groupPairs := w.fromRun, w.groupRows, w.groupPairs
	files, err := sk.close()
	if err != nil {
		return err
	}
	for _, sp := range splitNames {
		if _, ok := e.sum.Splits[sp]; !ok && e.opts.Format != FormatParquet {
			e.sum.Splits[sp] = SplitCounts{}
		}
	}
	for g, name := range names {
		sp, ok := splits[name]
		if !ok {
			continue
		}
		sc := e.sum.Splits[sp]
		sc.Groups++
		e.sum.Splits[sp] = sc
		e.sum.Groups = append(e.sum.Groups, GroupRow{Group: name, Split: sp, Pairs: groupPairs[g], Weight: weights[name], Rows: groupRows[g]})
	}
	slices.SortFunc(e.sum.Groups, func(a, b GroupRow) int {
		if c := strings.Compare(splitOrder(a.Split), splitOrder(b.Split)); c != 0 {
			return c
		}
		return strings.Compare(a.Group, b.Group)
	})
	e.sum.SourceRuns = []string{}
	for i, ok := range fromRun {
		if ok {
			e.sum.SourceRuns = append(e.sum.SourceRuns, e.corpus.File(i).RunID)
		}
	}
	slices.Sort(e.sum.SourceRuns)
	e.sum.Drafters = []Drafter{}
	for _, m := range mapKeys(e.drafters) {
		e.sum.Drafters = append(e.sum.Drafters, *e.drafters[m])
	}
	slices.SortStableFunc(e.sum.Drafters, func(a, b Drafter) int { return cmp.Compare(b.Pairs, a.Pairs) })
	e.sum.Unmatched = e.unmatched()
	e.sum.Redactions = e.red.Count
	card, err := createAtomic(filepath.Join(e.opts.Out, "README.md"))
	if err != nil {
		return err
	}
	if err := writeCard(card, e.sum, files); err != nil {
		card.abort()
		return fmt.Errorf("write dataset card: %w", err)
	}
	if err := card.commit(); err != nil {
		return err
	}
	e.sum.Files = append(files, "README.md")
	return nil
}

// splitWriter renders the rows of an export and writes them through its
// sink, counting them in the summary, in fromRun (the runs that gave a
// row) and per group.
type splitWriter struct {
	e                     *exporter
	sk                    sink
	fromRun               []bool
	groupRows, groupPairs []int
	batch                 []stretch
	rows                  int // in batch
}

// stretch is a run's consecutive rows, rendered together on a worker.
type stretch struct {
	run  int32
	rows []pairRow
	// Set by renderStretch:
	out        []*row
	redactions int
	err        error
}

// batchRows is how many rows are rendered at once, on every core, before
// they are written in order: enough to keep the cores busy, few enough
// that the rendered rows (whole prompts) take a few MB.
const batchRows = 2048

// write renders and writes the rows of one split as rows gives them.
// Reading a row's run again and rendering it (building the messages,
// redacting them) is most of writing, and needs nothing from the other
// rows, so it runs on every core, a stretch of one run's rows per job; the
// rows are written in the order they came.
func (w *splitWriter) write(ctx context.Context, rows iter.Seq2[*pairRow, error]) error {
	e := w.e
	for r, err := range rows {
		if err == nil {
			err = ctx.Err()
		}
		if err != nil {
			return err
		}
		r.copies = 1
		if e.opts.Format == FormatJSONL && r.split == SplitTrain {
			r.copies = copiesOf(r.weight, e.opts.Seed, fmt.Sprintf("%016x", r.key))
			if r.copies == 0 {
				e.sum.ZeroCopies++
			}
		}
		if n := len(w.batch); n == 0 || w.batch[n-1].run != r.ref.Run {
			w.batch = append(w.batch, stretch{run: r.ref.Run})
		}
		last := &w.batch[len(w.batch)-1]
		last.rows = append(last.rows, *r)
		if w.rows++; w.rows >= batchRows {
			if err := w.flush(); err != nil {
				return err
			}
		}
	}
	return w.flush()
}

// flush renders the batch on every core and writes its rows in order.
func (w *splitWriter) flush() error {
	e := w.e
	defer func() {
		clear(w.batch) // let the rendered rows go
		w.batch, w.rows = w.batch[:0], 0
	}()
	render := func(st stretch) stretch { return e.renderStretch(st, w.sk) }
	for _, st := range ordered.Map(w.batch, runtime.GOMAXPROCS(0), render) {
		if st.err != nil {
			return st.err
		}
		e.red.Count += st.redactions
		for k := range st.rows {
			r, out := &st.rows[k], st.out[k]
			e.countDrafter(out)
			if out.meta.AsWritten != "" {
				e.sum.Rewritten++
			}
			if out.reasoned {
				e.sum.Reasoned++
			}
			if r.copies > 0 {
				if err := w.sk.write(out); err != nil {
					return err
				}
				w.fromRun[r.ref.Run] = true
				if out.meta.RejectedRunID != "" {
					w.fromRun[r.rejRef.Run] = true
				}
			}
			n := r.copies
			sc := e.sum.Splits[r.split]
			sc.Pairs++
			sc.Rows += n
			e.sum.Splits[r.split] = sc
			w.groupRows[r.gnum] += n
			w.groupPairs[r.gnum]++
		}
	}
	return nil
}

// renderStretch reads the stretch's run (and, for preference pairs, each
// rejected draft's run), renders its rows and has sk encode the ones that
// will be written. It runs on a worker: it reads the corpus without its
// cache and touches nothing of e but what stays fixed while rows are
// written.
func (e *exporter) renderStretch(st stretch, sk sink) stretch {
	run, err := e.corpus.Read(int(st.run))
	if err != nil {
		st.err = fmt.Errorf("export: %w", err)
		return st
	}
	rd := newRenderer(e.opts, e.red)
	st.out = make([]*row, len(st.rows))
	var rej *trace.RebuiltRun // the run of the last rejected draft read
	for k := range st.rows {
		r := &st.rows[k]
		if e.opts.Format == FormatDPO && (rej == nil || rej.Index != r.rejRef.Run) {
			if r.rejRef.Run == st.run {
				rej = run
			} else if rej, err = e.corpus.Read(int(r.rejRef.Run)); err != nil {
				st.err = fmt.Errorf("export: %w", err)
				return st
			}
		}
		st.out[k] = e.render(rd, r, run, rej)
		if r.copies > 0 {
			if err := sk.encode(st.out[k]); err != nil {
				st.err = fmt.Errorf("export: %w", err)
				return st
			}
		}
	}
	st.redactions = rd.redactions
	return st
}

// countDrafter counts a row in the summary's table of drafting models.
func (e *exporter) countDrafter(out *row) {
	d := e.drafters[out.meta.Model]
	if d == nil {
		d = &Drafter{Model: out.meta.Model}
		e.drafters[out.meta.Model] = d
	}
	d.Pairs++
	d.NumCtx = max(d.NumCtx, out.numCtx)
}

func splitOrder(s string) string {
	switch s {
	case SplitTrain:
		return "0"
	case splitValidation:
		return "1"
	}
	return "2"
}

// render builds the row of a pair of run (rej: the run of the rejected
// draft of a preference pair): the messages (or the preference triple),
// redacted, and the provenance.
func (e *exporter) render(rd *renderer, r *pairRow, run, rej *trace.RebuiltRun) *row {
	t := run.Turns[r.ref.Turn]
	prompt := run.Prompts[r.ref.Turn]
	s := run.Start
	label := turnlabel.Of(t) // the kind --kind chose the pair by
	meta := Meta{Split: r.split, RunID: s.RunID, Step: t.Step, CaseID: s.CaseID, Group: r.group, Tier: s.Tier,
		Source: s.Source, Model: s.Model.Spec(), Kind: label.Kind, Code: label.Code,
		Weight: r.weight, Copies: r.copies, Key: fmt.Sprintf("%016x", r.key), Multiplicity: r.mult, ClusterTurns: r.cluster}
	if run.End != nil {
		meta.Verdict = run.End.Verdict
	}
	numCtx := s.Model.Options.NumCtx
	context := rd.context(s.RunID, prompt)
	target, written := rd.target(s.RunID, len(context), t)
	meta.AsWritten = written
	out := &row{meta: meta, numCtx: numCtx, reasoned: target.ReasoningContent != ""}
	if e.opts.KeepToolCalls {
		out.tools = e.tools
	}
	switch {
	case e.opts.Format == FormatDPO:
		rt := rej.Turns[r.rejRef.Turn]
		out.prompt, out.chosen = context, []Message{target}
		out.rejected = []Message{rd.rejected(rej.Start.RunID, len(context), rt)}
		out.tools = nil
		out.meta.RejectedRunID, out.meta.RejectedStep, out.meta.PromptHash = rej.Start.RunID, rt.Step, t.Sent.PromptHash
		out.meta.Weight, out.meta.Key, out.meta.Multiplicity, out.meta.ClusterTurns = 1, "", 0, 0
	case e.opts.Layout == layoutMessages:
		out.messages = append(context, target)
		for i := range out.messages {
			if out.messages[i].Role == "assistant" {
				out.messages[i].Weight = &notTrained
			}
		}
		out.messages[len(out.messages)-1].Weight = &trained
	case e.opts.Layout == layoutAssistantOnly:
		out.messages = append(foldHistory(context), target)
		out.messages[len(out.messages)-1].Weight = &trained
	default:
		out.prompt, out.completion = context, []Message{target}
	}
	return out
}

// The per-message weights of the messages layout: the draft to learn is
// trained, the earlier drafts of its context are not.
var trained, notTrained = 1, 0

// removeStale deletes the data files an earlier export left in dir (a
// test.jsonl, more Parquet shards), so that the directory holds this
// export only. Nothing else in dir is touched.
func removeStale(dir string) error {
	card := filepath.Join(dir, "README.md")
	if b, err := os.ReadFile(card); err == nil && !bytes.Contains(b, []byte(cardTitle)) {
		return fmt.Errorf("export: %s is not a pyharness dataset card; choose another --out", card)
	}
	var stale []string
	for _, name := range []string{"train.jsonl", "valid.jsonl", "test.jsonl", "meta.jsonl", "README.md"} {
		stale = append(stale, filepath.Join(dir, name))
	}
	shards, _ := filepath.Glob(filepath.Join(dir, "data", "*-of-*.parquet"))
	stale = append(stale, shards...)
	for _, p := range stale {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove earlier export: %w", err)
		}
	}
	return nil
}
