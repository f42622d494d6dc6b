package report

import (
	"context"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strconv"

	"github.com/pyharness/pyharness/collect/runcost"
	"github.com/pyharness/pyharness/internal/tabletext"
	"github.com/pyharness/pyharness/report/stats"
)

//go:embed report.html.tmpl
var pageTemplate string

var page = template.Must(template.New("report").Funcs(template.FuncMap{
	"pct":        tabletext.Share,
	"kindTitle":  stats.KindTitle,
	"classTitle": stats.ClassTitle,
	"share": func(n, of int) float64 {
		if of == 0 {
			return 0
		}
		return float64(n) / float64(of)
	},
	"dash":   tabletext.Dash,
	"perRun": func(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) },
	"runLink": func(p *RunPages, runID string, text any) template.HTML {
		return link(p.runHref(runID), text)
	},
	"listLink": func(p *RunPages, name string, text any) template.HTML {
		return link(p.listHref(name), text)
	},
	"listClass": listClass,
	"total": func(cs []stats.Count) int {
		n := 0
		for _, c := range cs {
			n += c.Count
		}
		return n
	},
	"perRunOf":   func(n int, runs int) string { return runcost.PerRun(float64(n), runs) },
	"secondsPer": func(ms int64, runs int) string { return runcost.PerRun(float64(ms)/1000, runs) },
	"seconds":    runcost.Seconds,
	"percent":    tabletext.Percent,
	"listModel":  listModel,
	"listTier":   listTier,
	"modelRuns": func(ms []stats.ModelRuns, scripted bool) []stats.ModelRuns {
		var out []stats.ModelRuns
		for _, m := range ms {
			if m.Scripted == scripted {
				out = append(out, m)
			}
		}
		return out
	},
}).Parse(pageTemplate))

// link is text as a link to href, or as plain text when href is empty.
func link(href string, text any) template.HTML {
	t := template.HTMLEscapeString(fmt.Sprint(text))
	if href == "" {
		return template.HTML(t)
	}
	return template.HTML(`<a href="` + template.HTMLEscapeString(href) + `">` + t + `</a>`)
}

// Options are what a report says about itself.
type Options struct {
	// Title heads the page.
	Title string
	// Generated is printed as the time the report was made; empty for none.
	Generated string
	// Runs are the run pages the report links its rows to; nil for none.
	Runs *RunPages
}

// Chart names, the id of each chart's figure in the page.
const (
	chartKinds    = "turn-kinds"
	chartTiers    = "tier-pass-rate"
	chartClasses  = "failure-classes"
	chartPasses   = "worked-per-pass"
	chartTurnsRun = "turns-per-run"
)

// expectedBars is the number of bars each chart of a summary's report
// draws: one per turn kind, tier, failure class, pass and histogram bin.
func expectedBars(s *stats.Summary) map[string]int {
	return map[string]int{
		chartKinds:    len(s.Kinds),
		chartTiers:    len(tierRates(s)),
		chartClasses:  len(s.FailureClasses),
		chartPasses:   len(s.Passes),
		chartTurnsRun: len(s.TurnsPerRun),
	}
}

// Write renders a summary as one self-contained HTML page: inline CSS,
// inline SVG charts, no script, and a content security policy that lets
// the page load nothing from anywhere.
func Write(ctx context.Context, w io.Writer, s *stats.Summary, o Options) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	if o.Title == "" {
		o.Title = "pyharness report"
	}
	data := struct {
		Options
		S      *stats.Summary
		Charts []chart
	}{o, s, charts(s)}
	if err := page.Execute(w, data); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// chart is one bar chart, laid out for SVG.
type chart struct {
	ID, Title, Note string
	Width, Height   int
	Vertical        bool
	Bars            []bar
	// Axis is the y of the baseline of a vertical chart.
	Axis int
}

// bar is one bar with its geometry and labels.
type bar struct {
	Label, Value  string
	X, Y, W, H    int
	LabelX, TextX int
	LabelY, TextY int
	Class         string
}

const (
	chartWidth = 660
	barHeight  = 22
	barGap     = 8
	labelWidth = 300
	valueWidth = 100
)

// horizontal lays out labelled bars from left to right; frac is each bar's
// length as a share of the longest possible.
func horizontal(id, title, note string, labels, values []string, frac []float64, class func(int) string) chart {
	c := chart{ID: id, Title: title, Note: note, Width: chartWidth}
	span := chartWidth - labelWidth - valueWidth
	for i := range labels {
		y := 10 + i*(barHeight+barGap)
		w := int(frac[i]*float64(span) + 0.5)
		c.Bars = append(c.Bars, bar{Label: labels[i], Value: values[i], X: labelWidth, Y: y, W: w, H: barHeight,
			LabelX: labelWidth - 8, LabelY: y + barHeight/2 + 5, TextX: labelWidth + w + 6, TextY: y + barHeight/2 + 5, Class: class(i)})
	}
	c.Height = 20 + len(labels)*(barHeight+barGap)
	return c
}

// vertical lays out bars side by side over a baseline.
func vertical(id, title, note string, labels, values []string, frac []float64, class func(int) string) chart {
	const plot, top = 180, 24
	c := chart{ID: id, Title: title, Note: note, Width: chartWidth, Vertical: true, Axis: top + plot}
	n := max(len(labels), 1)
	slot := (chartWidth - 40) / n
	w := max(min(slot-6, 60), 4)
	for i := range labels {
		h := int(frac[i]*plot + 0.5)
		x := 20 + i*slot + (slot-w)/2
		c.Bars = append(c.Bars, bar{Label: labels[i], Value: values[i], X: x, Y: top + plot - h, W: w, H: h,
			LabelX: x + w/2, LabelY: top + plot + 16, TextX: x + w/2, TextY: top + plot - h - 5, Class: class(i)})
	}
	c.Height = top + plot + 26
	return c
}

func charts(s *stats.Summary) []chart {
	plain := func(int) string { return "" }
	var out []chart

	var labels, values []string
	var frac []float64
	for _, k := range s.Kinds {
		labels = append(labels, stats.KindTitle(k.Name))
		values = append(values, fmt.Sprintf("%s (%d)", tabletext.Share(k.Share, s.Turns.Total), k.Count))
		frac = append(frac, k.Share)
	}
	out = append(out, horizontal(chartKinds, "What the model is sent", fmt.Sprintf("%d turns over %d runs", s.Turns.Total, s.Turns.Runs),
		labels, values, frac, func(i int) string { return "k-" + s.Kinds[i].Name }))

	labels, values, frac = nil, nil, nil
	rates := tierRates(s)
	for _, r := range rates {
		labels = append(labels, tabletext.Truncate(r.label, 44))
		values = append(values, fmt.Sprintf("%d/%d", r.worked, r.judged))
		frac = append(frac, share(r.worked, r.judged))
	}
	what := "tier"
	if len(rates) > 0 && rates[0].tag {
		what = "tag"
	}
	out = append(out, horizontal(chartTiers, "Pass rate per "+what, "worked of judged runs"+ofModels(s)+"; the bar is the share",
		labels, values, frac, plain))

	labels, values, frac = nil, nil, nil
	for _, c := range s.FailureClasses {
		labels = append(labels, stats.ClassTitle(c.Name))
		values = append(values, fmt.Sprintf("%s (%d)", tabletext.Share(c.Share, s.Scored.Failed), c.Count))
		frac = append(frac, c.Share)
	}
	out = append(out, horizontal(chartClasses, "Why runs failed", fmt.Sprintf("%d failures of %d judged runs%s", s.Scored.Failed, s.Scored.Judged, ofModels(s)),
		labels, values, frac, func(int) string { return "fail" }))

	labels, values, frac = nil, nil, nil
	most := 1
	for _, p := range s.Passes {
		most = max(most, p.Judged)
	}
	for _, p := range s.Passes {
		labels = append(labels, strconv.Itoa(p.Pass))
		values = append(values, strconv.Itoa(p.Worked))
		frac = append(frac, float64(p.Worked)/float64(most))
	}
	out = append(out, vertical(chartPasses, "Worked per pass", "the spread across passes is what the resolution statement reads",
		labels, values, frac, plain))

	labels, values, frac = nil, nil, nil
	most = 1
	for _, b := range s.TurnsPerRun {
		most = max(most, b.Runs)
	}
	for _, b := range s.TurnsPerRun {
		labels = append(labels, strconv.Itoa(b.Turns))
		values = append(values, strconv.Itoa(b.Runs))
		frac = append(frac, float64(b.Runs)/float64(most))
	}
	out = append(out, vertical(chartTurnsRun, "Turns per run", "runs by number of turns",
		labels, values, frac, plain))
	return out
}

// ofModels names the runs a score counts when they are not simply all
// runs of models (stats.Summary.ScoredLabel).
func ofModels(s *stats.Summary) string {
	if l := s.ScoredLabel(); l != "" {
		return " (" + l + ")"
	}
	return ""
}

func share(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}

// passRate is one bar of the pass-rate chart.
type passRate struct {
	label          string
	worked, judged int
	tag            bool
}

// tierRates are the bars of the pass-rate chart: one per tier, named as
// the tier table names it; or, when every run is of no tier (dogfood and
// ad hoc runs) and runs have tags, one per tag, where the one bar of "no
// tier" would say nothing.
func tierRates(s *stats.Summary) []passRate {
	var out []passRate
	if len(s.Tiers) == 1 && s.Tiers[0].Tier == 0 && len(s.Tags) > 0 {
		for _, t := range s.Tags {
			out = append(out, passRate{label: t.Tag, worked: t.Worked, judged: t.Judged, tag: true})
		}
		return out
	}
	for _, t := range s.Tiers {
		out = append(out, passRate{label: fmt.Sprintf("%d · %s", t.Tier, t.Title), worked: t.Worked, judged: t.Judged})
	}
	return out
}
