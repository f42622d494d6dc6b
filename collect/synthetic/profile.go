package synthetic

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

// Dist summarises a distribution of sizes.
type Dist struct {
	N    int     `json:"n"`
	Mean float64 `json:"mean"`
	P50  int     `json:"p50"`
	P90  int     `json:"p90"`
	Max  int     `json:"max"`
}

// sizes accumulates values for a Dist.
type sizes []int32

func (s *sizes) add(n int) { *s = append(*s, int32(min(n, 1<<31-1))) }

func (s sizes) dist() Dist {
	if len(s) == 0 {
		return Dist{}
	}
	v := slices.Clone(s)
	slices.Sort(v)
	sum := 0
	for _, x := range v {
		sum += int(x)
	}
	at := func(q float64) int { return int(v[min(len(v)-1, int(q*float64(len(v))))]) }
	return Dist{N: len(v), Mean: float64(sum) / float64(len(v)), P50: at(0.5), P90: at(0.9), Max: int(v[len(v)-1])}
}

// Profile is the shape of a trace directory: what a generated corpus must
// match to stand for real traces.
type Profile struct {
	Runs  int `json:"runs"`
	Turns int `json:"turns"`
	// TurnsPerRun is the distribution of turns per run.
	TurnsPerRun Dist `json:"turns_per_run"`
	// Kinds counts turns by what they were sent; Verbs by the action read
	// from the draft; Verdicts runs by verdict.
	Kinds    map[string]int `json:"kinds"`
	Verbs    map[string]int `json:"verbs"`
	Verdicts map[string]int `json:"verdicts"`
	// MessageBytes is the content size of each message sent (the deltas,
	// as recorded); DraftBytes the size of each reply's content.
	MessageBytes Dist `json:"message_bytes"`
	DraftBytes   Dist `json:"draft_bytes"`
	// DiskBytes is the size of the trace files; BytesPerTurn DiskBytes /
	// Turns.
	DiskBytes    int64   `json:"disk_bytes"`
	BytesPerTurn float64 `json:"bytes_per_turn"`
}

// profiler accumulates a Profile record by record.
type profiler struct {
	p                    Profile
	perRun, msgs, drafts sizes
	turnsInRun           int
}

func newProfiler() *profiler {
	return &profiler{p: Profile{Kinds: map[string]int{}, Verbs: map[string]int{}, Verdicts: map[string]int{}}}
}

func (pr *profiler) add(rec schemas.Record) {
	switch {
	case rec.RunStart != nil:
		pr.p.Runs++
		pr.turnsInRun = 0
	case rec.Turn != nil:
		t := rec.Turn
		pr.p.Turns++
		pr.turnsInRun++
		pr.p.Kinds[string(t.Sent.Kind)]++
		verb := t.Action.Verb
		if verb == "" {
			verb = "(none)"
		}
		pr.p.Verbs[verb]++
		for _, m := range t.Sent.Messages {
			pr.msgs.add(len(m.Content))
		}
		pr.drafts.add(len(t.Reply.Content))
	case rec.RunEnd != nil:
		pr.p.Verdicts[string(rec.RunEnd.Verdict)]++
	}
}

func (pr *profiler) endRun() { pr.perRun.add(pr.turnsInRun) }

func (pr *profiler) profile() *Profile {
	p := pr.p
	p.TurnsPerRun, p.MessageBytes, p.DraftBytes = pr.perRun.dist(), pr.msgs.dist(), pr.drafts.dist()
	if p.Turns > 0 {
		p.BytesPerTurn = float64(p.DiskBytes) / float64(p.Turns)
	}
	return &p
}

// Measure reads the last attempt of every run of a trace directory and
// returns its profile.
func Measure(ctx context.Context, dir string) (*Profile, error) {
	pr := newProfiler()
	for f, err := range trace.LastAttempts(ctx, dir) {
		if err != nil {
			return nil, fmt.Errorf("measure traces: %w", err)
		}
		if st, err := os.Stat(f.Path); err == nil {
			pr.p.DiskBytes += st.Size()
		}
		for rec, err := range trace.ReadFile(f.Path) {
			if err != nil {
				continue // a bad line is validate's business; the good ones are measured
			}
			pr.add(rec)
		}
		pr.endRun()
	}
	if pr.p.Runs == 0 {
		return nil, fmt.Errorf("measure traces: no runs in %s", dir)
	}
	return pr.profile(), nil
}

// WriteComparison prints two profiles side by side, named by their
// headings.
func WriteComparison(w io.Writer, nameA string, a *Profile, nameB string, b *Profile) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "\t%s\t%s\t\n", nameA, nameB)
	row := func(label string, f func(*Profile) string) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t\n", label, f(a), f(b))
	}
	row("runs", func(p *Profile) string { return fmt.Sprint(p.Runs) })
	row("turns", func(p *Profile) string { return fmt.Sprint(p.Turns) })
	dist := func(label string, d func(*Profile) Dist) {
		row(label+" mean", func(p *Profile) string { return fmt.Sprintf("%.1f", d(p).Mean) })
		row(label+" p50 / p90 / max", func(p *Profile) string {
			x := d(p)
			return fmt.Sprintf("%d / %d / %d", x.P50, x.P90, x.Max)
		})
	}
	dist("turns per run", func(p *Profile) Dist { return p.TurnsPerRun })
	share := func(label string, m func(*Profile) map[string]int, total func(*Profile) int) {
		keys := map[string]bool{}
		for _, p := range []*Profile{a, b} {
			for k := range m(p) {
				keys[k] = true
			}
		}
		names := make([]string, 0, len(keys))
		for k := range keys {
			names = append(names, k)
		}
		slices.SortFunc(names, func(x, y string) int {
			return cmp.Or(-cmp.Compare(m(a)[x], m(a)[y]), -cmp.Compare(m(b)[x], m(b)[y]), strings.Compare(x, y))
		})
		for _, k := range names {
			row(label+" "+k, func(p *Profile) string {
				if total(p) == 0 {
					return "-"
				}
				return fmt.Sprintf("%.1f%%", 100*float64(m(p)[k])/float64(total(p)))
			})
		}
	}
	turns := func(p *Profile) int { return p.Turns }
	runs := func(p *Profile) int { return p.Runs }
	share("kind", func(p *Profile) map[string]int { return p.Kinds }, turns)
	share("verb", func(p *Profile) map[string]int { return p.Verbs }, turns)
	share("verdict", func(p *Profile) map[string]int { return p.Verdicts }, runs)
	dist("message bytes", func(p *Profile) Dist { return p.MessageBytes })
	dist("draft bytes", func(p *Profile) Dist { return p.DraftBytes })
	row("bytes on disk per turn", func(p *Profile) string { return fmt.Sprintf("%.0f", p.BytesPerTurn) })
	return tw.Flush()
}
