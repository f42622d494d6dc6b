package report

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pyharness/pyharness/internal/needs"
	"github.com/pyharness/pyharness/stats"
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
	want := ExpectedBars(s)
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
	for _, by := range []string{"", stats.ByModel} {
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
	bin := ""
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			bin = p
			break
		}
	}
	if bin == "" {
		needs.Missing(t, "chromium is not installed (apt-get install -y chromium; .ci/run installs it): the report was not rendered in a browser")
	}
	dir := t.TempDir()
	s := summary(t, stats.ByModel)
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

	control := filepath.Join(dir, "control.html")
	bad := strings.Replace(string(render(t, s)), "</main>", `<img src="http://192.0.2.1/x.png"></main>`, 1)
	if err := os.WriteFile(control, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, console := chromium(t, bin, dir, control, filepath.Join(dir, "control.png")); len(console) == 0 {
		t.Error("a page that tries to load an image logged nothing: console errors would go unseen")
	}
}

// chromium renders a page headless, and returns the DOM it built and the
// console messages it logged.
func chromium(t *testing.T, bin, dir, page, shot string) (dom string, console []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
		"--user-data-dir="+filepath.Join(dir, "profile-"+filepath.Base(page)), "--enable-logging=stderr", "--v=0",
		"--hide-scrollbars", "--window-size=1400,1800", "--screenshot="+shot, "--dump-dom", "file://"+page)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(line, ":CONSOLE") {
			console = append(console, line)
		}
	}
	return stdout.String(), console
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
