package bench

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"text/tabwriter"

	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

// Comparison puts two recorded benchmarks side by side.
type Comparison struct {
	A, B  string        `json:"-"`
	Cases []CaseCompare `json:"cases"`
	// Matched counts the (case, pass) pairs judged in both.
	Matched int `json:"matched"`
	// OnlyA and OnlyB are matched pairs that worked in one side only.
	OnlyA int `json:"only_a"`
	OnlyB int `json:"only_b"`
	// P is the two-sided exact McNemar (sign) test over the discordant pairs.
	P        float64 `json:"p"`
	Resolved bool    `json:"resolved"`
	// NotJudgedA and NotJudgedB count runs left out (error, cancelled, or
	// missing on the other side).
	NotJudgedA int    `json:"not_judged_a"`
	NotJudgedB int    `json:"not_judged_b"`
	Sentence   string `json:"sentence"`
}

// CaseCompare is one case's worked counts on each side.
type CaseCompare struct {
	Case    string `json:"case"`
	Tier    int    `json:"tier"`
	WorkedA int    `json:"worked_a"`
	WorkedB int    `json:"worked_b"`
	Runs    int    `json:"runs"`
}

// ReadOutcomes reads the benchmark runs of a trace directory (the last
// attempt of each run id).
func ReadOutcomes(ctx context.Context, dir string) ([]Outcome, error) {
	var out []Outcome
	for run, err := range trace.Runs(ctx, dir) {
		if run == nil {
			return nil, err
		}
		if run.Start == nil || run.Start.Source != schemas.SourceBench {
			continue
		}
		out = append(out, outcomeOf(run.Start, run.Turns, run.End))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("read benchmark: no benchmark runs in %s", dir)
	}
	return out, nil
}

// Compare matches two benchmarks by case and pass and tests the paired
// difference. alpha is the significance level (0.05).
func Compare(nameA string, a []Outcome, nameB string, b []Outcome, alpha float64) *Comparison {
	type key struct {
		c string
		p int
	}
	index := func(os []Outcome) map[key]Outcome {
		m := map[key]Outcome{}
		for _, o := range os {
			m[key{o.Case, o.Pass}] = o
		}
		return m
	}
	ia, ib := index(a), index(b)
	c := &Comparison{A: nameA, B: nameB}
	byCase := map[string]*CaseCompare{}
	for k, oa := range ia {
		ob, ok := ib[k]
		if !ok || !oa.Judged() || !ob.Judged() {
			c.NotJudgedA++
			continue
		}
		c.Matched++
		cc := byCase[k.c]
		if cc == nil {
			cc = &CaseCompare{Case: k.c, Tier: oa.Tier}
			byCase[k.c] = cc
		}
		cc.Runs++
		wa, wb := oa.Verdict == schemas.VerdictWorked, ob.Verdict == schemas.VerdictWorked
		if wa {
			cc.WorkedA++
		}
		if wb {
			cc.WorkedB++
		}
		switch {
		case wa && !wb:
			c.OnlyA++
		case wb && !wa:
			c.OnlyB++
		}
	}
	for k, ob := range ib {
		if oa, ok := ia[k]; !ok || !oa.Judged() || !ob.Judged() {
			c.NotJudgedB++
		}
	}
	for _, cc := range byCase {
		c.Cases = append(c.Cases, *cc)
	}
	slices.SortFunc(c.Cases, func(x, y CaseCompare) int { return cmp.Or(cmp.Compare(x.Tier, y.Tier), cmp.Compare(x.Case, y.Case)) })
	c.P = ExactMcNemar(c.OnlyA, c.OnlyB)
	c.Resolved = c.P < alpha
	diff := c.OnlyB - c.OnlyA
	verdict := "within the noise"
	if c.Resolved {
		verdict = "resolved"
	}
	c.Sentence = fmt.Sprintf("%s: B worked %+d run(s) against A over %d matched (case, pass) runs (%d worked only in A, %d only in B; exact McNemar p = %.3g).",
		verdict, diff, c.Matched, c.OnlyA, c.OnlyB, c.P)
	if !c.Resolved {
		c.Sentence += " Do not report this difference as a result."
	}
	return c
}

// ExactMcNemar is the two-sided exact McNemar test of paired binary
// outcomes: a binomial sign test of the b and c discordant pairs against
// one half.
func ExactMcNemar(b, c int) float64 {
	n := b + c
	if n == 0 {
		return 1
	}
	k := min(b, c)
	// P(X <= k) for X ~ Binomial(n, 1/2), doubled.
	sum := 0.0
	for i := 0; i <= k; i++ {
		sum += math.Exp(lchoose(n, i) - float64(n)*math.Ln2)
	}
	return math.Min(1, 2*sum)
}

func lchoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// WriteText prints the comparison per case, then its one sentence.
func (c *Comparison) WriteText(w io.Writer) {
	fmt.Fprintf(w, "A: %s\nB: %s\n\n", c.A, c.B)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "case\ttier\tA worked\tB worked\truns")
	for _, cc := range c.Cases {
		mark := ""
		if cc.WorkedA != cc.WorkedB {
			mark = "  *"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d%s\n", cc.Case, cc.Tier, cc.WorkedA, cc.WorkedB, cc.Runs, mark)
	}
	tw.Flush()
	if c.NotJudgedA+c.NotJudgedB > 0 {
		fmt.Fprintf(w, "\nLeft out (error, cancelled, or not run on the other side): %d of A, %d of B.\n", c.NotJudgedA, c.NotJudgedB)
	}
	fmt.Fprintf(w, "\n%s\n", c.Sentence)
}
