package bench

import (
	"cmp"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/pyharness/pyharness/collect/runcost"
	"github.com/pyharness/pyharness/datasets"
	"github.com/pyharness/pyharness/harness"
	"github.com/pyharness/pyharness/internal/tabletext"
	"github.com/pyharness/pyharness/schemas"
)

// Report is everything `pyharness bench` prints, as one document.
type Report struct {
	// Backend and Model name what drafted the runs; Scripted is true when
	// no model was called (scripted or replay backends).
	Backend  string               `json:"backend"`
	Model    string               `json:"model"`
	Scripted bool                 `json:"scripted"`
	Cases    int                  `json:"cases"`
	Passes   int                  `json:"passes"`
	Runs     []Outcome            `json:"runs"`
	Tiers    []TierScore          `json:"tiers"`
	Failures FailureTable         `json:"failures"`
	NoModel  schemas.NoModelSteps `json:"no_model_steps"`
	// NotJudged counts runs that ended error or cancelled: they are in no
	// score, total or comparison.
	NotJudged  NotJudged  `json:"not_judged"`
	Resolution Resolution `json:"resolution"`
	// Diverged counts replayed runs that did something other than the run
	// they replay (replay only).
	Diverged *int `json:"diverged,omitempty"`
	// Context is the first run's context window, and ContextWarnings what
	// it calls for (a --num-ctx above the trained context); Limits counts
	// the turns the context cut or refused.
	Context         *schemas.ContextSizes `json:"context,omitempty"`
	ContextWarnings []string              `json:"context_warnings,omitempty"`
	Limits          ContextLimits         `json:"context_limits"`
	// Cost is what the runs' model calls cost, by model.
	Cost []runcost.ModelCost `json:"cost"`
}

// ContextLimits counts the turns, and the runs they are in, that the
// context window cut or refused.
type ContextLimits struct {
	// Full counts replies cut by a full context before num_predict (the
	// server's finish reason is "length" either way).
	Full     int `json:"full"`
	FullRuns int `json:"full_runs"`
	// Truncated counts prompts the server cut (its count far below what
	// was sent, or the whole window).
	Truncated     int `json:"truncated"`
	TruncatedRuns int `json:"truncated_runs"`
	// Overflow counts prompts the server refused as too long.
	Overflow     int `json:"overflow"`
	OverflowRuns int `json:"overflow_runs"`
}

// TierScore is one row of the tier table.
type TierScore struct {
	Tier    int    `json:"tier"`
	Title   string `json:"title"`
	Worked  int    `json:"worked"`
	Judged  int    `json:"judged"`
	Weakest string `json:"weakest"` // "" when every case of the tier worked every time
	// WeakestWorked and WeakestJudged are the weakest case's score.
	WeakestWorked int `json:"weakest_worked"`
	WeakestJudged int `json:"weakest_judged"`
}

// FailureTable is what failed and how.
type FailureTable struct {
	Worked          int `json:"worked"`
	Failed          int `json:"failed"`
	WroteNothing    int `json:"wrote_nothing"`
	WrongThing      int `json:"wrong_thing"`
	DidNotDoTheJob  int `json:"did_not_do_the_job"`
	ClaimedDone     int `json:"claimed_done"`
	ClaimedDoneNoop int `json:"claimed_done_wrote_nothing"`
}

// NotJudged counts the runs left out of every score.
type NotJudged struct {
	Error     int `json:"error"`
	Cancelled int `json:"cancelled"`
}

// Resolution is the smallest gap in cases the sample can tell from noise.
type Resolution struct {
	// Computed is false with fewer than two passes.
	Computed bool `json:"computed"`
	// PassTotals are the worked counts of judged runs in each pass.
	PassTotals []int `json:"pass_totals"`
	Min        int   `json:"min"`
	Max        int   `json:"max"`
	// Gap is max - min + 1, never more than the number of cases.
	Gap int `json:"gap"`
	// BootstrapLow and BootstrapHigh bound the mean per-pass total (95%,
	// seeded, 2,000 resamples of the passes).
	BootstrapLow  float64 `json:"bootstrap_low"`
	BootstrapHigh float64 `json:"bootstrap_high"`
	Statement     string  `json:"statement"`
}

// NewReport computes the report of a set of outcomes.
func NewReport(runs []Outcome, cases int, passes int) *Report {
	r := &Report{Runs: runs, Cases: cases, Passes: passes}
	if r.Runs == nil {
		r.Runs = []Outcome{}
	}
	slices.SortStableFunc(r.Runs, func(a, b Outcome) int {
		return cmp.Or(cmp.Compare(a.Pass, b.Pass), cmp.Compare(a.Tier, b.Tier), strings.Compare(a.Case, b.Case))
	})
	if len(runs) > 0 {
		r.Backend, r.Model = runs[0].Backend, runs[0].Model
		r.Scripted = schemas.Model{Backend: r.Backend}.HandWritten()
		if r.Backend == schemas.BackendScripted {
			r.Model = "each case's own scripts"
		}
	}
	r.Tiers = tierScores(runs)
	for _, o := range runs {
		if r.Context == nil && o.Context != nil {
			r.Context = o.Context
			r.ContextWarnings = harness.ContextWarnings(schemas.Model{Backend: o.Backend, Context: o.Context})
		}
		r.Limits.add(o)
	}
	for _, o := range runs {
		switch o.Verdict {
		case schemas.VerdictError:
			r.NotJudged.Error++
			continue
		case schemas.VerdictCancelled:
			r.NotJudged.Cancelled++
			continue
		case schemas.VerdictWorked:
			r.Failures.Worked++
		default:
			r.Failures.Failed++
			switch o.FailureClass {
			case schemas.FailWroteNothing:
				r.Failures.WroteNothing++
			case schemas.FailWrongThing:
				r.Failures.WrongThing++
			case schemas.FailDidNotDoTheJob:
				r.Failures.DidNotDoTheJob++
			}
			if o.ClaimedDone {
				r.Failures.ClaimedDone++
				if len(o.Writes) == 0 {
					r.Failures.ClaimedDoneNoop++
				}
			}
		}
		if o.ModelSteps == 0 {
			r.NoModel.Runs++
			if o.Verdict == schemas.VerdictWorked {
				r.NoModel.Correct++
			}
		}
	}
	cost := runcost.Tally{}
	for _, o := range runs {
		m := schemas.Model{Backend: o.Backend, Name: o.Model}
		cost.Add(m.Label(), m.HandWritten(), o.Cost)
	}
	r.Cost = cost.Models()
	r.Resolution = resolution(runs, cases, passes)
	return r
}

func tierScores(runs []Outcome) []TierScore {
	titles := datasets.Tiers()
	type score struct{ worked, judged int }
	byTier := map[int]*TierScore{}
	byCase := map[int]map[string]*score{}
	for _, o := range runs {
		if !o.Judged() {
			continue
		}
		t := byTier[o.Tier]
		if t == nil {
			t = &TierScore{Tier: o.Tier, Title: titles[o.Tier]}
			byTier[o.Tier] = t
			byCase[o.Tier] = map[string]*score{}
		}
		c := byCase[o.Tier][o.Case]
		if c == nil {
			c = &score{}
			byCase[o.Tier][o.Case] = c
		}
		t.Judged++
		c.judged++
		if o.Verdict == schemas.VerdictWorked {
			t.Worked++
			c.worked++
		}
	}
	var out []TierScore
	for tier, t := range byTier {
		names := make([]string, 0, len(byCase[tier]))
		for n := range byCase[tier] {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			c := byCase[tier][n]
			if c.worked == c.judged {
				continue
			}
			// The weakest case has the lowest share worked.
			if t.Weakest == "" || c.worked*t.WeakestJudged < t.WeakestWorked*c.judged {
				t.Weakest, t.WeakestWorked, t.WeakestJudged = n, c.worked, c.judged
			}
		}
		out = append(out, *t)
	}
	slices.SortFunc(out, func(a, b TierScore) int { return cmp.Compare(a.Tier, b.Tier) })
	return out
}

// resolution computes the spread of per-pass totals of judged runs and a
// seeded bootstrap interval of the mean total.
func resolution(runs []Outcome, cases, passes int) Resolution {
	res := Resolution{PassTotals: []int{}}
	totals := map[int]int{}
	seen := map[int]bool{}
	for _, o := range runs {
		if !o.Judged() {
			continue
		}
		seen[o.Pass] = true
		if o.Verdict == schemas.VerdictWorked {
			totals[o.Pass]++
		}
	}
	var ps []int
	for p := range seen {
		ps = append(ps, p)
	}
	sort.Ints(ps)
	for _, p := range ps {
		res.PassTotals = append(res.PassTotals, totals[p])
	}
	if len(res.PassTotals) < 2 {
		res.Statement = fmt.Sprintf("With %d pass(es) of judged runs no resolution can be computed: run --repeat 2 or more before comparing anything.", len(res.PassTotals))
		return res
	}
	res.Computed = true
	res.Min, res.Max = slices.Min(res.PassTotals), slices.Max(res.PassTotals)
	res.Gap = min(res.Max-res.Min+1, max(cases, 1))
	res.BootstrapLow, res.BootstrapHigh = bootstrapMean(res.PassTotals, 2000, 1)
	res.Statement = fmt.Sprintf("This sample resolves a gap of %d case(s) or more. Identical code scored %d–%d across %d passes, so a difference of %d or fewer is noise and must not be reported as a result.",
		res.Gap, res.Min, res.Max, len(res.PassTotals), res.Gap-1)
	return res
}

// bootstrapMean is the 95% percentile interval of the mean of xs over n
// resamples with replacement, from a fixed seed so reports are repeatable.
func bootstrapMean(xs []int, n int, seed uint64) (float64, float64) {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	means := make([]float64, n)
	for i := range means {
		sum := 0
		for range xs {
			sum += xs[rng.IntN(len(xs))]
		}
		means[i] = float64(sum) / float64(len(xs))
	}
	slices.Sort(means)
	return means[int(0.025*float64(n))], means[int(0.975*float64(n))-1]
}

// WriteText prints the report's four tables and the resolution statement.
func (l *ContextLimits) add(o Outcome) {
	count := func(n int, turns, runs *int) {
		*turns += n
		if n > 0 {
			*runs++
		}
	}
	count(o.ContextFull, &l.Full, &l.FullRuns)
	count(o.ContextTruncated, &l.Truncated, &l.TruncatedRuns)
	count(o.ContextOverflow, &l.Overflow, &l.OverflowRuns)
}

func (r *Report) WriteText(w io.Writer) {
	judged := r.Failures.Worked + r.Failures.Failed
	if r.Scripted {
		fmt.Fprintf(w, "Backend: %s (%s) — no model was called; these runs measure the harness, not a model.\n\n", r.Backend, r.Model)
	} else {
		fmt.Fprintf(w, "Model: %s %s\n", r.Backend, r.Model)
		if r.Context != nil {
			fmt.Fprintf(w, "Context: %s\n", harness.ContextLine(r.Context))
		}
		for _, warn := range r.ContextWarnings {
			fmt.Fprintf(w, "warning: %s\n", warn)
		}
		fmt.Fprintln(w)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "case\tpass\tverdict\tclass\twrote\tsteps\tmodel\tstop\twhy")
	for _, o := range r.Runs {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%d\t%d\t%s\t%s\n", o.Case, o.Pass, o.Verdict, tabletext.Dash(string(o.FailureClass)),
			writesText(o.Writes), o.Steps, o.ModelSteps, o.StopReason, tabletext.Truncate(o.Why, 70))
	}
	tw.Flush()

	fmt.Fprintf(w, "\nTiers (%d judged runs", judged)
	r.notJudgedNote(w)
	fmt.Fprintln(w, ")")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "tier\tscore\tweakest case")
	for _, t := range r.Tiers {
		weak := tabletext.None
		if t.Weakest != "" {
			weak = fmt.Sprintf("%s %d/%d", t.Weakest, t.WeakestWorked, t.WeakestJudged)
		}
		fmt.Fprintf(tw, "%d · %s\t%d / %d\t%s\n", t.Tier, t.Title, t.Worked, t.Judged, weak)
	}
	fmt.Fprintf(tw, "all\t%d / %d\t\n", r.Failures.Worked, judged)
	tw.Flush()

	f := r.Failures
	fmt.Fprintf(w, "\nFailures")
	if judged > 0 {
		fmt.Fprintf(w, ": %d of %d judged runs (%s)", f.Failed, judged, tabletext.Percent(f.Failed, judged))
	}
	r.notJudgedNote(w)
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "worked\t%d\t\n", f.Worked)
	fmt.Fprintf(tw, "failed\t%d\t\n", f.Failed)
	fmt.Fprintf(tw, "  wrote nothing\t%d\t%s\n", f.WroteNothing, tabletext.Percent(f.WroteNothing, f.Failed))
	fmt.Fprintf(tw, "  wrote something, not the thing asked (wrong file, name absent, no import)\t%d\t%s\n", f.WrongThing, tabletext.Percent(f.WrongThing, f.Failed))
	fmt.Fprintf(tw, "  wrote something, it did not do the job (hidden checks fail)\t%d\t%s\n", f.DidNotDoTheJob, tabletext.Percent(f.DidNotDoTheJob, f.Failed))
	fmt.Fprintf(tw, "  ended by claiming DONE\t%d\t%s of failures; %d of them wrote nothing\n", f.ClaimedDone, tabletext.Percent(f.ClaimedDone, f.Failed), f.ClaimedDoneNoop)
	tw.Flush()

	fmt.Fprintf(w, "\nRuns with no model steps: %d, of which correct: %d\n", r.NoModel.Runs, r.NoModel.Correct)
	if !r.Scripted {
		l := r.Limits
		fmt.Fprintf(w, "Context limits: %d replies cut by a full context (in %d runs), %d prompts the server cut (in %d runs), %d prompts it refused as too long (in %d runs)\n",
			l.Full, l.FullRuns, l.Truncated, l.TruncatedRuns, l.Overflow, l.OverflowRuns)
	}
	if r.Diverged != nil {
		fmt.Fprintf(w, "Replayed runs that diverged from the recording: %d of %d\n", *r.Diverged, len(r.Runs))
		for _, o := range r.Runs {
			if o.Divergence != "" {
				fmt.Fprintf(w, "  %s pass %d: %s\n", o.Case, o.Pass, o.Divergence)
			}
		}
	}
	fmt.Fprintf(w, "\n%s\n", runcost.Heading)
	runcost.WriteTable(w, r.Cost)
	res := r.Resolution
	fmt.Fprintln(w)
	fmt.Fprintln(w, res.Statement)
	if res.Computed {
		fmt.Fprintf(w, "Per-pass totals: %s; bootstrap 95%% interval of the mean per-pass total: %.1f–%.1f.\n", joinInts(res.PassTotals), res.BootstrapLow, res.BootstrapHigh)
	}
}

func (r *Report) notJudgedNote(w io.Writer) {
	if n := r.NotJudged.Error + r.NotJudged.Cancelled; n > 0 {
		fmt.Fprintf(w, "; %d not judged: %d error, %d cancelled", n, r.NotJudged.Error, r.NotJudged.Cancelled)
	} else {
		fmt.Fprintf(w, "; none ended error or cancelled")
	}
}

func writesText(ws []schemas.Write) string {
	if len(ws) == 0 {
		return tabletext.None
	}
	var parts []string
	for _, w := range ws {
		parts = append(parts, fmt.Sprintf("%s +%d/-%d", w.Path, w.Added, w.Removed))
	}
	return strings.Join(parts, ", ")
}

func joinInts(xs []int) string {
	var s []string
	for _, x := range xs {
		s = append(s, fmt.Sprint(x))
	}
	return strings.Join(s, ", ")
}
