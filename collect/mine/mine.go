package mine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pyharness/pyharness/collect"
	"github.com/pyharness/pyharness/harness"
	"github.com/pyharness/pyharness/harness/suite"
	"github.com/pyharness/pyharness/internal/gitrun"
)

// Options configure a mine.
type Options struct {
	// Repo is the source repository (only read); Out receives the clone,
	// the scripts and manifest.yaml, and must not hold a manifest yet.
	Repo, Out string
	// Python is the interpreter (found as the suite finds it when empty).
	Python string
	// Suite is the pytest command that runs the whole suite from the
	// repository root, "{python}" for the interpreter.
	Suite string
	// Scope are the globs of the source files to mutate (every tracked
	// Python file that is not a test when empty).
	Scope []string
	// Kinds are the mutation kinds to make and "history"; all when empty.
	Kinds []string
	// Max is how many tasks to keep; Jobs how many candidates to try at once.
	Max, Jobs int
	Seed      uint64
	// MaxFailing bounds the tests a task may make fail; PerFunction the
	// tasks kept per function; HistoryDepth the commits looked at.
	MaxFailing, PerFunction, HistoryDepth int
	// Writer, when set, rewrites each kept task's evidence as an issue.
	Writer *Writer
	// Progress is called after each candidate with the figures so far.
	Progress func(Summary)
	Now      func() time.Time
}

// Kinds are the mutation kinds mine makes, and "history".
var Kinds = []string{"flip-comparison", "swap-operands", "change-arithmetic", "flip-boolean", "drop-not",
	"change-constant", "invert-if", "return-none", "remove-assignment", "remove-conditional", "remove-loop", kindHistory}

const kindHistory = "history"

// The steps of trying a candidate that Summary.Spent times.
const (
	stepSelected     = "selected tests"
	stepSuite        = "whole suite"
	stepHistoryTests = "history: the commit's tests"
	stepHistorySuite = "history: whole suite"
	stepHarness      = "harness (reference and do-nothing)"
)

// Summary is what a mine did.
type Summary struct {
	// Candidates is how many candidates there were (mutation sites in
	// covered functions, commits changing code and tests); Tried how many
	// were tried before the mine ended.
	Candidates, Tried int
	Kept              int
	KeptByKind        map[string]int
	// Dropped counts the candidates dropped, by reason.
	Dropped map[string]int
	// SuiteTests is the size of the suite; TestsRun the tests run while
	// mining; TestsSaved the tests a whole-suite run of every selected
	// run would have added.
	SuiteTests, TestsRun, TestsSaved int
	// Spent is the time spent in each step of trying candidates, summed
	// over the jobs: selected tests, whole suite, harness.
	Spent   map[string]time.Duration
	Elapsed time.Duration
	// Rewritten counts the texts the writer wrote; WriterFallbacks the
	// tasks whose evidence stood instead, by why.
	Rewritten       int
	WriterFallbacks map[string]int
	Manifest        string
	// Interrupted is set when the mine was cancelled before it ended.
	Interrupted bool
}

// candidate is one mutation site or one commit to try.
type candidate struct {
	id, kind string
	// A mutation: the file, its function, and the blocks that turn the
	// file into the mutated one (replace → find) and back.
	file, function, top string
	funcKey             string
	line                int
	find, replace       string
	// A history candidate: the commit, its parent, its message and files.
	commit, parent, message string
	codeFiles, testFiles    []string
}

// outcome is a tried candidate: a task, or why it was dropped.
type outcome struct {
	c         *candidate
	drop      string
	entry     collect.Entry
	signature string
	// failing are the task's failing tests, fix the lines its text must
	// not hold: what a writer's text is checked against.
	failing, fix []string
}

type miner struct {
	o       Options
	clone   *clone
	tester  *tester
	head    string
	name    string // the repository's name, for ids
	work    string
	sources map[string][]byte
	// coveredBy maps "file:first line" of a function to the tests that ran it.
	coveredBy map[string][]string
	suiteSize int

	mu      sync.Mutex
	sigs    map[string]bool
	perFunc map[string]int
	saved   int
	spent   map[string]time.Duration
}

// runTests runs tests as tester.run does, adding the time to step's.
// More than MaxFailing failing tests drop any candidate, so a run stops
// at one more.
func (m *miner) runTests(ctx context.Context, step, dir string, selection []string) (*testReport, error) {
	defer m.timed(step, time.Now())
	rep, _, err := m.tester.run(ctx, dir, selection, false, m.o.MaxFailing+1)
	return rep, err
}

// timed adds the time since t0 to the step's figure.
func (m *miner) timed(step string, t0 time.Time) {
	m.mu.Lock()
	m.spent[step] += time.Since(t0)
	m.mu.Unlock()
}

// Run mines tasks from o.Repo into o.Out/manifest.yaml. The manifest is
// rewritten after every task kept, so that a cancelled mine leaves the
// tasks kept so far in a manifest collect accepts.
func Run(ctx context.Context, o Options) (*Summary, error) {
	start := now(o)
	if o.Max <= 0 {
		o.Max = 30
	}
	o.Jobs = max(o.Jobs, 1)
	if o.MaxFailing <= 0 {
		o.MaxFailing = 5
	}
	if o.PerFunction <= 0 {
		o.PerFunction = 2
	}
	if o.HistoryDepth <= 0 {
		o.HistoryDepth = 300
	}
	if o.Suite == "" {
		o.Suite = "{python} -m pytest"
	}
	for _, k := range o.Kinds {
		if !slices.Contains(Kinds, k) {
			return nil, fmt.Errorf("tasks: unknown kind %q (known: %s)", k, strings.Join(Kinds, ", "))
		}
	}
	src, err := filepath.Abs(o.Repo)
	if err != nil {
		return nil, fmt.Errorf("tasks: %w", err)
	}
	if st, err := os.Stat(src); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("tasks: %s is not a directory", o.Repo)
	}
	manifest := filepath.Join(o.Out, "manifest.yaml")
	if _, err := os.Stat(manifest); err == nil {
		return nil, fmt.Errorf("tasks: %s already exists: give another --out", manifest)
	}
	shown := manifest
	if o.Out, err = filepath.Abs(o.Out); err != nil {
		return nil, fmt.Errorf("tasks: %w", err)
	}
	manifest = filepath.Join(o.Out, "manifest.yaml")
	for _, d := range []string{"repo", "scripts", ".work"} {
		if err := os.RemoveAll(filepath.Join(o.Out, d)); err != nil {
			return nil, fmt.Errorf("tasks: %w", err)
		}
	}
	if err := os.MkdirAll(filepath.Join(o.Out, "scripts"), 0o755); err != nil {
		return nil, fmt.Errorf("tasks: %w", err)
	}
	work := filepath.Join(o.Out, ".work")
	defer os.RemoveAll(work)
	if err := os.MkdirAll(work, 0o755); err != nil {
		return nil, fmt.Errorf("tasks: %w", err)
	}
	python, err := suite.FindPython(ctx, o.Python, true)
	if err != nil {
		return nil, fmt.Errorf("tasks: %w", err)
	}
	if err := os.WriteFile(filepath.Join(work, pluginName+".py"), minePy, 0o644); err != nil {
		return nil, fmt.Errorf("tasks: %w", err)
	}
	cl, err := newClone(ctx, src, filepath.Join(o.Out, "repo"))
	if err != nil {
		return nil, fmt.Errorf("tasks: %w", err)
	}
	head, err := gitrun.Run(ctx, cl.dir, nil, "rev-parse", "HEAD")
	if err != nil {
		return nil, fmt.Errorf("tasks: %w", err)
	}
	m := &miner{o: o, clone: cl, head: strings.TrimSpace(head), name: filepath.Base(src), work: work,
		tester:  &tester{python: python, suite: o.Suite, pyDir: work},
		sources: map[string][]byte{}, sigs: map[string]bool{}, perFunc: map[string]int{}, spent: map[string]time.Duration{}}
	m.o.Python = python
	sum := &Summary{KeptByKind: map[string]int{}, Dropped: map[string]int{}, WriterFallbacks: map[string]int{}, Manifest: shown}
	mf := &manifestFile{path: manifest, source: src, commit: m.head, seed: o.Seed}
	if err := mf.write(); err != nil {
		return nil, err
	}
	if err := writeDoNothing(o.Out); err != nil {
		return nil, err
	}
	if err := m.baseline(ctx); err != nil {
		return nil, err
	}
	sum.SuiteTests = m.suiteSize
	cands, err := m.candidates(ctx, sum)
	if err != nil {
		return nil, err
	}
	sum.Candidates = len(cands)
	err = m.tryAll(ctx, cands, sum, mf, start)
	sum.TestsRun = int(m.tester.ran.Load())
	sum.TestsSaved = m.saved
	m.mu.Lock()
	sum.Spent = maps.Clone(m.spent)
	m.mu.Unlock()
	sum.Elapsed = now(o).Sub(start)
	if errors.Is(err, context.Canceled) || (err == nil && ctx.Err() != nil) {
		sum.Interrupted = true
		return sum, ctx.Err()
	}
	return sum, err
}

// copyTree copies the clone's work tree (no .git) into a new directory.
func copyTree(src, dst string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	return harness.CopyRepo(src, dst)
}

func now(o Options) time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// baseline runs the whole suite once on HEAD, recording which functions
// each test runs: the suite must pass, and the run's time bounds the
// others'.
func (m *miner) baseline(ctx context.Context) error {
	dir := filepath.Join(m.work, "baseline")
	if err := copyTree(m.clone.dir, dir); err != nil {
		return fmt.Errorf("tasks: %w", err)
	}
	defer os.RemoveAll(dir)
	t0 := time.Now()
	rep, cov, err := m.tester.run(ctx, dir, nil, true, 0)
	if err != nil {
		return fmt.Errorf("tasks: the suite at baseline: %w", err)
	}
	took := time.Since(t0)
	m.tester.timeout = 3*took + 30*time.Second
	if len(rep.CollectErrors) > 0 {
		return fmt.Errorf("tasks: the suite (%s) does not collect at baseline: %s: %s (give --suite a command whose tests all import)", m.o.Suite, rep.CollectErrors[0].Node, rep.CollectErrors[0].Message)
	}
	if f := rep.failing(); len(f) > 0 {
		return fmt.Errorf("tasks: %d test(s) of the suite (%s) fail at baseline, first %s: %s (tasks need a passing suite: deselect them in --suite)", len(f), m.o.Suite, f[0], rep.Tests[f[0]].Message)
	}
	passing := rep.passing()
	if len(passing) == 0 {
		return fmt.Errorf("tasks: the suite (%s) runs no test at baseline", m.o.Suite)
	}
	m.suiteSize = len(passing)
	m.coveredBy = map[string][]string{}
	for _, id := range passing {
		for _, fn := range cov[id] {
			m.coveredBy[fn] = append(m.coveredBy[fn], id)
		}
	}
	return nil
}

// coverageBand ranks a function by how many tests run it: 0 when no
// more than --max-failing do, 1 up to four times that, 2 beyond.
func (m *miner) coverageBand(funcKey string) int {
	switch n := len(m.coveredBy[funcKey]); {
	case n <= m.o.MaxFailing:
		return 0
	case n <= 4*m.o.MaxFailing:
		return 1
	}
	return 2
}

// wantKind reports whether the options ask for kind.
func (m *miner) wantKind(kind string) bool {
	return len(m.o.Kinds) == 0 || slices.Contains(m.o.Kinds, kind)
}

// candidates lists what to try, in the order of the seed: mutation sites
// dealt round-robin over functions (shuffled, and shuffled within each),
// each function giving the kind dealt least so far, with a history commit
// every third place while there are some.
func (m *miner) candidates(ctx context.Context, sum *Summary) ([]*candidate, error) {
	rng := rand.New(rand.NewPCG(m.o.Seed, m.o.Seed^0x9e3779b97f4a7c15))
	muts, err := m.mutationCandidates(ctx, sum)
	if err != nil {
		return nil, err
	}
	byFunc := map[string][]*candidate{}
	var funcs []string
	for _, c := range muts {
		if _, ok := byFunc[c.funcKey]; !ok {
			funcs = append(funcs, c.funcKey)
		}
		byFunc[c.funcKey] = append(byFunc[c.funcKey], c)
	}
	rng.Shuffle(len(funcs), func(i, j int) { funcs[i], funcs[j] = funcs[j], funcs[i] })
	// Functions few tests run come first: a mutation there cannot make
	// more than --max-failing tests fail, where one in a function the
	// whole suite runs nearly always does.
	slices.SortStableFunc(funcs, func(a, b string) int {
		return cmp.Compare(m.coverageBand(a), m.coverageBand(b))
	})
	for _, f := range funcs {
		l := byFunc[f]
		rng.Shuffle(len(l), func(i, j int) { l[i], l[j] = l[j], l[i] })
	}
	// Each function in turn gives the site whose kind was dealt least so
	// far (the first in its shuffled order among equals): a kind every
	// function has, return-none, would otherwise fill most places.
	var dealt []*candidate
	kinds := map[string]int{}
	for {
		any := false
		for _, f := range funcs {
			l := byFunc[f]
			if len(l) == 0 {
				continue
			}
			best := 0
			for i, c := range l {
				if kinds[c.kind] < kinds[l[best].kind] {
					best = i
				}
			}
			dealt = append(dealt, l[best])
			kinds[l[best].kind]++
			byFunc[f] = slices.Delete(l, best, best+1)
			any = true
		}
		if !any {
			break
		}
	}
	var hist []*candidate
	if m.wantKind(kindHistory) {
		if hist, err = m.historyCandidates(ctx, sum); err != nil {
			return nil, err
		}
	}
	var out []*candidate
	for len(dealt) > 0 || len(hist) > 0 {
		if len(hist) > 0 && (len(out)%3 == 0 || len(dealt) == 0) {
			out, hist = append(out, hist[0]), hist[1:]
			continue
		}
		out, dealt = append(out, dealt[0]), dealt[1:]
	}
	return out, nil
}

// tryAll tries candidates Jobs at a time and decides in candidate order,
// so that the tasks kept do not depend on which job finished first.
func (m *miner) tryAll(ctx context.Context, cands []*candidate, sum *Summary, mf *manifestFile, start time.Time) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make([]chan outcome, len(cands))
	for i := range results {
		results[i] = make(chan outcome, 1)
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for j := 0; j < m.o.Jobs; j++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			jobDir := filepath.Join(m.work, fmt.Sprintf("job-%d", j))
			if err := copyTree(m.clone.dir, jobDir); err != nil {
				for i := range next {
					results[i] <- outcome{c: cands[i], drop: "error: " + err.Error()}
				}
				return
			}
			for i := range next {
				results[i] <- m.try(ctx, jobDir, cands[i])
			}
		}()
	}
	go func() {
		defer close(next)
		for i := range cands {
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	var err error
	for i := range cands {
		var out outcome
		select {
		case out = <-results[i]:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		sum.Tried++
		if out.drop == "" {
			m.mu.Lock()
			switch {
			case m.sigs[out.signature]:
				out.drop = "same failing tests as a task kept"
			case out.c.funcKey != "" && m.perFunc[out.c.funcKey] >= m.o.PerFunction:
				out.drop = "function has enough tasks"
			default:
				m.sigs[out.signature] = true
				if out.c.funcKey != "" {
					m.perFunc[out.c.funcKey]++
				}
			}
			m.mu.Unlock()
		}
		if out.drop != "" {
			sum.Dropped[out.drop]++
			os.Remove(filepath.Join(m.o.Out, "scripts", out.c.id+".jsonl"))
			m.clone.forget(ctx, out.c.id)
		} else {
			m.write(ctx, &out, sum)
			mf.entries = append(mf.entries, out.entry)
			if err = mf.write(); err != nil {
				break
			}
			sum.Kept++
			sum.KeptByKind[out.c.kind]++
		}
		if m.o.Progress != nil {
			s := *sum
			s.TestsRun, s.Elapsed = int(m.tester.ran.Load()), now(m.o).Sub(start)
			m.o.Progress(s)
		}
		if sum.Kept >= m.o.Max {
			break
		}
	}
	interrupted := ctx.Err() != nil
	cancel()
	wg.Wait()
	if err != nil {
		return err
	}
	if interrupted {
		return context.Canceled
	}
	return nil
}

// write has the writer rewrite a kept task's text, in candidate order so
// that the same seed and writer give the same texts; the evidence stands
// when the writer's text does not pass.
func (m *miner) write(ctx context.Context, out *outcome, sum *Summary) {
	w := m.o.Writer
	if w == nil {
		return
	}
	text, why := w.rewrite(ctx, out.entry.Task, out.failing, out.fix)
	if why != "" {
		sum.WriterFallbacks[why]++
		return
	}
	out.entry.Task, out.entry.TextBy = text, w.Name
	sum.Rewritten++
}

// taken reports why a candidate need not be tried: a kept task already
// has its failing tests, or its function has enough tasks.
func (m *miner) taken(c *candidate, signature string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case signature != "" && m.sigs[signature]:
		return "same failing tests as a task kept"
	case c.funcKey != "" && m.perFunc[c.funcKey] >= m.o.PerFunction:
		return "function has enough tasks"
	}
	return ""
}

// try tries one candidate in jobDir, a copy of HEAD's tree that it leaves
// as it found it.
func (m *miner) try(ctx context.Context, jobDir string, c *candidate) outcome {
	if c.kind == kindHistory {
		return m.tryHistory(ctx, c)
	}
	return m.tryMutation(ctx, jobDir, c)
}
