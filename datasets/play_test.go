package datasets

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pyharness/pyharness/schemas"
)

// Playing a case's scripts without the harness (datasets does not import
// it): a player applies the drafts with the guards the scripts are written
// against, and judges the workspace as a benchmark run is judged.

// playScript plays one script and checks where it ends and how it is judged.
func playScript(t *testing.T, py string, c Case, name string) {
	drafts, err := c.Drafts(name)
	if err != nil {
		t.Fatal(err)
	}
	p := newPlayer(t, py, c)
	for i, d := range drafts {
		if p.end != "" {
			t.Fatalf("turn %d: the run already stopped (%s) at turn %d", i+1, p.end, p.endTurn)
		}
		p.step(i+1, d)
	}
	if p.end == "" {
		t.Fatalf("the script ran out of turns without an accepted DONE or a stop; refusals %v", p.refusals)
	}
	got := p.outcome()
	t.Logf("ended by %s at turn %d; refusals %v; outcome %s", p.end, p.endTurn, p.refusals, got.class)
	if want := c.Expect[name]; got.class != want {
		t.Errorf("outcome %s, want %s\n%s", got.class, want, got.why)
	}
	switch name {
	case "clean", "plausible-wrong":
		if len(p.refusals) > 0 || p.end != schemas.StopDone {
			t.Errorf("%s script: refusals %v, ended by %s; want none, ended by done", name, p.refusals, p.end)
		}
		if !got.suite {
			t.Errorf("%s script: the suite fails after it", name)
		}
		if wantHidden := name == "clean"; got.hidden != wantHidden {
			t.Errorf("%s script: hidden checks pass = %v, want %v", name, got.hidden, wantHidden)
		}
	case "chatty":
		if p.end != schemas.StopDone {
			t.Errorf("chatty script ended by %s, want done", p.end)
		}
		for _, code := range []string{"find-not-found", "run-tests-first"} {
			if !slices.Contains(p.refusals, code) {
				t.Errorf("chatty script: no %s refusal (refusals %v)", code, p.refusals)
			}
		}
		all := strings.Join(drafts, "\n")
		for _, mark := range []string{"**Action:**", "```python", "- RUN tests"} {
			if !strings.Contains(all, mark) {
				t.Errorf("chatty script never writes %q", mark)
			}
		}
	}
}

// workspace copies the case's repository into a fresh directory.
func workspace(t *testing.T, c Case) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "work")
	if err := CopyFS(dir, c.Repo()); err != nil {
		t.Fatal(err)
	}
	return dir
}

// pyRun is the result of one python3 process.
type pyRun struct {
	exit int
	ran  int // tests unittest says it ran
	out  string
}

// passed reports a run that exited 0 having run at least one test: a suite
// that ran nothing is not a suite that passed.
func (r pyRun) passed() bool { return r.exit == 0 && r.ran > 0 }

var ranRE = regexp.MustCompile(`(?m)^Ran (\d+) tests? in `)

// runPy runs argv in dir with PYTHONPATH set to pythonPath (none if empty).
func runPy(t *testing.T, dir, pythonPath string, argv ...string) pyRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "PYTHONPATH=") })
	cmd.Env = append(cmd.Env, "PYTHONDONTWRITEBYTECODE=1")
	if pythonPath != "" {
		cmd.Env = append(cmd.Env, "PYTHONPATH="+pythonPath)
	}
	out, err := cmd.CombinedOutput()
	r := pyRun{out: string(out)}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		r.exit = exit.ExitCode()
	case err != nil:
		t.Fatalf("run %v: %v", argv, err)
	}
	if m := ranRE.FindStringSubmatch(r.out); m != nil {
		r.ran, _ = strconv.Atoi(m[1])
	}
	return r
}

// work is a workspace holding a copy of a case's repository, whose targets
// may have been written since.
type work struct {
	t   *testing.T
	py  string
	c   Case
	dir string
}

func (w *work) file(rel string) string { return filepath.Join(w.dir, filepath.FromSlash(rel)) }

// evaluations remembers, for each state of a case's targets, what python said
// about it: scripts of a case that reach the same files share one run, and
// python3 starts slowly.
var evaluations sync.Map // state key -> *evaluation

type evaluation struct {
	suiteOnce, hiddenOnce, inspectOnce sync.Once
	suite, hidden                      pyRun
	inspect                            inspection
}

// eval returns the evaluation of the workspace's current state.
func (w *work) eval() *evaluation {
	h := sha256.New()
	io.WriteString(h, w.c.ID)
	for _, target := range w.c.Targets {
		data, err := os.ReadFile(w.file(target))
		fmt.Fprintf(h, "\x00%s\x00%t\x00%d\x00", target, err == nil, len(data))
		h.Write(data)
	}
	e, _ := evaluations.LoadOrStore(string(h.Sum(nil)), &evaluation{})
	return e.(*evaluation)
}

// suite runs the case's visible suite from the workspace root.
func (w *work) suite() pyRun {
	e := w.eval()
	e.suiteOnce.Do(func() {
		e.suite = runPy(w.t, w.dir, "", strings.Fields(strings.ReplaceAll(w.c.Suite, "{python}", w.py))...)
	})
	return e.suite
}

// hidden runs the hidden checks from a directory of their own, the way the
// harness does: cwd is the workspace, and the workspace is on PYTHONPATH.
func (w *work) hidden() pyRun {
	e := w.eval()
	e.hiddenOnce.Do(func() {
		checks := filepath.Join(w.t.TempDir(), "check")
		if err := CopyFS(checks, w.c.HiddenChecks()); err != nil {
			w.t.Fatal(err)
		}
		e.hidden = runPy(w.t, w.dir, w.dir, w.py, "-m", "unittest", "discover", "-s", checks, "-t", checks)
	})
	return e.hidden
}

// inspect reports the top-level names of the Python targets and which of
// them do not import.
func (w *work) inspect() inspection {
	e := w.eval()
	e.inspectOnce.Do(func() {
		args := []string{w.py, "-c", inspectPy}
		for _, target := range w.c.Targets {
			if strings.HasSuffix(target, ".py") {
				args = append(args, target)
			}
		}
		r := runPy(w.t, w.dir, w.dir, args...)
		if err := json.Unmarshal([]byte(r.out), &e.inspect); err != nil {
			w.t.Fatalf("inspect targets: %v\n%s", err, r.out)
		}
	})
	return e.inspect
}

// A draft parsed the tolerant way the harness reads chat models: list
// markers and bold labels before the verb, a reason after the path, code
// fences around the bodies.
type draft struct {
	verb   string // READ, WRITE, PATCH, RUN, DONE, ASK, SKILL
	path   string // first word after the verb, brackets taken off
	text   string // everything after the verb
	blocks []string
}

var (
	listMarkerRE = regexp.MustCompile(`^(?:[-*+]|\d+[.)])\s+`)
	boldLabelRE  = regexp.MustCompile(`^\*\*[^*]*\*\*:?\s*`)
	actionRE     = regexp.MustCompile(`^(READ|WRITE|PATCH|RUN|DONE|ASK|SKILL)\b[ \t]*(.*)$`)
	fenceRE      = regexp.MustCompile("^(`{3,})[A-Za-z0-9_+-]*$")
	quoteRE      = regexp.MustCompile("`([^`\n]+)`")
)

func parseDraft(reply string) (draft, bool) {
	lines := strings.Split(reply, "\n")
	for i, line := range lines {
		s := listMarkerRE.ReplaceAllString(strings.TrimSpace(line), "")
		s = boldLabelRE.ReplaceAllString(s, "")
		m := actionRE.FindStringSubmatch(s)
		if m == nil {
			continue
		}
		d := draft{verb: m[1], text: strings.Join(append([]string{m[2]}, lines[i+1:]...), "\n")}
		if f := strings.Fields(m[2]); len(f) > 0 {
			d.path = strings.Trim(f[0], "[]<>`")
		}
		rest := lines[i+1:]
		for j := 0; j < len(rest); j++ {
			open := fenceRE.FindStringSubmatch(strings.TrimSpace(rest[j]))
			if open == nil {
				continue
			}
			k := j + 1
			for k < len(rest) && strings.TrimSpace(rest[k]) != open[1] {
				k++
			}
			d.blocks = append(d.blocks, strings.Join(rest[j+1:k], "\n"))
			j = k
		}
		return d, true
	}
	return draft{}, false
}

// player applies drafts to a workspace the way the harness does, with the
// guards the scripts are written against: read-before-patch, find-not-found,
// wrong-file, outside-scope, repeat-read, repeat-patch (the second repeat
// stops the run), run-tests-first, name-missing, quote-required, no-answer,
// and suite-broken (a run that broke a passing suite stops when the next
// reply does not restore it).
type player struct {
	*work
	original map[string][]byte // targets at baseline; nil if absent
	read     map[string]string // content of each file when last read
	applied  map[string]bool   // path + NUL + content of every applied write
	written  map[string]bool   // files written in this run
	wrote    bool
	ranSince bool // RUN tests since the last applied write
	suiteOK  bool // the suite's result on the files as they are
	broken   bool // suite-broken was said at the previous turn
	repeats  int
	refusals []string
	end      schemas.StopReason // StopDone, StopBrokeSuite or StopRepeatPatch
	endTurn  int
}

func newPlayer(t *testing.T, py string, c Case) *player {
	p := &player{
		work:     &work{t: t, py: py, c: c, dir: workspace(t, c)},
		original: map[string][]byte{}, read: map[string]string{}, applied: map[string]bool{}, written: map[string]bool{},
	}
	for _, target := range c.Targets {
		p.original[target], _ = os.ReadFile(p.file(target))
	}
	p.suiteOK = p.suite().passed()
	return p
}

func (p *player) refuse(code string) { p.refusals = append(p.refusals, code) }

func (p *player) stop(turn int, reason schemas.StopReason) { p.end, p.endTurn = reason, turn }

// inScope reads the scope as the harness does.
func (p *player) inScope(rel string) bool { return schemas.InScope(p.c.Scope, rel) }

func (p *player) step(turn int, reply string) {
	wasBroken := p.broken
	p.broken = false
	d, ok := parseDraft(reply)
	if !ok {
		p.t.Errorf("turn %d does not parse:\n%s", turn, reply)
		p.refuse("parse-failed")
		return
	}
	switch d.verb {
	case "READ":
		p.readFile(turn, d.path)
	case "WRITE", "PATCH":
		if p.writeFile(turn, d) && !p.suiteOK && !wasBroken {
			p.broken = true // said once; the next reply must restore it
			return
		}
	case "RUN":
		p.ranSince = true
	case "DONE":
		p.done(turn, d.text)
	case "ASK":
		if p.wrote {
			p.refuse("too-late-to-ask")
		} else {
			p.refuse("no-answer")
		}
	case "SKILL":
	}
	if p.end == "" && wasBroken && !p.suiteOK {
		p.stop(turn, schemas.StopBrokeSuite)
	}
}

func (p *player) readFile(turn int, rel string) {
	if !p.inScope(rel) {
		p.refuse("outside-scope")
		return
	}
	data, err := os.ReadFile(p.file(rel))
	if err != nil {
		p.t.Errorf("turn %d: READ %s: %v", turn, rel, err)
		return
	}
	if last, ok := p.read[rel]; ok && last == string(data) {
		p.refuse("repeat-read")
		return
	}
	p.read[rel] = string(data)
}

// writeFile applies a WRITE or PATCH and reports whether it was applied.
func (p *player) writeFile(turn int, d draft) bool {
	if !slices.Contains(p.c.Targets, d.path) {
		p.refuse("wrong-file")
		return false
	}
	if !p.inScope(d.path) {
		p.refuse("outside-scope")
		return false
	}
	old, err := os.ReadFile(p.file(d.path))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		p.t.Fatal(err)
	}
	var content string
	switch {
	case d.verb == "WRITE" && len(d.blocks) == 1:
		content = d.blocks[0]
		if !strings.HasSuffix(content, "\n") {
			content += "\n"
		}
	case d.verb == "PATCH" && len(d.blocks) == 2:
		if _, ok := p.read[d.path]; !ok {
			if p.written[d.path] {
				// Whether a file the model wrote counts as read is the
				// harness's call; a script must not depend on it.
				p.t.Errorf("turn %d: PATCH of %s, written in this run but never read", turn, d.path)
			}
			p.refuse("read-before-patch")
			return false
		}
		for _, b := range d.blocks {
			if strings.TrimSpace(b) == "" || strings.HasPrefix(b, "\n") || strings.HasSuffix(b, "\n") {
				p.t.Errorf("turn %d: a FIND or REPLACE block that is blank or starts or ends with a blank line, which a harness may trim", turn)
			}
		}
		switch n := strings.Count(string(old), d.blocks[0]); {
		case n == 0:
			p.refuse("find-not-found")
			return false
		case n > 1:
			p.t.Errorf("turn %d: the FIND block occurs %d times in %s", turn, n, d.path)
		}
		content = strings.Replace(string(old), d.blocks[0], d.blocks[1], 1)
	default:
		p.t.Errorf("turn %d: %s with %d fenced blocks", turn, d.verb, len(d.blocks))
		return false
	}
	key := d.path + "\x00" + content
	if p.applied[key] || content == string(old) {
		p.repeats++
		if p.repeats >= 2 {
			p.stop(turn, schemas.StopRepeatPatch)
		} else {
			p.refuse("repeat-patch")
		}
		return false
	}
	if err := os.MkdirAll(filepath.Dir(p.file(d.path)), 0o755); err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(p.file(d.path), []byte(content), 0o644); err != nil {
		p.t.Fatal(err)
	}
	p.applied[key] = true
	p.written[d.path] = true
	p.wrote, p.ranSince = true, false
	p.suiteOK = p.suite().passed()
	return true
}

func (p *player) done(turn int, summary string) {
	if p.wrote && !p.ranSince {
		p.refuse("run-tests-first")
		return
	}
	missing := p.missingNames(p.inspect())
	if textual := p.namesNotInText(); !slices.Equal(missing, textual) {
		p.t.Errorf("turn %d: DONE with names missing when parsed %v but missing by text %v; a harness may read either way", turn, missing, textual)
	}
	if len(missing) > 0 {
		p.refuse("name-missing")
		return
	}
	if !p.wrote && !p.quotesTarget(summary) {
		p.refuse("quote-required")
		return
	}
	p.stop(turn, schemas.StopDone)
}

// quotesTarget reports whether summary quotes, in backticks, a whole line
// that is really in a target file.
func (p *player) quotesTarget(summary string) bool {
	for _, m := range quoteRE.FindAllStringSubmatch(summary, -1) {
		for _, target := range p.c.Targets {
			data, _ := os.ReadFile(p.file(target))
			for line := range strings.Lines(string(data)) {
				if strings.TrimSpace(line) == strings.TrimSpace(m[1]) {
					return true
				}
			}
		}
	}
	return false
}

// inspectPy prints, for each Python file named on the command line, its
// top-level names (def, class, assignment) and whether it imports.
const inspectPy = `
import ast, importlib, json, sys
out = {"names": {}, "import_errors": {}}
for rel in sys.argv[1:]:
    try:
        with open(rel, encoding="utf-8") as f:
            tree = ast.parse(f.read(), rel)
    except FileNotFoundError:
        continue
    except SyntaxError as e:
        out["import_errors"][rel] = "SyntaxError: %s" % e
        continue
    names = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            names += [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.append(node.target.id)
    out["names"][rel] = names
    module = rel[:-3].replace("/", ".").removesuffix(".__init__")
    try:
        importlib.import_module(module)
    except BaseException as e:
        out["import_errors"][rel] = "%s: %s" % (type(e).__name__, e)
print(json.dumps(out))
`

type inspection struct {
	Names        map[string][]string `json:"names"`
	ImportErrors map[string]string   `json:"import_errors"`
}

func (p *player) missingNames(in inspection) []string {
	var missing []string
	for _, name := range p.c.Names {
		found := false
		for _, names := range in.Names {
			found = found || slices.Contains(names, name)
		}
		if !found {
			missing = append(missing, name)
		}
	}
	return missing
}

// namesNotInText returns the required names no target defines at the top
// level by the look of its text (def, class or assignment at column 0).
func (p *player) namesNotInText() []string {
	var text strings.Builder
	for _, target := range p.c.Targets {
		data, _ := os.ReadFile(p.file(target))
		text.Write(data)
		text.WriteByte('\n')
	}
	var missing []string
	for _, name := range p.c.Names {
		re := regexp.MustCompile(`(?m)^(?:(?:async\s+)?def|class)\s+` + name + `\b|^` + name + `\s*(?::[^=\n]*)?=`)
		if !re.MatchString(text.String()) {
			missing = append(missing, name)
		}
	}
	return missing
}

// isTestFile reports whether a target is a test module rather than code.
func isTestFile(rel string) bool {
	base := path.Base(rel)
	return strings.HasPrefix(rel, "tests/") || strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py")
}

// judgement is how a finished run is judged.
type judgement struct {
	class  string // worked, or the failure class
	suite  bool   // the visible suite passes
	hidden bool   // the hidden checks pass
	why    string
}

// outcome judges the workspace as a benchmark run is judged: worked when the
// hidden checks and the suite pass; wrote-nothing when no target changed;
// wrong-thing when a required name is absent or a target does not import;
// did-not-do-the-job otherwise.
func (p *player) outcome() judgement {
	changed := false
	for _, target := range p.c.Targets {
		now, _ := os.ReadFile(p.file(target))
		changed = changed || string(now) != string(p.original[target])
	}
	if !changed {
		return judgement{class: string(schemas.FailWroteNothing), suite: p.suiteOK, why: "no target changed"}
	}
	in := p.inspect()
	if missing := p.missingNames(in); len(missing) > 0 || len(in.ImportErrors) > 0 {
		// A harness may find names by text rather than by parsing, and may
		// not count a test module that fails to import as "the module does
		// not import": the verdict must hold either way.
		moduleFails := slices.ContainsFunc(slices.Collect(maps.Keys(in.ImportErrors)), func(f string) bool { return !isTestFile(f) })
		if !moduleFails && len(p.namesNotInText()) == 0 {
			p.t.Errorf("wrong-thing only because a test module does not import or a file does not parse (%v); another reading says did-not-do-the-job", in.ImportErrors)
		}
		return judgement{class: string(schemas.FailWrongThing), suite: p.suiteOK, why: "missing names " + strings.Join(missing, ", ") + "; import errors " + strconv.Quote(strings.Join(slices.Sorted(maps.Values(in.ImportErrors)), "; "))}
	}
	suite, hidden := p.suite(), p.hidden()
	j := judgement{suite: suite.passed(), hidden: hidden.passed()}
	if j.suite && j.hidden {
		j.class = string(schemas.VerdictWorked)
	} else {
		j.class = string(schemas.FailDidNotDoTheJob)
		j.why = "suite:\n" + suite.out + "\nhidden checks:\n" + hidden.out
	}
	return j
}
