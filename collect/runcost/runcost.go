package runcost

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"github.com/pyharness/pyharness/internal/tabletext"
	"github.com/pyharness/pyharness/schemas"
)

// Cost is what some runs' model calls cost.
type Cost struct {
	Runs int `json:"runs"`
	// Calls counts the calls to the model server (each attempt of a
	// model step, failed ones included; a step recorded without attempts
	// is one call).
	Calls int `json:"calls"`
	// ModelMS is the server's time of them (turn metrics.total_ms).
	ModelMS int64 `json:"model_ms"`
	// RefusedCalls counts the calls whose draft the harness refused.
	RefusedCalls int `json:"refused_calls"`
	// Stuck counts the runs that stopped stuck, and StuckBudgetLeft the
	// steps of their budgets they left unspent: the most calls the stuck
	// rule saved them.
	Stuck           int `json:"stuck"`
	StuckBudgetLeft int `json:"stuck_budget_left"`
}

// addTurn counts one turn's model calls.
func (c *Cost) addTurn(t *schemas.Turn) {
	if !t.ModelStep {
		return
	}
	n := max(1, len(t.Attempts))
	c.Calls += n
	c.ModelMS += t.Metrics.TotalMS
	if t.Outcome.Status == schemas.StatusRefused {
		c.RefusedCalls += n
	}
}

// addRun counts one run, from its first and last records (end is nil for
// a run cut off), its turns counted apart with addTurn.
func (c *Cost) addRun(start *schemas.RunStart, end *schemas.RunEnd) {
	c.Runs++
	if end != nil && end.StopReason == schemas.StopStuck {
		c.Stuck++
		if start != nil && start.MaxSteps > end.Steps {
			c.StuckBudgetLeft += start.MaxSteps - end.Steps
		}
	}
}

// Of is the cost of one run read from its trace.
func Of(start *schemas.RunStart, turns []*schemas.Turn, end *schemas.RunEnd) Cost {
	var c Cost
	c.addRun(start, end)
	for _, t := range turns {
		c.addTurn(t)
	}
	return c
}

// add adds o's counts to c's.
func (c *Cost) add(o Cost) {
	c.Runs += o.Runs
	c.Calls += o.Calls
	c.ModelMS += o.ModelMS
	c.RefusedCalls += o.RefusedCalls
	c.Stuck += o.Stuck
	c.StuckBudgetLeft += o.StuckBudgetLeft
}

// ModelCost is the cost of one model's runs (or one scripted or replayed
// backend's, Scripted set).
type ModelCost struct {
	Model    string `json:"model"`
	Scripted bool   `json:"scripted"`
	Cost
}

// Tally adds up costs by model.
type Tally map[string]*ModelCost

// Add counts c under its model's label.
func (t Tally) Add(label string, scripted bool, c Cost) {
	m := t[label]
	if m == nil {
		m = &ModelCost{Model: label, Scripted: scripted}
		t[label] = m
	}
	m.add(c)
}

// Models lists the tally, models first, then the scripted and replayed
// backends, each by label.
func (t Tally) Models() []ModelCost {
	out := []ModelCost{}
	for _, m := range t {
		out = append(out, *m)
	}
	slices.SortFunc(out, func(a, b ModelCost) int {
		if a.Scripted != b.Scripted {
			if a.Scripted {
				return 1
			}
			return -1
		}
		return cmp.Compare(a.Model, b.Model)
	})
	return out
}

// Heading is the line above the cost table.
const Heading = "Cost per run: calls to the model server, the server's time of them, and the calls whose draft was refused"

// WriteTable prints the cost table, a row per model, and a line on what
// the stuck rule stopped.
func WriteTable(w io.Writer, models []ModelCost) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "model\truns\tcalls\tper run\tmodel seconds\tper run\trefused calls\tstuck runs")
	for _, m := range models {
		label := tabletext.Dash(m.Model)
		if m.Scripted {
			label += " (not a model)"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%d (%s)\t%d\n", label, m.Runs, m.Calls, PerRun(float64(m.Calls), m.Runs),
			Seconds(m.ModelMS), PerRun(float64(m.ModelMS)/1000, m.Runs), m.RefusedCalls, tabletext.Percent(m.RefusedCalls, m.Calls), m.Stuck)
	}
	tw.Flush()
	for _, m := range models {
		if m.Stuck > 0 {
			fmt.Fprintf(w, "%s: %d run(s) stopped stuck (the same draft refused with the same code again and again), leaving %d step(s) of their budgets unspent\n",
				tabletext.Dash(m.Model), m.Stuck, m.StuckBudgetLeft)
		}
	}
}

// PerRun is v shared over runs, to a tenth; a dash for no runs.
func PerRun(v float64, runs int) string {
	if runs == 0 {
		return tabletext.None
	}
	return fmt.Sprintf("%.1f", v/float64(runs))
}

// Seconds is a time in milliseconds as seconds, to a tenth.
func Seconds(ms int64) string {
	return fmt.Sprintf("%.1f", float64(ms)/1000)
}
