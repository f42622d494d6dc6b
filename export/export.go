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
	"slices"
	"strconv"
	"strings"

	"github.com/cespare/xxhash/v2"

	"github.com/pyharness/pyharness/classify"
	"github.com/pyharness/pyharness/datasets"
	"github.com/pyharness/pyharness/dedupe"
	"github.com/pyharness/pyharness/harness/draft"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/trace"
)

// NothingError says that the selection left nothing to export, and why.
// No file is written.
type NothingError struct{ Why string }

func (e *NothingError) Error() string { return "nothing exported: " + e.Why }

// SplitCounts are the figures of one split.
type SplitCounts struct {
	Groups int `json:"groups"`
	// Pairs are distinct pairs (one per near-duplicate cluster, or one per
	// preference pair); Rows the rows written, weights materialised.
	Pairs int `json:"pairs"`
	Rows  int `json:"rows"`
}

// GroupRow is one group's line in the summary and the card.
type GroupRow struct {
	Group  string  `json:"group"`
	Split  string  `json:"split"`
	Pairs  int     `json:"pairs"`
	Weight float64 `json:"weight"`
	Rows   int     `json:"rows"`
}

// Summary is what an export did.
type Summary struct {
	Format   string `json:"format"`
	In       string `json:"in"`
	Out      string `json:"out"`
	Runs     int    `json:"runs"`
	SetAside int    `json:"earlier_attempts_set_aside"`
	// FilesWithErrors are trace files with bad lines; their good records
	// were used.
	FilesWithErrors int `json:"files_with_errors"`
	// Problems are the bad lines of those files, each as file:line: what
	// (at most trace.MaxProblems; ProblemsLeft counts the rest).
	Problems     []string `json:"problems,omitempty"`
	ProblemsLeft int      `json:"problems_left,omitempty"`
	RunsLeftOut  Tally    `json:"runs_left_out"`
	// RunsConsidered passed the run filters; ScriptedRuns of them are from
	// the scripted or replay backends (--include-scripted).
	RunsConsidered int   `json:"runs_considered"`
	ScriptedRuns   int   `json:"scripted_runs"`
	Turns          int   `json:"turns_considered"`
	TurnsLeftOut   Tally `json:"turns_left_out"`
	// Selected are the raw turns taken as SFT pairs (or as sides of
	// preference pairs), before dedupe.
	Selected int            `json:"selected"`
	Dedupe   dedupe.Figures `json:"dedupe"`
	// ZeroCopies counts training pairs whose fractional weight drew no row.
	ZeroCopies int                    `json:"zero_copies"`
	Splits     map[string]SplitCounts `json:"splits"`
	Groups     []GroupRow             `json:"groups"`
	// Redactions is the number of secrets replaced; SecretValues the
	// number of distinct values learned from environment files and
	// assignments.
	Redactions   int      `json:"redactions"`
	SecretValues int      `json:"secret_values"`
	SourceRuns   []string `json:"source_runs"`
	// Drafters are the models that wrote the exported drafts (the chosen
	// side of preference pairs), by pairs.
	Drafters []Drafter `json:"drafters"`
	// Unmatched says which --tag and --model values no run read has: a
	// filter that matches nothing is most often a typo.
	Unmatched []string `json:"unmatched_filters,omitempty"`
	Files     []string `json:"files"`
	Why       string   `json:"why,omitempty"`

	opts Options
}

// Drafter is a model that wrote exported drafts.
type Drafter struct {
	// Model is backend:name as recorded on the runs' run_start.
	Model string `json:"model"`
	Pairs int    `json:"pairs"`
	// NumCtx is the largest context window of its runs: the harness built
	// the prompts to fit it.
	NumCtx int `json:"num_ctx"`
}

// Run exports the traces of opts.In to opts.Out in opts.Format and writes a
// summary to w. It returns a *NothingError, with the summary, when the
// selection leaves nothing, and writes no file then.
func Run(ctx context.Context, opts Options, w io.Writer) (*Summary, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	c, err := trace.OpenCorpus(ctx, opts.In)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	e := &exporter{opts: opts, corpus: c, red: NewRedactor(), scanned: map[string]bool{},
		tags: map[string]bool{}, models: map[schemas.Model]bool{}, drafters: map[string]*Drafter{},
		sum: &Summary{Format: opts.Format, In: opts.In, Out: opts.Out, SetAside: c.SetAside(),
			RunsLeftOut: Tally{}, TurnsLeftOut: Tally{}, Splits: map[string]SplitCounts{}, opts: opts}}
	if opts.Format == FormatDPO {
		err = e.runDPO(ctx)
	} else {
		err = e.runSFT(ctx)
	}
	sum := e.sum
	sum.Redactions, sum.SecretValues = e.red.Count, len(e.red.values)
	var nothing *NothingError
	if err != nil && !errors.As(err, &nothing) {
		return sum, err
	}
	if werr := sum.WriteText(w); werr != nil && err == nil {
		err = fmt.Errorf("write export summary: %w", werr)
	}
	return sum, err
}

// exporter holds one export's state.
type exporter struct {
	opts    Options
	corpus  *trace.Corpus
	red     *Redactor
	scanned map[string]bool // repositories searched for environment files
	sum     *Summary
	cases   map[string]datasets.Case
	// tags and models are those of every run read (models by backend and
	// name), to name a --tag or --model value that matches no run.
	tags     map[string]bool
	models   map[schemas.Model]bool
	drafters map[string]*Drafter
}

// considered streams the runs that pass the run filters, tallying the rest
// and learning every run's secrets on the way.
func (e *exporter) considered(ctx context.Context, forDPO bool, each func(*trace.RebuiltRun) error) error {
	for run, err := range e.corpus.Runs(ctx) {
		if err != nil {
			if ctx.Err() != nil {
				return err
			}
			e.sum.FilesWithErrors++
			e.sum.Problems, e.sum.ProblemsLeft = trace.AddProblems(e.sum.Problems, e.sum.ProblemsLeft, err)
			continue
		}
		if run.ReadErr != nil {
			e.sum.FilesWithErrors++
			e.sum.Problems, e.sum.ProblemsLeft = trace.AddProblems(e.sum.Problems, e.sum.ProblemsLeft, run.ReadErr)
		}
		e.sum.Runs++
		e.learnSecrets(run)
		if s := run.Start; s != nil {
			for _, t := range s.Tags {
				e.tags[t] = true
			}
			e.models[schemas.Model{Backend: s.Model.Backend, Name: s.Model.Name}] = true
		}
		if why := e.opts.runWhy(run, forDPO); why != "" {
			e.sum.RunsLeftOut[why]++
			continue
		}
		e.sum.RunsConsidered++
		if isScripted(run.Start.Model) {
			e.sum.ScriptedRuns++
		}
		e.sum.Turns += len(run.Turns)
		if err := each(run); err != nil {
			return err
		}
	}
	return nil
}

// learnSecrets reads the environment files of a run's repository (on disk,
// or the embedded fixture of a benchmark case) and every assignment in its
// messages and drafts.
func (e *exporter) learnSecrets(run *trace.RebuiltRun) {
	if s := run.Start; s != nil {
		e.learnRepo(s)
	}
	for _, t := range run.Turns {
		for _, m := range t.Sent.Messages {
			e.red.ScanText(m.Content)
		}
		e.red.ScanText(t.Reply.Content)
		for _, c := range t.Reply.ToolCalls {
			for _, v := range c.Arguments {
				if s, ok := v.(string); ok {
					e.red.ScanText(s)
				}
			}
		}
	}
}

func (e *exporter) learnRepo(s *schemas.RunStart) {
	// Only a repository at an absolute path can be found again; a relative
	// one is not remembered either, so a corpus of many tasks costs nothing.
	if p := s.Repo.Path; filepath.IsAbs(p) && !e.scanned[p] {
		e.scanned[p] = true
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			e.red.AddRepo(os.DirFS(p))
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
		e.red.AddRepo(c.Repo())
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
	rd := &renderer{keepToolCalls: e.opts.KeepToolCalls}
	ix := dedupe.NewIndex(e.opts.Threshold, dedupe.CorpusTexts{Corpus: e.corpus, Render: rd.training}, settled)
	var keyBuf, nearBuf []byte
	err = e.considered(ctx, false, func(run *trace.RebuiltRun) error {
		for i, t := range run.Turns {
			if why := e.opts.turnWhy(run, i); why != "" {
				e.sum.TurnsLeftOut[why]++
				continue
			}
			e.sum.Selected++
			p, d := rd.training(run.Prompts[i], t.Reply)
			keyBuf = dedupe.AppendKeyText(keyBuf[:0], p, d)
			nearBuf = dedupe.AppendNearText(nearBuf[:0], p, d)
			it := dedupe.Item{Ref: dedupe.Ref{Run: run.Index, Turn: int32(i)}, Group: run.Group(), Worked: run.Worked(), Time: run.Time(i)}
			if _, err := ix.Add(ctx, it, keyBuf, nearBuf); err != nil {
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
	weights := Weights(sizes, e.opts.Alpha, e.opts.Cap)
	splits := AssignSplits(mapKeys(sizes), e.opts.Valid, e.opts.Test, e.opts.Seed)
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
	splitNames := []string{SplitTrain, SplitValidation}
	if e.opts.Test > 0 {
		splitNames = append(splitNames, SplitTest)
	}
	if err := removeStale(e.opts.Out); err != nil {
		return err
	}
	var sk sink
	var err error
	switch e.opts.Format {
	case FormatJSONL, FormatDPO:
		sk, err = newJSONLSink(e.opts.Out, splitNames, e.opts.Format == FormatDPO)
	case FormatParquet:
		if e.opts.KeepToolCalls {
			sk = newParquetSink(e.opts.Out, pairs, e.opts.ShardRows, toolMessage)
		} else {
			sk = newParquetSink(e.opts.Out, pairs, e.opts.ShardRows, plainMessage)
		}
	}
	if err != nil {
		return err
	}
	rd := &renderer{keepToolCalls: e.opts.KeepToolCalls, redact: e.red}
	fromRun := make([]bool, e.corpus.Len()) // runs that contributed a row
	groupRows, groupPairs := make([]int, len(names)), make([]int, len(names))
	for _, split := range splitNames {
		for r, err := range rows(split) {
			if err == nil {
				err = ctx.Err()
			}
			if err != nil {
				sk.abort()
				return err
			}
			r.copies = 1
			if e.opts.Format == FormatJSONL && r.split == SplitTrain {
				r.copies = Copies(r.weight, e.opts.Seed, fmt.Sprintf("%016x", r.key))
				if r.copies == 0 {
					e.sum.ZeroCopies++
				}
			}
			out, err := e.render(rd, r)
			if err != nil {
				sk.abort()
				return err
			}
			if r.copies > 0 {
				if err := sk.write(out); err != nil {
					sk.abort()
					return err
				}
				fromRun[r.ref.Run] = true
				if out.meta.RejectedRunID != "" {
					fromRun[r.rejRef.Run] = true
				}
			}
			n := r.copies
			sc := e.sum.Splits[r.split]
			sc.Pairs++
			sc.Rows += n
			e.sum.Splits[r.split] = sc
			groupRows[r.gnum] += n
			groupPairs[r.gnum]++
		}
	}
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

func splitOrder(s string) string {
	switch s {
	case SplitTrain:
		return "0"
	case SplitValidation:
		return "1"
	}
	return "2"
}

// render builds the row of a pair: the messages (or the preference
// triple), redacted, and the provenance.
func (e *exporter) render(rd *renderer, r *pairRow) (*row, error) {
	run, err := e.corpus.Load(int(r.ref.Run))
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	t := run.Turns[r.ref.Turn]
	prompt := run.Prompts[r.ref.Turn]
	s := run.Start
	label := classify.LabelTurn(t) // the kind --kind chose the pair by
	meta := Meta{Split: r.split, RunID: s.RunID, Step: t.Step, CaseID: s.CaseID, Group: r.group, Tier: s.Tier,
		Source: s.Source, Model: s.Model.Backend + ":" + s.Model.Name, Kind: label.Kind, Code: label.Code,
		Weight: r.weight, Copies: r.copies, Key: fmt.Sprintf("%016x", r.key), Multiplicity: r.mult, ClusterTurns: r.cluster}
	if run.End != nil {
		meta.Verdict = run.End.Verdict
	}
	d := e.drafters[meta.Model]
	if d == nil {
		d = &Drafter{Model: meta.Model}
		e.drafters[meta.Model] = d
	}
	d.Pairs++
	d.NumCtx = max(d.NumCtx, s.Model.Options.NumCtx)
	if e.opts.Format != FormatDPO {
		return &row{messages: rd.conversation(prompt, t.Reply), meta: meta}, nil
	}
	chosen := rd.conversation(prompt, t.Reply)
	rej, err := e.corpus.Load(int(r.rejRef.Run))
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	rt := rej.Turns[r.rejRef.Turn]
	rejected := rd.message(schemas.Message{Role: "assistant", Content: rt.Reply.Content, ToolCalls: rt.Reply.ToolCalls})
	meta.RejectedRunID, meta.RejectedStep, meta.PromptHash = rej.Start.RunID, rt.Step, t.Sent.PromptHash
	meta.Weight, meta.Key, meta.Multiplicity, meta.ClusterTurns = 1, "", 0, 0
	return &row{prompt: chosen[:len(chosen)-1], chosen: chosen[len(chosen)-1:], rejected: []Message{rejected}, meta: meta}, nil
}

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

// dpoCand is a draft that can be one side of a preference pair.
type dpoCand struct {
	ref     dedupe.Ref
	draft   uint64 // key of the normalised draft
	action  uint64 // key of the parsed action, 0 when it did not parse
	refused bool
	side    side
	time    int64
	group   string
}

// actionKey hashes what a draft does, not how it is worded: verb, path,
// window, body, blocks, skill and arguments (a DONE's summary and an ASK's
// wording aside). 0 when the draft does not parse.
func actionKey(r schemas.Reply) uint64 {
	a, err := draft.Parse(r.Content, r.ToolCalls)
	if err != nil {
		return 0
	}
	text := ""
	if a.Verb != draft.VerbDone {
		text = a.Text
	}
	return xxhash.Sum64String(strings.Join([]string{a.Verb, a.Path, strconv.Itoa(a.Start), strconv.Itoa(a.End),
		a.Body, a.Find, a.Replace, a.Skill, strings.Join(a.Args, "\x00"), text}, "\x01"))
}

func (e *exporter) runDPO(ctx context.Context) error {
	rd := &renderer{keepToolCalls: e.opts.KeepToolCalls}
	byPrompt := map[string][]dpoCand{}
	var buf []byte
	err := e.considered(ctx, true, func(run *trace.RebuiltRun) error {
		for i, t := range run.Turns {
			sd, why := e.opts.dpoSide(run, i)
			if sd == sideNone {
				e.sum.TurnsLeftOut[why]++
				continue
			}
			e.sum.Selected++
			_, d := rd.training(nil, t.Reply)
			buf = dedupe.AppendNearText(buf[:0], nil, d)
			h := t.Sent.PromptHash
			if h == "" {
				h = schemas.PromptHash(run.Prompts[i])
			}
			byPrompt[h] = append(byPrompt[h], dpoCand{ref: dedupe.Ref{Run: run.Index, Turn: int32(i)}, draft: dedupe.Key(buf),
				action: actionKey(t.Reply), refused: t.Outcome.Status == schemas.StatusRefused,
				side: sd, time: run.Time(i), group: run.Group()})
		}
		return nil
	})
	if err != nil {
		return err
	}
	var rows []pairRow
	groups := map[string]int{}
	for _, h := range mapKeys(byPrompt) {
		for _, p := range preferencePairs(byPrompt[h]) {
			rows = append(rows, p)
			groups[p.group]++
		}
	}
	if len(rows) == 0 {
		e.sum.Unmatched = e.unmatched()
		e.sum.Why = unmatchedWhy(e.sum.Unmatched) + nothingWhy(e.sum.Runs, e.sum.RunsLeftOut, e.sum.TurnsLeftOut, e.sum.Selected)
		return &NothingError{Why: e.sum.Why}
	}
	names := mapKeys(groups)
	num := make(map[string]int32, len(names))
	for g, name := range names {
		num[name] = int32(g)
	}
	splits := AssignSplits(names, e.opts.Valid, e.opts.Test, e.opts.Seed)
	weights := map[string]float64{}
	pairs := map[string]int{}
	for i := range rows {
		rows[i].gnum = num[rows[i].group]
		rows[i].split = splits[rows[i].group]
		rows[i].weight = 1
		weights[rows[i].group] = 1
		pairs[rows[i].split]++
	}
	slices.SortFunc(rows, func(a, b pairRow) int {
		return cmp.Or(cmp.Compare(a.ref.Run, b.ref.Run), cmp.Compare(a.ref.Turn, b.ref.Turn))
	})
	inSplit := func(split string) iter.Seq2[*pairRow, error] {
		return func(yield func(*pairRow, error) bool) {
			for i := range rows {
				if rows[i].split == split && !yield(&rows[i], nil) {
					return
				}
			}
		}
	}
	return e.write(ctx, pairs, inSplit, names, splits, weights)
}

// preferencePairs pairs the drafts that answered one prompt: every
// distinct rejected draft (refused, or from a failed run) that differs from
// every chosen one, each with a chosen draft (applied in a worked run), the
// newest first, taken in turn. A draft of a failed run that does what a
// chosen draft does, in other words, is no rejected side: the preference
// would be for wording, which nothing recorded supports.
func preferencePairs(cands []dpoCand) []pairRow {
	var chosen, rejected []dpoCand
	seenChosen := map[uint64]int{}
	chosenActions := map[uint64]bool{}
	for _, c := range cands {
		if c.side != sideChosen {
			continue
		}
		chosenActions[c.action] = true
		if k, ok := seenChosen[c.draft]; ok {
			if c.time > chosen[k].time {
				chosen[k] = c
			}
			continue
		}
		seenChosen[c.draft] = len(chosen)
		chosen = append(chosen, c)
	}
	if len(chosen) == 0 {
		return nil
	}
	seenRejected := map[uint64]bool{}
	for _, c := range cands {
		if c.side != sideRejected || seenRejected[c.draft] {
			continue
		}
		if _, ok := seenChosen[c.draft]; ok {
			continue // the same draft cannot be both
		}
		if !c.refused && c.action != 0 && chosenActions[c.action] {
			continue
		}
		seenRejected[c.draft] = true
		rejected = append(rejected, c)
	}
	slices.SortFunc(chosen, func(a, b dpoCand) int {
		if c := cmp.Compare(b.time, a.time); c != 0 {
			return c
		}
		return cmp.Compare(a.draft, b.draft)
	})
	slices.SortFunc(rejected, func(a, b dpoCand) int { return cmp.Compare(a.draft, b.draft) })
	out := make([]pairRow, len(rejected))
	for i, r := range rejected {
		c := chosen[i%len(chosen)]
		out[i] = pairRow{ref: c.ref, rejRef: r.ref, group: c.group, key: r.draft}
	}
	return out
}

// WriteText writes the summary for a person.
func (s *Summary) WriteText(w io.Writer) error {
	var b strings.Builder
	what := "supervised pairs"
	if s.Format == FormatDPO {
		what = "preference pairs"
	}
	fmt.Fprintf(&b, "Export of %s (%s, %s)\n", s.In, s.Format, what)
	fmt.Fprintf(&b, "runs read: %d", s.Runs)
	if s.SetAside > 0 {
		fmt.Fprintf(&b, " (%d earlier attempts set aside)", s.SetAside)
	}
	fmt.Fprintf(&b, "; considered: %d", s.RunsConsidered)
	if s.ScriptedRuns > 0 {
		fmt.Fprintf(&b, ", %d of them scripted or replay (--include-scripted)", s.ScriptedRuns)
	}
	b.WriteString("\n")
	for _, l := range s.RunsLeftOut.Lines(runWhys) {
		fmt.Fprintf(&b, "  left out: %s\n", l)
	}
	fmt.Fprintf(&b, "turns considered: %d; selected: %d\n", s.Turns, s.Selected)
	for _, l := range s.TurnsLeftOut.Lines(turnWhys) {
		fmt.Fprintf(&b, "  left out: %s\n", l)
	}
	if s.FilesWithErrors > 0 {
		trace.WriteProblems(&b, s.FilesWithErrors, s.Problems, s.ProblemsLeft)
	}
	if s.Why != "" {
		fmt.Fprintf(&b, "\nNothing exported: %s.\n", s.Why)
		_, err := io.WriteString(w, b.String())
		return err
	}
	if s.Format != FormatDPO {
		d := s.Dedupe
		fmt.Fprintf(&b, "dedupe: %d selected turns, %d exact-unique, %d near-unique clusters, %d groups; variety ratio %.2f\n",
			d.RawTurns, d.ExactUnique, d.Clusters, d.Groups, d.VarietyRatio)
		if sentence := dedupe.Sentence(s.RunsConsidered, d, !strings.Contains(strings.Join(groupNames(s.Groups), " "), "/")); sentence != "" {
			fmt.Fprintf(&b, "%s\n", sentence)
		}
	}
	b.WriteString("\n")
	for _, sp := range []string{SplitTrain, SplitValidation, SplitTest} {
		sc, ok := s.Splits[sp]
		if !ok {
			continue
		}
		fmt.Fprintf(&b, "%-10s %3d groups  %5d pairs  %5d rows\n", sp, sc.Groups, sc.Pairs, sc.Rows)
	}
	if sc := s.Splits[SplitValidation]; sc.Groups == 0 {
		fmt.Fprintf(&b, "no validation split: splits are by group and the export has %d group(s)\n", len(s.Groups))
	}
	if s.ZeroCopies > 0 {
		fmt.Fprintf(&b, "%d training pair(s) drew no row (weight below 1; --seed draws)\n", s.ZeroCopies)
	}
	for _, d := range s.Drafters {
		fmt.Fprintf(&b, "drafts by %s: %d pairs\n", d.Model, d.Pairs)
	}
	if s.opts.For != "" {
		whom, _ := forWhom(s.opts.For, s.Drafters)
		fmt.Fprintf(&b, "meant for %s: %s\n", s.opts.For, whom)
	}
	for _, u := range s.Unmatched {
		fmt.Fprintf(&b, "note: %s\n", u)
	}
	fmt.Fprintf(&b, "secrets redacted: %d (%d values learned from environment files and assignments, and token shapes)\n", s.Redactions, s.SecretValues)
	fmt.Fprintf(&b, "\nwrote %s:\n", s.Out)
	for _, f := range s.Files {
		fmt.Fprintf(&b, "  %s\n", filepath.ToSlash(filepath.Join(s.Out, f)))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func groupNames(gs []GroupRow) []string {
	out := make([]string, len(gs))
	for i, g := range gs {
		out[i] = g.Group
	}
	return out
}
