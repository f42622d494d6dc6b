package transcript

import (
	"context"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strings"
	"time"
)

//go:embed run.html.tmpl
var runTemplate string

var runPage = template.Must(template.New("run").Funcs(template.FuncMap{
	"model":       modelLine,
	"harness":     harnessLine,
	"verbPath":    verbPath,
	"actionLine":  actionLine,
	"outcomeLine": outcomeLine,
	"stepMetrics": stepMetricsLine,
	"suite":       suiteLine,
	"checks":      checksLine,
	"duration":    func(ms int64) string { return (time.Duration(ms) * time.Millisecond).String() },
	"diffLines":   diffLines,
}).Parse(runTemplate))

// HTMLOptions are what a run's page links to and calls itself.
type HTMLOptions struct {
	// Title names the collection the run belongs to.
	Title string
	// Up is the address of the page that lists the run (relative), and
	// UpTitle its name; no link without one.
	Up, UpTitle string
}

// WriteHTML writes the run's transcript as one self-contained HTML page:
// the prompt messages of each step folded in a <details>, the draft and
// the feedback side by side, the patch as a coloured diff; inline CSS, no
// script, and a content security policy that lets it load nothing.
func WriteHTML(ctx context.Context, w io.Writer, r *Run, o HTMLOptions) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("write run page: %w", err)
	}
	if o.Title == "" {
		o.Title = "pyharness run"
	}
	data := struct {
		HTMLOptions
		R     *Run
		Steps []step
	}{o, r, r.steps()}
	if err := runPage.Execute(w, data); err != nil {
		return fmt.Errorf("write run page: %w", err)
	}
	return nil
}

type diffLine struct{ Class, Text string }

func diffLines(patch string) []diffLine {
	var out []diffLine
	for _, l := range strings.Split(strings.TrimRight(patch, "\n"), "\n") {
		out = append(out, diffLine{Class: diffLineClass(l).String(), Text: l})
	}
	return out
}
