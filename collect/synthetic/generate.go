package synthetic

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	reader "github.com/pyharness/pyharness/harness/draft"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

// Options are the knobs of a generated corpus.
type Options struct {
	// Turns is how many turn records to write, over as many runs as it takes.
	Turns int
	// Seed makes the corpus: the same seed and options give the same bytes.
	Seed uint64
	// Passes is the number of runs of each case (the benchmark's --repeat).
	Passes int
	// ExactShare is the share of passes after the first that repeat the
	// case's first run exactly (another run id, the same messages and
	// drafts: what a deterministic model does); NearShare the share that
	// repeat it with a few tokens changed in every draft and tool result.
	ExactShare, NearShare float64
	// Backend and Model label the runs. The default, ollama and
	// gen-corpus:synthetic, makes export select them as it selects a real
	// model's runs; "scripted" would need --include-scripted.
	Backend, Model string
	// Jobs is how many runs are written at once (GOMAXPROCS when 0).
	Jobs int
}

// DefaultOptions are the options gen-corpus uses unless told otherwise.
func DefaultOptions() Options {
	return Options{Turns: 100_000, Seed: 1, Passes: 4, ExactShare: 0.2, NearShare: 0.1, Backend: schemas.BackendOllama, Model: "gen-corpus:synthetic"}
}

// Validate reports an option Generate cannot take.
func (o Options) Validate() error {
	switch {
	case o.Turns < 1:
		return fmt.Errorf("turns %d: want at least 1", o.Turns)
	case o.Passes < 1:
		return fmt.Errorf("passes %d: want at least 1", o.Passes)
	case o.ExactShare < 0 || o.NearShare < 0 || o.ExactShare+o.NearShare > 1:
		return fmt.Errorf("exact share %g and near share %g: want each at least 0 and together at most 1", o.ExactShare, o.NearShare)
	case o.Backend == "" || o.Model == "":
		return errors.New("backend and model must be named")
	}
	return nil
}

// copyKind says how a run relates to the first run of its case.
type copyKind int

const (
	fresh copyKind = iota
	exactCopy
	nearCopy
)

// runPlan is one run to write: its case, pass, how many turns, and whether
// it repeats the case's first run.
type runPlan struct {
	index int // position in the corpus, for times
	cas   int
	pass  int
	turns int
	kind  copyKind
}

// Generate writes a corpus of opts.Turns turns into dir/runs and returns
// its profile, measured as it was written.
func Generate(ctx context.Context, dir string, opts Options) (*Profile, error) {
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("generate corpus: %w", err)
	}
	runsDir := filepath.Join(dir, trace.RunsDir)
	if err := os.MkdirAll(runsDir, 0o755); err != nil {
		return nil, fmt.Errorf("generate corpus: %w", err)
	}
	if files, _ := trace.ListFiles(dir); len(files) > 0 {
		return nil, fmt.Errorf("generate corpus: %s already holds %d trace files; choose an empty directory", runsDir, len(files))
	}
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	plans := make(chan runPlan, 64)
	var mu sync.Mutex
	total := newProfiler()
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		defer close(plans)
		return plan(gctx, opts, plans)
	})
	for range jobs {
		g.Go(func() error {
			pr := newProfiler()
			w := &runWriter{}
			for p := range plans {
				if err := w.write(runsDir, opts, p, pr); err != nil {
					return err
				}
			}
			mu.Lock()
			total.merge(pr)
			mu.Unlock()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("generate corpus: %w", err)
	}
	return total.profile(), nil
}

// plan sends the runs of the corpus in order: case by case, pass by pass,
// until the turns are reached. Every choice is drawn from the seed of the
// run, so a worker can make the run alone and a copy can remake its
// original.
func plan(ctx context.Context, opts Options, out chan<- runPlan) error {
	left := opts.Turns
	for index, cas := 0, 0; left > 0; cas++ {
		for pass := 1; pass <= opts.Passes && left > 0; pass++ {
			rng := runRand(opts.Seed, cas, pass, 0)
			p := runPlan{index: index, cas: cas, pass: pass}
			if pass > 1 {
				switch u := rng.Float64(); {
				case u < opts.ExactShare:
					p.kind = exactCopy
				case u < opts.ExactShare+opts.NearShare:
					p.kind = nearCopy
				}
			}
			src := pass
			if p.kind != fresh {
				src = 1
			}
			p.turns = turnsOf(runRand(opts.Seed, cas, src, 1))
			p.turns = min(p.turns, left)
			select {
			case out <- p:
			case <-ctx.Done():
				return ctx.Err()
			}
			left -= p.turns
			index++
		}
	}
	return nil
}

// runRand is the random source of one run's draw: stream 0 decides the
// copy kind, 1 the number of turns, 2 the content, 3 a near copy's edits.
func runRand(seed uint64, cas, pass, stream int) *rand.Rand {
	return rand.New(rand.NewPCG(seed^0x70796861726e6573, uint64(cas)<<24|uint64(pass)<<4|uint64(stream)))
}

// turnsPerRun is the scripted benchmark's distribution of turns per run
// (60 runs: 15 cases × 4 passes).
var turnsPerRun = []struct{ turns, runs int }{{3, 9}, {4, 20}, {5, 15}, {6, 4}, {7, 3}, {8, 9}}

func turnsOf(rng *rand.Rand) int {
	n := 0
	for _, b := range turnsPerRun {
		n += b.runs
	}
	u := rng.IntN(n)
	for _, b := range turnsPerRun {
		if u < b.runs {
			return b.turns
		}
		u -= b.runs
	}
	return turnsPerRun[len(turnsPerRun)-1].turns
}

// runWriter writes runs, reusing its buffers.
type runWriter struct {
	bw  *bufio.Writer
	txt textGen
}

// write makes the run of p and writes it as one trace file, with the
// bytes trace.Writer writes (schemas.EncodeRecord, one line a record) but
// without its fsync after every record: a generated corpus can be made
// again, and at a few milliseconds an fsync a million-turn corpus would
// take half an hour.
func (w *runWriter) write(dir string, opts Options, p runPlan, pr *profiler) error {
	recs := makeRun(opts, p, &w.txt)
	runID := recs[0].RunStart.RunID
	path := filepath.Join(dir, trace.AttemptFileName(runID, 1))
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if w.bw == nil {
		w.bw = bufio.NewWriterSize(f, 64<<10)
	} else {
		w.bw.Reset(f)
	}
	size := 0
	for _, rec := range recs {
		line, err := schemas.EncodeRecord(rec)
		if err != nil {
			f.Close()
			return fmt.Errorf("encode %s: %w", runID, err)
		}
		size += len(line)
		if _, err := w.bw.Write(line); err != nil {
			f.Close()
			return fmt.Errorf("write %s: %w", path, err)
		}
		pr.add(rec)
	}
	pr.endRun()
	pr.p.DiskBytes += int64(size)
	if err := w.bw.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}

// merge adds another profiler's records to pr.
func (pr *profiler) merge(o *profiler) {
	pr.p.Runs += o.p.Runs
	pr.p.Turns += o.p.Turns
	pr.p.DiskBytes += o.p.DiskBytes
	for k, v := range o.p.Kinds {
		pr.p.Kinds[k] += v
	}
	for k, v := range o.p.Verbs {
		pr.p.Verbs[k] += v
	}
	for k, v := range o.p.Verdicts {
		pr.p.Verdicts[k] += v
	}
	pr.perRun = append(pr.perRun, o.perRun...)
	pr.msgs = append(pr.msgs, o.msgs...)
	pr.drafts = append(pr.drafts, o.drafts...)
}

// baseTime is when the generated corpus was recorded, fixed so that the
// bytes do not depend on the day.
var baseTime = time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)

// makeRun builds the records of one run. An exact copy is its case's first
// run built again under another run id; a near copy is that run with a few
// tokens of every draft and harness message changed.
func makeRun(opts Options, p runPlan, tg *textGen) []schemas.Record {
	src := p.pass
	if p.kind != fresh {
		src = 1
	}
	rng := runRand(opts.Seed, p.cas, src, 2)
	var edit *rand.Rand
	if p.kind == nearCopy {
		edit = runRand(opts.Seed, p.cas, p.pass, 3)
	}
	caseID := fmt.Sprintf("gen-%06d", p.cas)
	runID := fmt.Sprintf("gen-%06d-p%d-%08x", p.cas, p.pass, uint32(runRand(opts.Seed, p.cas, p.pass, 4).Uint64()))
	tier := 1 + p.cas%6
	start := baseTime.Add(time.Duration(p.index) * 40 * time.Second)
	caseRng := runRand(opts.Seed, p.cas, 0, 5) // what every run of the case shares
	task := tg.task(caseRng)
	module := tg.ident(caseRng) + "/" + tg.ident(caseRng) + ".py"
	files := []string{module, "tests/test_" + tg.ident(caseRng) + ".py", tg.ident(caseRng) + "/__init__.py"}

	recs := make([]schemas.Record, 0, p.turns+2)
	rs := &schemas.RunStart{Type: schemas.TypeRunStart, Schema: schemas.Schema, SchemaMinor: schemas.SchemaMinor,
		RunID: runID, Attempt: 1, Source: schemas.SourceBench, CaseID: caseID, Tier: tier, Pass: p.pass,
		Model:   schemas.Model{Backend: opts.Backend, Name: opts.Model, Options: schemas.Options{Seed: p.pass, NumCtx: 8192, NumPredict: 1024}},
		Harness: schemas.Harness{Version: "0.1.0-dev", Commit: "gen-corpus"}, Task: task, Targets: []string{module},
		Names: []string{tg.ident(caseRng)}, Scope: []string{"**"}, Suite: "{python} -m unittest discover -s tests -t .",
		Python: "python3", Repo: schemas.Repo{Path: "cases/" + caseID + "/repo"}, MaxSteps: 20, Tags: []string{"gen-corpus"},
		StartedAt: start}
	recs = append(recs, schemas.Record{RunStart: rs})

	var prompt []schemas.Message
	delta := []schemas.Message{{Role: "system", Content: systemPrompt}, {Role: "user", Content: task}}
	kind, code := schemas.KindOpening, schemas.Code("")
	var writes []schemas.Write
	var patch strings.Builder
	at := start.Add(200 * time.Millisecond)
	for step := 1; step <= p.turns; step++ {
		last := step == p.turns
		verb := drawVerb(rng, last)
		path := files[rng.IntN(len(files))]
		draft, fb := tg.step(rng, verb, path)
		if edit != nil {
			draft.content = tg.perturb(edit, draft.content)
			fb.text = tg.perturb(edit, fb.text)
		}
		prompt = append(prompt, delta...)
		t := &schemas.Turn{Type: schemas.TypeTurn, RunID: runID, Step: step, ModelStep: true,
			Sent: schemas.Sent{Kind: kind, Code: code, Messages: delta, PromptHash: schemas.PromptHash(prompt),
				PromptTokensEstimate: promptBytes(prompt) / 4},
			Reply:   schemas.Reply{Content: draft.content, FinishReason: "stop"},
			Action:  schemas.Action{Verb: verb, Path: draft.path, Shape: "canonical", Via: "text"},
			Outcome: fb.outcome,
			Metrics: schemas.Metrics{PromptTokens: new(promptBytes(prompt) / 4), OutputTokens: new(len(draft.content)/4 + 1),
				TotalMS: int64(400 + rng.IntN(6000)), PromptEvalMS: new(int64(50 + rng.IntN(800))), EvalMS: new(int64(300 + rng.IntN(5000))), TTFTMS: new(int64(60 + rng.IntN(900)))},
			Attempts:  []schemas.Attempt{{N: 1}},
			StartedAt: at}
		// The harness records its reading of every draft.
		a, err := reader.Parse(t.Reply.Content, nil)
		reader.RecordReading(&t.Action, a, err, t.Reply.Content)
		at = at.Add(time.Duration(t.Metrics.TotalMS)*time.Millisecond + 30*time.Millisecond)
		t.EndedAt = at
		if last {
			t.Outcome.Status = schemas.StatusStopped
		}
		if (verb == "WRITE" || verb == "PATCH") && t.Outcome.Status != schemas.StatusRefused {
			added := strings.Count(draft.content, "\n")
			writes = append(writes, schemas.Write{Path: draft.path, Added: added, Removed: added / 3})
			fmt.Fprintf(&patch, "--- a/%s\n+++ b/%s\n@@ -1,%d +1,%d @@\n", draft.path, draft.path, added/3, added)
			for _, l := range strings.Split(draft.body, "\n") {
				patch.WriteString("+" + l + "\n")
			}
		}
		recs = append(recs, schemas.Record{Turn: t})
		delta = []schemas.Message{{Role: "assistant", Content: draft.content}, {Role: "user", Content: fb.text}}
		kind, code = fb.kind, fb.outcome.Code
	}
	worked := rng.Float64() < 0.45 // 27 of the benchmark's 60 runs worked
	end := &schemas.RunEnd{Type: schemas.TypeRunEnd, RunID: runID, Verdict: schemas.VerdictWorked, ClaimedDone: true,
		StopReason: schemas.StopDone, Steps: p.turns, ModelSteps: p.turns, Writes: writes, Patch: patch.String(),
		Checks:      schemas.Checks{Ran: true, Passed: worked},
		SuiteBefore: schemas.SuiteCounts{Ran: 3, Passed: 3}, SuiteAfter: schemas.SuiteCounts{Ran: 4, Passed: 4},
		DurationMS: at.Sub(start).Milliseconds(), EndedAt: at}
	if !worked {
		end.Verdict, end.Checks.FirstFailure = schemas.VerdictFailed, "AssertionError: "+tg.words(rng, 6)
		switch u := rng.IntN(33); {
		case u < 4:
			end.FailureClass = schemas.FailWroteNothing
		case u < 13:
			end.FailureClass = schemas.FailWrongThing
		default:
			end.FailureClass = schemas.FailDidNotDoTheJob
		}
	}
	return append(recs, schemas.Record{RunEnd: end})
}

func promptBytes(msgs []schemas.Message) int {
	n := 0
	for _, m := range msgs {
		n += len(m.Content)
	}
	return n
}

// drawVerb draws the verb of a step with the benchmark's mix: the last
// step of a run is nearly always DONE, the others READ, WRITE, RUN, PATCH
// and the occasional early DONE that is refused.
func drawVerb(rng *rand.Rand, last bool) string {
	u := rng.IntN(1000)
	if last {
		switch {
		case u < 850:
			return "DONE"
		case u < 970:
			return "WRITE"
		}
		return "RUN"
	}
	switch {
	case u < 297: // 71 of 239
		return "READ"
	case u < 598: // 72
		return "WRITE"
	case u < 808: // 50
		return "RUN"
	case u < 933: // 30
		return "PATCH"
	}
	return "DONE" // 16
}
