package report

import (
	"bytes"
	"context"
	"html"
	"image/png"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pyharness/pyharness/internal/testkit/browser"
	"github.com/pyharness/pyharness/internal/testkit/needs"
	"github.com/pyharness/pyharness/report/stats"
	"github.com/pyharness/pyharness/report/transcript"
	"github.com/pyharness/pyharness/schemas/trace"
)

const fixtures = "../classify/testdata/traces"

func summary(t *testing.T, by string) *stats.Summary {
	t.Helper()
	s, err := stats.Load(context.Background(), fixtures, stats.Options{By: by})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func render(t *testing.T, s *stats.Summary) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Write(context.Background(), &b, s, Options{Title: "pyharness report: fixtures"}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

var figureRE = regexp.MustCompile(`(?s)<figure class="chart" id="([a-z-]+)"[^>]*>(.*?)</figure>`)

// countBars counts the bars of each chart in a page, as written or as a
// browser's DOM dump.
func countBars(page string) map[string]int {
	got := map[string]int{}
	for _, m := range figureRE.FindAllStringSubmatch(page, -1) {
		got[m[1]] = strings.Count(m[2], `<rect class="bar`)
	}
	return got
}

func checkBars(t *testing.T, page string, s *stats.Summary) {
	t.Helper()
	want := expectedBars(s)
	got := countBars(page)
	if len(got) != len(want) {
		t.Errorf("the page has charts %v, want %v", got, want)
	}
	for id, n := range want {
		if got[id] != n {
			t.Errorf("chart %s has %d bars, want %d", id, got[id], n)
		}
		if n == 0 {
			t.Errorf("chart %s would have no bars on the fixtures", id)
		}
	}
}

func TestPageIsSelfContained(t *testing.T) {
	for _, by := range []string{"", "model"} {
		s := summary(t, by)
		page := string(render(t, s))
		checkBars(t, page, s)
		for _, bad := range []string{"<script", "src=", "href=", "@import", "url("} {
			if strings.Contains(page, bad) {
				t.Errorf("the page holds %q: it must load nothing", bad)
			}
		}
		if n := strings.Count(page, "://"); n != strings.Count(page, `xmlns="http://www.w3.org/2000/svg"`) {
			t.Errorf("the page names a URL other than the SVG namespace")
		}
		for _, want := range []string{"Why runs failed", "Failures by tier", "What it is told, most often", "run-tests-first", "Failures that ended claiming DONE", "Runs with no model steps"} {
			if !strings.Contains(page, want) {
				t.Errorf("the page has no %q", want)
			}
		}
		if by != "" && !strings.Contains(page, "<h2>By model</h2>") {
			t.Error("the breakdown by model is missing")
		}
	}
}

func TestEmptyChartsSayNoData(t *testing.T) {
	page := string(render(t, &stats.Summary{Input: "x", Kind: stats.InputTraces}))
	if got := strings.Count(page, "no data"); got != 5 {
		t.Errorf("%d charts say no data, want 5", got)
	}
}

func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Write(ctx, &bytes.Buffer{}, summary(t, ""), Options{}); err == nil {
		t.Error("a cancelled context wrote a report")
	}
}

// TestRendersInChromium opens the report in headless Chromium (Debian's
// chromium package), takes a screenshot, and reads the DOM the browser
// built: every chart has its bars, and the browser logged no console
// message (the page's content security policy turns any attempt to load
// something into one). A control page that does try to load an image must
// be caught, so a silent browser is not mistaken for a clean page.
// PYHARNESS_SCREENSHOT_DIR keeps the screenshot for a person to look at.
func TestRendersInChromium(t *testing.T) {
	bin, err := browser.Find()
	if err != nil {
		needs.Missing(t, "%v: the report was not rendered in a browser", err)
	}
	dir := t.TempDir()
	s := summary(t, "model")
	pagePath := filepath.Join(dir, "report.html")
	if err := os.WriteFile(pagePath, render(t, s), 0o644); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "report.png")
	dom, console := chromium(t, bin, dir, pagePath, shot)
	if len(console) > 0 {
		t.Errorf("the browser logged console messages:\n%s", strings.Join(console, "\n"))
	}
	checkBars(t, dom, s)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if b := img.Bounds(); b.Dx() < 1000 || b.Dy() < 1000 {
		t.Errorf("screenshot is %dx%d", b.Dx(), b.Dy())
	}
	if keep := os.Getenv("PYHARNESS_SCREENSHOT_DIR"); keep != "" {
		b, _ := os.ReadFile(shot)
		if err := os.WriteFile(filepath.Join(keep, "report.png"), b, 0o644); err != nil {
			t.Error(err)
		}
		if err := os.WriteFile(filepath.Join(keep, "report.html"), render(t, s), 0o644); err != nil {
			t.Error(err)
		}
	}

	// At 1400 px the page does not scroll sideways: long first failures
	// and run ids wrap (the demo's claimed-DONE table pushed it sideways;
	// the example added here is as long as its longest). A control with a
	// too-wide element is measured as scrolling, so a measurement that
	// always reads 0 is not mistaken for a page that fits.
	long := *s
	long.ClaimedDone.Examples = append(slices.Clone(s.ClaimedDone.Examples), stats.ClaimedRun{RunID: "bench-split-amount-tests-p3-0123456789ab", Case: "split-amount-tests", Pass: 3, Writes: 1,
		FirstFailure: "AssertionError: Lists differ: [Decimal('33.33'), Decimal('33.33'), Decimal('33.33')] != [Decimal('33.34'), Decimal('33.33'), Decimal('33.33')] First differing element 0: Decimal('33.33') Decimal('33.34')"})
	if px := overflowPx(t, bin, dir, "fit.html", string(render(t, &long))); px != 0 {
		t.Errorf("at 1400 px the report scrolls sideways by %d px", px)
	}
	wide := strings.Replace(string(render(t, s)), "</main>", `<div style="width:2000px">wide</div></main>`, 1)
	if px := overflowPx(t, bin, dir, "wide.html", wide); px <= 0 {
		t.Errorf("a page with a 2000 px element measured %d px of sideways scroll", px)
	}

	checkRunPages(t, bin)

	control := filepath.Join(dir, "control.html")
	bad := strings.Replace(string(render(t, s)), "</main>", `<img src="http://192.0.2.1/x.png"></main>`, 1)
	if err := os.WriteFile(control, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, console := chromium(t, bin, dir, control, filepath.Join(dir, "control.png")); len(console) == 0 {
		t.Error("a page that tries to load an image logged nothing: console errors would go unseen")
	}
}

// checkRunPages renders the report with its links and a run's page in
// the browser: the run page shows every step, the draft beside the
// feedback, and the patch as a diff, and logs nothing.
func checkRunPages(t *testing.T, bin string) {
	dir := t.TempDir()
	report, pages, _ := site(t, dir)
	// The run with the most steps that wrote a patch.
	var pick transcript.Entry
	for _, e := range pages.Runs {
		if e.Verdict == "failed" && e.Steps > pick.Steps {
			pick = e
		}
	}
	run, err := transcript.Load(trace.File{RunID: pick.RunID, Attempt: pick.Attempt, Path: pick.Path}, 0)
	if err != nil {
		t.Fatal(err)
	}
	page := RunPagePath(filepath.Join(dir, "report-runs"), pick.RunID)
	dom, console := chromium(t, bin, dir, page, filepath.Join(dir, "run.png"))
	if len(console) > 0 {
		t.Errorf("the run page logged console messages:\n%s", strings.Join(console, "\n"))
	}
	if got := strings.Count(dom, `<section class="step"`); got != len(run.Turns) || got == 0 {
		t.Errorf("the browser built %d steps of %s, want %d", got, pick.RunID, len(run.Turns))
	}
	if got := strings.Count(dom, `<div class="pair">`); got != len(run.Turns) {
		t.Errorf("%d steps show the draft beside the feedback, want %d", got, len(run.Turns))
	}
	if run.End.Patch != "" && !strings.Contains(dom, `<span class="add">+`) {
		t.Error("the patch is not shown as a diff")
	}
	if _, console := chromium(t, bin, dir, report, filepath.Join(dir, "linked.png")); len(console) > 0 {
		t.Errorf("the linked report logged console messages:\n%s", strings.Join(console, "\n"))
	}
	if keep := os.Getenv("PYHARNESS_SCREENSHOT_DIR"); keep != "" {
		for _, name := range []string{"run.png", "linked.png"} {
			b, _ := os.ReadFile(filepath.Join(dir, name))
			if err := os.WriteFile(filepath.Join(keep, name), b, 0o644); err != nil {
				t.Error(err)
			}
		}
	}
}

// chromium renders a page headless, and returns the DOM it built and the
// console messages it logged.
func chromium(t *testing.T, bin, dir, page, shot string) (dom string, console []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dom, console, err := browser.Render(ctx, bin, dir, page, shot)
	if err != nil {
		t.Fatal(err)
	}
	return dom, console
}

// The fixtures hold runs of two models and scripted runs: the page gives
// each model its own figures, puts the scripted runs in their own labelled
// section, and has the table of how each model wrote its actions.
func TestModelsAndScriptedRunsApart(t *testing.T) {
	page := string(render(t, summary(t, "")))
	_, rest, ok := strings.Cut(page, `<h2 id="models">`)
	if !ok {
		t.Fatal("the page has no section for the runs of each model")
	}
	models, rest, ok := strings.Cut(rest, `<h2 id="scripted">`)
	if !ok {
		t.Fatal("the page has no section for the scripted runs")
	}
	scripted, _, _ := strings.Cut(rest, "<h2>")
	for _, want := range []string{
		`<code>ollama:llama3.1:8b</code></td><td class="n">3</td><td class="n">2</td><td class="n">0 of 2 (0%)</td>`,
		`<code>openai:Qwen/Qwen2.5-Coder-32B</code></td><td class="n">1</td><td class="n">0</td><td class="n">1 of 1 (100%)</td>`,
	} {
		if !strings.Contains(models, want) {
			t.Errorf("the models' section has no row %s:\n%s", want, models)
		}
	}
	if strings.Contains(models, "<code>scripted</code>") {
		t.Errorf("the models' section holds the scripted runs:\n%s", models)
	}
	if want := `<code>scripted</code></td><td class="n">30</td><td class="n">13</td><td class="n">17 of 30 (57%)</td>`; !strings.Contains(scripted, want) {
		t.Errorf("the scripted section has no row %s:\n%s", want, scripted)
	}
	_, forms, ok := strings.Cut(page, `<h2 id="action-forms">`)
	if !ok {
		t.Fatal("the page has no table of how the model wrote its actions")
	}
	for _, want := range []string{
		`<code>ollama:llama3.1:8b</code>, 6 turns</td><td><code>canonical</code></td><td class="n">5</td><td class="n">83%</td>`,
		`<td><code>unparsed</code></td><td class="n">1</td><td class="n">17%</td>`,
		`<code>scripted</code> (not a model), 150 turns</td><td><code>canonical</code></td><td class="n">89</td>`,
		`<td><code>bold-label&#43;reason-after-verb</code></td><td class="n">15</td>`, // html/template writes + as &#43;
	} {
		if !strings.Contains(forms, want) {
			t.Errorf("the action forms table has no %s", want)
		}
	}
}

// site writes the report of the fixtures with a page per run, as the
// report command does, and returns the report's path.
func site(t *testing.T, dir string) (string, *RunPages, *stats.Summary) {
	t.Helper()
	s := summary(t, "model")
	pages, err := WriteRunPages(context.Background(), fixtures, filepath.Join(dir, "report-runs"), PagesOptions{Title: "fixtures", Report: "report.html", Rel: "report-runs"})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Write(context.Background(), &b, s, Options{Title: "pyharness report: fixtures", Runs: pages}); err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(dir, "report.html")
	if err := os.WriteFile(report, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return report, pages, s
}

var (
	hrefRE = regexp.MustCompile(`href="([^"]*)"`)
	idRE   = regexp.MustCompile(`id="([^"]*)"`)
)

// TestEveryLinkFindsItsTarget follows every link from the report, page
// after page, and finds each target file (and the element a fragment
// names); every run is reached, and every count of the tables that counts
// runs leads to a list of exactly that many.
func TestEveryLinkFindsItsTarget(t *testing.T) {
	dir := t.TempDir()
	report, pages, s := site(t, dir)
	if len(pages.Problems) > 0 {
		t.Errorf("fixtures with no page: %v", pages.Problems)
	}
	seen := map[string]bool{report: true}
	queue := []string{report}
	links := 0
	for len(queue) > 0 {
		page := queue[0]
		queue = queue[1:]
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, bad := range []string{"<script", "src=", "@import", "url("} {
			if strings.Contains(string(b), bad) {
				t.Errorf("%s holds %q: it must load nothing", rel(dir, page), bad)
			}
		}
		for _, m := range hrefRE.FindAllStringSubmatch(string(b), -1) {
			links++
			href := html.UnescapeString(m[1])
			if strings.Contains(href, ":") || strings.HasPrefix(href, "/") {
				t.Errorf("%s links to %q: every link must be relative, to a file of the report", rel(dir, page), href)
				continue
			}
			file, frag, _ := strings.Cut(href, "#")
			unescaped, err := url.PathUnescape(file)
			if err != nil {
				t.Errorf("%s: link %q: %v", rel(dir, page), href, err)
				continue
			}
			target := page
			if file != "" {
				target = filepath.Join(filepath.Dir(page), filepath.FromSlash(unescaped))
			}
			tb, err := os.ReadFile(target)
			if err != nil {
				t.Errorf("%s links to %q: %v", rel(dir, page), href, err)
				continue
			}
			if frag != "" && !slices.ContainsFunc(idRE.FindAllStringSubmatch(string(tb), -1), func(m []string) bool { return m[1] == frag }) {
				t.Errorf("%s links to %q: no element has id %q", rel(dir, page), href, frag)
			}
			if !seen[target] {
				seen[target] = true
				queue = append(queue, target)
			}
		}
	}
	for _, e := range pages.Runs {
		if !seen[RunPagePath(filepath.Join(dir, "report-runs"), e.RunID)] {
			t.Errorf("no link leads to the page of %s", e.RunID)
		}
	}
	if len(pages.Runs) != s.Runs.Read {
		t.Errorf("%d run pages, the report counts %d runs", len(pages.Runs), s.Runs.Read)
	}
	t.Logf("followed %d links over %d pages", links, len(seen))

	// Each linked count is the length of the list it leads to.
	b, _ := os.ReadFile(report)
	countRE := regexp.MustCompile(`<a href="report-runs/([a-z0-9-]+)\.html">([0-9]+)</a>`)
	counted := countRE.FindAllStringSubmatch(string(b), -1)
	nonzero := 0
	for _, m := range s.Models {
		for _, n := range []int{m.Runs, m.Worked, m.Failed, m.NotJudged} {
			if n > 0 {
				nonzero++
			}
		}
	}
	for _, c := range s.FailureClasses {
		nonzero += min(c.Count, 1)
	}
	for _, tf := range s.Tiers {
		nonzero += min(tf.Failed, 1)
	}
	if len(counted) != nonzero || nonzero == 0 {
		t.Errorf("%d counts are links, want %d: every count above zero in the tables of runs of each model, of classes and of tiers", len(counted), nonzero)
	}
	for _, m := range counted {
		lb, err := os.ReadFile(filepath.Join(dir, "report-runs", m[1]+".html"))
		if err != nil {
			t.Error(err)
			continue
		}
		if got := strings.Count(string(lb), "<tr><td><a href="); strconv.Itoa(got) != m[2] {
			t.Errorf("the report counts %s runs in %s, its list holds %d", m[2], m[1], got)
		}
	}
	claimed := regexp.MustCompile(`(?s)<h2>Failures that ended claiming DONE[^<]*</h2>.*?</table>`).FindString(string(b))
	if got, want := strings.Count(claimed, `<a href="report-runs/`), len(s.ClaimedDone.Examples); got != want || want == 0 {
		t.Errorf("%d of %d claimed-DONE rows link to their run", got, want)
	}
}

func rel(dir, path string) string {
	r, err := filepath.Rel(dir, path)
	if err != nil {
		return path
	}
	return r
}

// overflowPx is how far a page scrolls sideways in Chromium at 1400 px.
func overflowPx(t *testing.T, bin, dir, name, page string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	px, err := browser.Overflow(ctx, bin, dir, name, page)
	if err != nil {
		t.Fatal(err)
	}
	return px
}

// Every table stats prints has its counterpart in the report, under the
// same heading: the README says the report has the same tables. The
// summary is given tags and a problem so that the tables printed only
// when there are some are printed.
func TestEveryStatsTableIsInTheReport(t *testing.T) {
	s := summary(t, "model")
	if len(s.Tags) == 0 {
		s.Tags = []stats.TagFailures{{Tag: "platform", Judged: 2, Worked: 1, Failed: 1}}
	}
	if len(s.Reasons) == 0 {
		s.Reasons = []stats.Count{{Name: "wrote nothing, and claimed DONE", Count: 1, Share: 1}}
	}
	s.Problems = append(s.Problems, "x.jsonl:1: a problem")
	var text bytes.Buffer
	if err := s.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	page := html.UnescapeString(string(render(t, s)))
	lines := strings.Split(text.String(), "\n")
	var headings []string
	for i := 1; i < len(lines); i++ {
		if lines[i-1] != "" || lines[i] == "" {
			continue
		}
		// A heading is the line after a blank one, up to its counts.
		h := lines[i]
		if j := strings.IndexAny(h, "(:"); j > 0 {
			h = h[:j]
		}
		headings = append(headings, strings.TrimSpace(h))
	}
	for _, want := range []string{"Why runs failed", "Why runs failed, in one line", "Failures by tier", "Failures by tag", "Turns per run", "By model", "Problems"} {
		if !slices.Contains(headings, want) {
			t.Errorf("the stats text has no table %q (its headings: %q): the test reads it wrong", want, headings)
		}
	}
	for _, h := range headings {
		if !strings.Contains(page, ">"+h) {
			t.Errorf("stats prints %q; the report has no counterpart", h)
		}
	}
}
