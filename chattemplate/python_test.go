package chattemplate

import (
	"bytes"
	"cmp"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/internal/needs"
)

// python is Debian's interpreter, which has python3-jinja2 (the one on
// PATH may be a pyenv build without it).
const python = "/usr/bin/python3"

func needJinja2(t *testing.T) {
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

func renderPython(t *testing.T, jobs []pyJob) []pyResult {
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
	type render struct {
		where string
		tp    *Template
		conv  Conversation
	}
	var renders []render
	var jobs []pyJob
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".jinja")
		tp := loadTemplateFile(t, f)
		c := NewChecker(tp)
		for _, r := range rows {
			lines := [][]byte{r.line}
			if ch, err := c.Check(r.line); err == nil && len(ch.Adaptations) > 0 {
				lines = append(lines, ch.Row)
			}
			for i, line := range lines {
				v, err := DecodeJSON(line)
				if err != nil {
					t.Fatal(err)
				}
				row := v.(*Object)
				convs, err := conversations(row)
				if err != nil {
					t.Fatal(err)
				}
				tools, _ := row.vals["tools"].([]any)
				for _, cv := range convs {
					for _, agp := range []bool{false, true} {
						msgs := append([]any{}, cv.context...)
						if !agp {
							msgs = append(msgs, cv.trained...)
						}
						conv := Conversation{Messages: msgs, Tools: tools, AddGenerationPrompt: agp}
						where := name + " " + r.where + " " + cv.part
						if i == 1 {
							where += " (adapted)"
						}
						if agp {
							where += " +generation prompt"
						}
						renders = append(renders, render{where, tp, conv})
						ctx := map[string]any{"messages": jsonable(msgs), "add_generation_prompt": agp}
						if tools != nil {
							ctx["tools"] = jsonable(tools)
						}
						for k, v := range testTokens {
							ctx[k] = v
						}
						jobs = append(jobs, pyJob{Template: tp.Source, Context: ctx})
					}
				}
			}
		}
	}
	py := renderPython(t, jobs)
	same := 0
	for i, r := range renders {
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
	t.Logf("%d renders of %d templates: %d the same in Go and Python", len(renders), len(files), same)
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
