package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
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

// update reports runs done of total, and how many worked so far.
func (p *progress) update(done, total, worked int) {
	elapsed := p.now().Sub(p.start).Round(time.Second)
	if p.bar != nil {
		p.bar.ChangeMax(total)
		p.bar.Describe(fmt.Sprintf("%s (%d worked, %s)", p.name, worked, elapsed))
		p.bar.Set(done)
		return
	}
	if tenth := done * 10 / max(total, 1); tenth > p.shown || done == total {
		p.shown = tenth
		fmt.Fprintf(p.w, "%s: %d/%d runs, %d worked, %s\n", p.name, done, total, worked, elapsed)
	}
}

func (p *progress) finish() {
	if p.bar != nil {
		p.bar.Finish()
	}
}
