package chattemplate

import (
	"bytes"
	"cmp"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/pyharness/pyharness/internal/testkit/needs"
)

// python is Debian's interpreter, which has python3-jinja2 (the one on
// PATH may be a pyenv build without it).
const python = "/usr/bin/python3"

func needJinja2(t testing.TB) {
	t.Helper()
	if err := exec.Command(python, "-c", "import jinja2").Run(); err != nil {
		needs.Missing(t, "%s with jinja2 is needed to compare with transformers' renderer (apt-get install python3-jinja2): %v", python, err)
	}
}

// pyJob is one render for testdata/render_transformers.py.
type pyJob struct {
	Template string         `json:"template"`
	Context  map[string]any `json:"context"`
}

type pyResult struct {
	Text  *string `json:"text"`
	Error *string `json:"error"`
}

func renderPython(t testing.TB, jobs []pyJob) []pyResult {
	t.Helper()
	in, err := json.Marshal(map[string]any{"now": testNow.Format("2006-01-02T15:04:05"), "jobs": jobs})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python, filepath.Join("testdata", "render_transformers.py"))
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("render_transformers.py: %v\n%s", err, stderr.Bytes())
	}
	var res []pyResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	if len(res) != len(jobs) {
		t.Fatalf("render_transformers.py gave %d results for %d jobs", len(res), len(jobs))
	}
	return res
}

// TestSameAsPythonJinja2 renders every test row, as written and as
// Check adapted it, with and without the generation prompt, through
// every test template in Go and in Python jinja2 set up as transformers
// sets it up: the texts must be equal byte for byte, and where Python
// raises, Go must too.
func TestSameAsPythonJinja2(t *testing.T) {
	needJinja2(t)
	// PYHARNESS_CHAT_TEMPLATES points the comparison at another folder of
	// templates (a collection of real ones), testdata/templates by default.
	dir := cmp.Or(os.Getenv("PYHARNESS_CHAT_TEMPLATES"), filepath.Join("testdata", "templates"))
	files, err := filepath.Glob(filepath.Join(dir, "*.jinja"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no templates in %s: %v", dir, err)
	}
	rows := readExportDir(t, filepath.Join("testdata", "rows"))
	var b pyBatch
	for _, f := range files {
		tp := loadTemplateFile(t, f)
		c := NewChecker(tp)
		for _, r := range rows {
			b.add(t, tp, tp.Name+" "+r.where, r.line)
			if ch, err := c.Check(r.line); err == nil && len(ch.Adaptations) > 0 {
				b.add(t, tp, tp.Name+" "+r.where+" (adapted)", ch.Row)
			}
		}
	}
	same := b.compare(t)
	t.Logf("%d renders of %d templates: %d the same in Go and Python", len(b.renders), len(files), same)
}

// pyBatch gathers renders of rows, each in Go and as a job for one Python
// process, to compare them in one go.
type pyBatch struct {
	renders []pyRender
	jobs    []pyJob
}

type pyRender struct {
	where string
	tp    *Template
	conv  Conversation
}

// add queues each conversation of an export row, whole and as the prompt
// with the generation prompt.
func (b *pyBatch) add(t testing.TB, tp *Template, where string, line []byte) {
	t.Helper()
	convs, tools := rowConversations(t, where, line)
	for _, cv := range convs {
		for _, agp := range []bool{false, true} {
			msgs := append([]any{}, cv.context...)
			if !agp {
				msgs = append(msgs, cv.trained...)
			}
			conv := Conversation{Messages: msgs, Tools: tools, AddGenerationPrompt: agp}
			w := where + " " + cv.part
			if agp {
				w += " +generation prompt"
			}
			b.renders = append(b.renders, pyRender{w, tp, conv})
			ctx := map[string]any{"messages": jsonable(msgs), "add_generation_prompt": agp}
			if tools != nil {
				ctx["tools"] = jsonable(tools)
			}
			for k, v := range tp.Tokens {
				ctx[k] = v
			}
			b.jobs = append(b.jobs, pyJob{Template: tp.Source, Context: ctx})
		}
	}
}

// compare renders the batch in Go and in one Python process: the texts
// must be equal byte for byte, and where Python raises, Go must too. It
// returns how many renders agree.
func (b *pyBatch) compare(t testing.TB) int {
	t.Helper()
	py := renderPython(t, b.jobs)
	same := 0
	for i, r := range b.renders {
		got, err := r.tp.Render(r.conv)
		switch p := py[i]; {
		case p.Error != nil && err == nil:
			t.Errorf("%s: Python raises %s, Go renders", r.where, *p.Error)
		case p.Error == nil && err != nil:
			t.Errorf("%s: Go raises %v, Python renders", r.where, err)
		case p.Error == nil && got != *p.Text:
			n := commonPrefix(got, *p.Text)
			from := max(n-40, 0)
			t.Errorf("%s: Go and Python differ at byte %d:\n go: %q\n py: %q", r.where, n, got[from:min(len(got), n+80)], (*p.Text)[from:min(len(*p.Text), n+80)])
		default:
			same++
		}
	}
	return same
}

// jsonable turns rows back into what encoding/json writes in key order
// (json.RawMessage of each *Object), for the Python side.
func jsonable(v any) any {
	switch v := v.(type) {
	case *Object:
		b, err := v.MarshalJSON()
		if err != nil {
			panic(err)
		}
		return json.RawMessage(b)
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = jsonable(x)
		}
		return out
	}
	return v
}
