package schemas

import (
	"fmt"
	"io/fs"
	"regexp"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// TaskSpec is what a run is asked to do, spelled the same in a benchmark
// case (case.yaml), a dogfood manifest entry and a run's configuration.
// Its scope globs have one syntax everywhere: doublestar's, where "**"
// crosses directories and "{a,b}" is either.
type TaskSpec struct {
	// Task is the request as a person would write it: what the model is sent.
	Task string `yaml:"task"`
	// Targets are the files the model may write, relative, with forward slashes.
	Targets []string `yaml:"targets,omitempty"`
	// Names are the top-level Python names that must be defined in the targets.
	Names []string `yaml:"names,omitempty"`
	// Subject is the function to fix, else empty.
	Subject string `yaml:"subject,omitempty"`
	// Scope are the globs the model may read and write ("**", "src/**").
	Scope []string `yaml:"scope,omitempty"`
	// Suite is the command that runs the visible tests from the repository
	// root; "{python}" stands for the interpreter. Empty detects the runner.
	Suite string `yaml:"suite,omitempty"`
}

// TaskSpecError is a field of a task spec that is wrong; Field is its YAML
// key, so that a reader can point at the line that holds it.
type TaskSpecError struct {
	Field string
	Msg   string
}

func (e *TaskSpecError) Error() string { return "field " + e.Field + ": " + e.Msg }

// pythonName matches a Python identifier (ASCII only, as the cases use).
var pythonName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Validate reports the first field of t that is given and malformed, as a
// *TaskSpecError: a target that is not a relative path with forward
// slashes inside the repository (the harness compares targets with such
// paths), a name that is not a Python name, a scope that is not a glob.
// Which fields must be given is the reader's rule: a case needs more than
// a manifest entry does.
func (t TaskSpec) Validate() error {
	for _, p := range t.Targets {
		if !fs.ValidPath(p) || p == "." || strings.Contains(p, `\`) {
			return &TaskSpecError{"targets", fmt.Sprintf("%q is not a relative path with forward slashes", p)}
		}
	}
	for _, n := range t.Names {
		if !pythonName.MatchString(n) {
			return &TaskSpecError{"names", fmt.Sprintf("%q is not a name", n)}
		}
	}
	for _, g := range t.Scope {
		if g == "" || !doublestar.ValidatePattern(g) {
			return &TaskSpecError{"scope", fmt.Sprintf("%q is not a glob", g)}
		}
	}
	return nil
}

// InScope reports whether scope covers rel, a clean repository-relative
// path with forward slashes: a glob matches it (doublestar), or a glob
// without wildcards names a directory above it ("src" or "src/"). No
// scope covers everything.
func InScope(scope []string, rel string) bool {
	if len(scope) == 0 {
		return true
	}
	for _, g := range scope {
		if ok, _ := doublestar.Match(g, rel); ok {
			return true
		}
		if d := strings.TrimSuffix(g, "/"); !strings.ContainsAny(d, "*?[{") && (rel == d || strings.HasPrefix(rel, d+"/")) {
			return true
		}
	}
	return false
}
