package report

import (
	"bufio"
	"context"
	"crypto/sha256"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/pyharness/pyharness/report/transcript"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

// RunPages are the pages a report links its rows to: one per run, with
// the run's transcript (in the folder runDir, apart from the lists, so
// that no run id can take a list's name), and lists of runs: every run,
// each model's runs (all, worked, failed, not judged), and the failed runs
// of each class and of each tier.
type RunPages struct {
	// Dir is the folder of the pages, as the report links to it: relative
	// to the report, with forward slashes.
	Dir string
	// Runs is one entry per run with a page, in the order of the trace
	// directory.
	Runs []transcript.Entry
	// Problems are the trace files with no page: no run could be read
	// from them.
	Problems []string
	lists    map[string]bool
	pages    map[string]bool
}

// runDir is the folder of the pages folder that holds one page per run.
const runDir = "run"

// RunPagePath is the file of a run's page in a pages folder.
func RunPagePath(dir, runID string) string {
	return filepath.Join(dir, runDir, runID+".html")
}

// listAll names the list of every run, as listHref takes it.
const listAll = "index"

// Parts of a model's runs, as listModel takes them: the columns of the
// report's table of runs of each model.
const (
	partRuns      = "runs"
	partWorked    = "worked"
	partFailed    = "failed"
	partNotJudged = "not-judged"
)

// listModel names the list of one part of one model's runs. The label
// (stats' model label, with colons and slashes) is made a file name, with
// a short hash of it so that two labels that read alike stay apart.
func listModel(model, part string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(model) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	sum := sha256.Sum256([]byte(model))
	return fmt.Sprintf("model-%s-%x-%s", b.String(), sum[:4], part)
}

// listClass names the list of the failed runs of a failure class, among
// the runs the score tables count.
func listClass(class string) string {
	if class == "" {
		class = "none"
	}
	return "class-" + class
}

// listTier names the list of the failed runs of a tier, among the runs
// the score tables count.
func listTier(tier int) string { return "tier-" + strconv.Itoa(tier) + "-failed" }

// runHref is the address of a run's page, relative to the report; "" when
// the run has no page.
func (p *RunPages) runHref(runID string) string {
	if p == nil || !p.pages[runID] {
		return ""
	}
	return path.Join(p.Dir, runDir, url.PathEscape(runID)+".html")
}

// listHref is the address of a list of runs, relative to the report; ""
// when there is no such list.
func (p *RunPages) listHref(name string) string {
	if p == nil || !p.lists[name] {
		return ""
	}
	return path.Join(p.Dir, name+".html")
}

//go:embed runs.html.tmpl
var listTemplate string

var listPage = template.Must(template.New("runs").Funcs(template.FuncMap{
	"href": func(id string) string { return runDir + "/" + url.PathEscape(id) + ".html" },
}).Parse(listTemplate))

// PagesOptions say where run pages go and what they link back to.
type PagesOptions struct {
	// Title names the collection, as the report does.
	Title string
	// Report is the report's file name, for the pages' link back to it.
	Report string
	// Rel is the pages folder as the report links to it.
	Rel string
}

// WriteRunPages writes a page per run of a trace directory (the last
// attempt of each, as stats reads them) into dir, and the lists of runs,
// and returns what the report links to. A run is read, written and let go
// before the next, so a large directory is not held in memory.
func WriteRunPages(ctx context.Context, traces, dir string, o PagesOptions) (*RunPages, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("write run pages: %w", err)
	}
	p := &RunPages{Dir: filepath.ToSlash(o.Rel), lists: map[string]bool{}, pages: map[string]bool{}}
	back := path.Join(upPath(o.Rel), o.Report)
	runBack := path.Join("..", back)
	if err := os.MkdirAll(filepath.Join(dir, runDir), 0o755); err != nil {
		return nil, fmt.Errorf("write run pages: %w", err)
	}
	for la, err := range trace.LastAttempts(ctx, traces) {
		if err != nil {
			return nil, fmt.Errorf("write run pages: %w", err)
		}
		r, err := transcript.Load(la.File, la.SetAside)
		if err != nil {
			p.Problems = append(p.Problems, err.Error())
			continue
		}
		err = writeFile(RunPagePath(dir, r.File.RunID), func(w io.Writer) error {
			return transcript.WriteHTML(ctx, w, r, transcript.HTMLOptions{Title: o.Title, Up: runBack, UpTitle: "the report"})
		})
		if err != nil {
			return nil, err
		}
		p.Runs = append(p.Runs, r.Entry())
		p.pages[r.File.RunID] = true
	}
	return p, p.writeLists(ctx, dir, o, back)
}

// upPath is the relative path from the folder rel back to where it is
// relative to.
func upPath(rel string) string {
	up := ""
	for d := path.Clean(filepath.ToSlash(rel)); d != "." && d != "/"; d = path.Dir(d) {
		up = path.Join(up, "..")
	}
	return up
}

// list is one page of runs.
type list struct {
	Name, Title string
	Runs        []transcript.Entry
}

func (p *RunPages) writeLists(ctx context.Context, dir string, o PagesOptions, back string) error {
	lists := []*list{{Name: listAll, Title: "Every run"}}
	byName := map[string]*list{listAll: lists[0]}
	add := func(name, title string, e transcript.Entry) {
		l := byName[name]
		if l == nil {
			l = &list{Name: name, Title: title}
			byName[name] = l
			lists = append(lists, l)
		}
		l.Runs = append(l.Runs, e)
	}
	// The score tables count the runs of models, or the scripted and
	// replayed runs when there are no others, as stats does.
	models := slices.ContainsFunc(p.Runs, func(e transcript.Entry) bool { return !schemas.LabelHandWritten(e.Model) })
	for _, e := range p.Runs {
		add(listAll, "", e)
		add(listModel(e.Model, partRuns), "Runs of "+orNone(e.Model), e)
		switch {
		case e.Verdict == schemas.VerdictWorked:
			add(listModel(e.Model, partWorked), "Runs of "+orNone(e.Model)+" that worked", e)
		case e.Verdict == schemas.VerdictFailed:
			add(listModel(e.Model, partFailed), "Runs of "+orNone(e.Model)+" that failed", e)
		case !e.Verdict.Judged():
			add(listModel(e.Model, partNotJudged), "Runs of "+orNone(e.Model)+" not judged (error, cancelled, unjudged, incomplete)", e)
		}
		if e.Verdict == schemas.VerdictFailed && schemas.LabelHandWritten(e.Model) != models {
			add(listClass(string(e.FailureClass)), "Failed runs of class "+orNone(string(e.FailureClass)), e)
			add(listTier(e.Tier), fmt.Sprintf("Failed runs of tier %d", e.Tier), e)
		}
	}
	for _, l := range lists {
		data := struct {
			Title, Back string
			List        *list
			Lists       []*list
		}{o.Title, back, l, lists}
		err := writeFile(filepath.Join(dir, l.Name+".html"), func(w io.Writer) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			return listPage.Execute(w, data)
		})
		if err != nil {
			return err
		}
		p.lists[l.Name] = true
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "(none recorded)"
	}
	return s
}

// writeFile writes a file through a buffer and reports the first error,
// the close's included.
func writeFile(name string, write func(io.Writer) error) (err error) {
	f, err := os.Create(name)
	if err != nil {
		return fmt.Errorf("write run pages: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("write run pages: %w", cerr)
		}
	}()
	bw := bufio.NewWriter(f)
	if err := write(bw); err != nil {
		return fmt.Errorf("write run pages: %s: %w", name, err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write run pages: %w", err)
	}
	return nil
}
