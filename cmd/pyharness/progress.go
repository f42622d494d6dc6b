package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/pyharness/pyharness/collect"
	"golang.org/x/term"
)

// progress shows how a long job goes on stderr: a bar on a terminal, and a
// plain line at every tenth of the way otherwise (a log, CI), so that a
// redirected stderr is not filled with carriage returns.
type progress struct {
	bar   *progressbar.ProgressBar
	w     io.Writer
	name  string
	start time.Time
	now   func() time.Time
	shown int
	// cancelled is the count of cancelled runs last shown: a cancel is
	// shown when it happens, whatever the share of the way.
	cancelled int
}

func newProgress(a *app, name string) *progress {
	p := &progress{w: a.stderr, name: name, now: a.now, start: a.now()}
	if f, ok := a.stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.bar = progressbar.NewOptions(-1, progressbar.OptionSetWriter(a.stderr), progressbar.OptionSetDescription(name),
			progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(true), progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionSetWidth(30), progressbar.OptionClearOnFinish())
	}
	return p
}

// update reports the runs done of those planned, how many worked so far,
// and the runs that ended cancelled or in a model error apart: they are
// not done (a --resume runs them again).
func (p *progress) update(t collect.Tally) {
	elapsed := p.now().Sub(p.start).Round(time.Second)
	var apart string
	if t.Cancelled > 0 {
		apart += fmt.Sprintf(", %d cancelled", t.Cancelled)
	}
	if t.Errors > 0 {
		apart += fmt.Sprintf(", %d model error", t.Errors)
	}
	if p.bar != nil {
		p.bar.ChangeMax(t.Total)
		p.bar.Describe(fmt.Sprintf("%s (%d worked%s, %s)", p.name, t.Worked, apart, elapsed))
		p.bar.Set(t.Done)
		return
	}
	ended := t.Done + t.Cancelled + t.Errors
	if tenth := ended * 10 / max(t.Total, 1); tenth > p.shown || ended == t.Total || t.Cancelled > p.cancelled {
		p.shown, p.cancelled = tenth, t.Cancelled
		fmt.Fprintf(p.w, "%s: %d/%d runs, %d worked%s, %s\n", p.name, t.Done, t.Total, t.Worked, apart, elapsed)
	}
}

func (p *progress) finish() {
	if p.bar != nil {
		p.bar.Finish()
	}
}
