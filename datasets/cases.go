package datasets

import (
	"bufio"
	"bytes"
	"cmp"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/pyharness/pyharness/schemas"
)

//go:embed all:cases
var embedded embed.FS

// casesRoot is the directory of embedded that holds one directory a case.
const casesRoot = "cases"

// scriptExt ends the name of every script file under a case's scripts/.
const scriptExt = ".jsonl"

// Case is one benchmark case, as read from its case.yaml.
type Case struct {
	ID    string `yaml:"id"`
	Tier  int    `yaml:"tier"`
	Title string `yaml:"title"`
	// TaskSpec is what the model is asked: a case must give the task,
	// targets, scope and suite; a subject (the function to fix) is given
	// at tier 5 only, and must be among the names.
	schemas.TaskSpec `yaml:",inline"`
	// Expect maps each script name to the outcome a run of it must get:
	// "worked" or a failure class.
	Expect map[string]string `yaml:"expect"`
	// Dir is the case's directory inside the embedded file system.
	Dir string `yaml:"-"`
}

// Tiers returns the title of each tier.
func Tiers() map[int]string {
	return map[int]string{
		1: "one small component",
		2: "a component and a test",
		3: "a new module with a test",
		4: "a test for existing code",
		5: "fix a bug already there",
		6: "platform and operations: flags, paths, environment files",
	}
}

// Cases returns every embedded case, sorted by tier and then id, after
// checking each one: ids unique (each is its directory's name), tiers 1-6,
// targets and scope given, and an expected outcome for exactly the scripts
// that are there.
func Cases() ([]Case, error) {
	return loadCases(embedded)
}

// loadCases reads and checks every case under cases/ in fsys.
func loadCases(fsys fs.FS) ([]Case, error) {
	entries, err := fs.ReadDir(fsys, casesRoot)
	if err != nil {
		return nil, fmt.Errorf("read cases: %w", err)
	}
	var cases []Case
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		// Each id must equal its directory's name, which makes ids unique.
		c, err := loadCase(fsys, path.Join(casesRoot, e.Name()))
		if err != nil {
			return nil, err
		}
		cases = append(cases, c)
	}
	if len(cases) == 0 {
		return nil, errors.New("read cases: no case directories")
	}
	slices.SortFunc(cases, func(a, b Case) int {
		return cmp.Or(cmp.Compare(a.Tier, b.Tier), strings.Compare(a.ID, b.ID))
	})
	return cases, nil
}

// loadCase reads dir/case.yaml and checks it against the files beside it.
func loadCase(fsys fs.FS, dir string) (Case, error) {
	file := path.Join(dir, "case.yaml")
	data, err := fs.ReadFile(fsys, file)
	if err != nil {
		return Case{}, fmt.Errorf("read case: %w", err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var c Case
	if err := dec.Decode(&c); err != nil {
		return Case{}, fmt.Errorf("decode %s: %w", file, err)
	}
	c.Dir = dir
	if err := c.check(fsys); err != nil {
		return Case{}, fmt.Errorf("%s: %w", file, err)
	}
	return c, nil
}

// outcomes are the values Expect may hold.
var outcomes = []string{
	string(schemas.VerdictWorked),
	string(schemas.FailWroteNothing),
	string(schemas.FailWrongThing),
	string(schemas.FailDidNotDoTheJob),
}

// check reports the first field of c that is missing or wrong.
func (c Case) check(fsys fs.FS) error {
	if c.ID == "" {
		return errors.New("field id: empty")
	}
	if c.ID != path.Base(c.Dir) {
		return fmt.Errorf("field id: %q is not the directory name %q", c.ID, path.Base(c.Dir))
	}
	if _, ok := Tiers()[c.Tier]; !ok {
		return fmt.Errorf("field tier: %d is not a tier (1-6)", c.Tier)
	}
	for _, f := range []struct{ name, value string }{{"title", c.Title}, {"task", c.Task}, {"suite", c.Suite}} {
		if strings.TrimSpace(f.value) == "" {
			return fmt.Errorf("field %s: empty", f.name)
		}
	}
	if len(c.Targets) == 0 {
		return errors.New("field targets: empty")
	}
	if len(c.Scope) == 0 {
		return errors.New("field scope: empty")
	}
	if err := c.TaskSpec.Validate(); err != nil {
		return err
	}
	switch {
	case c.Tier == 5 && c.Subject == "":
		return errors.New("field subject: a tier 5 case names the function to fix")
	case c.Tier != 5 && c.Subject != "":
		return fmt.Errorf("field subject: only tier 5 cases have one, got %q", c.Subject)
	case c.Subject != "" && !slices.Contains(c.Names, c.Subject):
		return fmt.Errorf("field subject: %q is not among names", c.Subject)
	}
	for _, sub := range []string{"repo", "check"} {
		entries, err := fs.ReadDir(fsys, path.Join(c.Dir, sub))
		if err != nil || len(entries) == 0 {
			return fmt.Errorf("%s/: missing or empty", sub)
		}
	}
	scripts := c.scriptNames(fsys)
	if len(scripts) == 0 {
		return errors.New("scripts/: no *.jsonl scripts")
	}
	for _, name := range scripts {
		if _, ok := c.Expect[name]; !ok {
			return fmt.Errorf("field expect: no outcome for script %q", name)
		}
		if _, err := readDrafts(fsys, c.scriptPath(name)); err != nil {
			return err
		}
	}
	for name, outcome := range c.Expect {
		if !slices.Contains(scripts, name) {
			return fmt.Errorf("field expect: script %q has no file scripts/%s%s", name, name, scriptExt)
		}
		if !slices.Contains(outcomes, outcome) {
			return fmt.Errorf("field expect: %s: %q is not one of %s", name, outcome, strings.Join(outcomes, ", "))
		}
	}
	return nil
}

// Repo returns the case's fixture repository.
func (c Case) Repo() fs.FS { return c.sub("repo") }

// HiddenChecks returns the directory of the case's hidden checks.
func (c Case) HiddenChecks() fs.FS { return c.sub("check") }

func (c Case) sub(dir string) fs.FS {
	sub, err := fs.Sub(embedded, path.Join(c.Dir, dir))
	if err != nil {
		// fs.Sub fails only on an invalid path, and Dir comes from Cases.
		panic(fmt.Sprintf("datasets: case %q: %v", c.ID, err))
	}
	return sub
}

// Scripts returns the names of the case's scripts (the file names under
// scripts/ without ".jsonl"), sorted.
func (c Case) Scripts() []string { return c.scriptNames(embedded) }

func (c Case) scriptNames(fsys fs.FS) []string {
	entries, err := fs.ReadDir(fsys, path.Join(c.Dir, "scripts"))
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), scriptExt); ok && !e.IsDir() {
			names = append(names, name)
		}
	}
	return names
}

func (c Case) scriptPath(name string) string {
	return path.Join(c.Dir, "scripts", strings.TrimSuffix(name, scriptExt)+scriptExt)
}

// Script returns the raw JSON Lines of the named script; the name may be
// given with or without ".jsonl".
func (c Case) Script(name string) ([]byte, error) {
	if err := checkScriptName(name); err != nil {
		return nil, err
	}
	return fs.ReadFile(embedded, c.scriptPath(name))
}

// Drafts returns the replies of the named script, one a model turn, in order.
func (c Case) Drafts(name string) ([]string, error) {
	if err := checkScriptName(name); err != nil {
		return nil, err
	}
	return readDrafts(embedded, c.scriptPath(name))
}

// checkScriptName refuses a name that would reach outside scripts/.
func checkScriptName(name string) error {
	if name == "" || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		return fmt.Errorf("script %q: not a script name", name)
	}
	return nil
}

// readDrafts decodes a script file: each line one {"content": reply} object.
func readDrafts(fsys fs.FS, file string) ([]string, error) {
	data, err := fs.ReadFile(fsys, file)
	if err != nil {
		return nil, fmt.Errorf("read script: %w", err)
	}
	var drafts []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1)
	for line := 1; sc.Scan(); line++ {
		var turn struct {
			Content *string `json:"content"`
		}
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&turn); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", file, line, err)
		}
		if turn.Content == nil {
			return nil, fmt.Errorf("%s:%d: no \"content\"", file, line)
		}
		drafts = append(drafts, *turn.Content)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	if len(drafts) == 0 {
		return nil, fmt.Errorf("%s: no turns", file)
	}
	return drafts, nil
}

// CopyFS writes every file of src under the directory dst, creating it if
// needed; it never overwrites a file that is already there.
func CopyFS(dst string, src fs.FS) error {
	if err := os.CopyFS(dst, src); err != nil {
		return fmt.Errorf("copy files to %s: %w", dst, err)
	}
	return nil
}
