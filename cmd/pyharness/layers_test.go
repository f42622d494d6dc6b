package main

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const modulePath = "github.com/pyharness/pyharness"

// goList runs go list in the module's root and returns its lines.
func goList(t *testing.T, args ...string) []string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("go list %s: %v\n%s", strings.Join(args, " "), err, msg)
	}
	return strings.Fields(string(out))
}

// The packages' imports (tests' imports aside) run from the layers above
// down: the pipeline's stages never reach into the agent loop, internal/
// holds leaves that import nothing of the module's but each other, and
// the test kit is linked into tests alone.
func TestPackageLayers(t *testing.T) {
	rel := func(p string) string { return strings.TrimPrefix(strings.TrimPrefix(p, modulePath), "/") }
	inModule := func(p string) bool { return p == modulePath || strings.HasPrefix(p, modulePath+"/") }
	isTestkit := func(p string) bool { return strings.HasPrefix(rel(p), "internal/testkit/") }
	isLeaf := func(p string) bool { return strings.HasPrefix(rel(p), "internal/") && !isTestkit(p) }

	t.Run("stages below the loop", func(t *testing.T) {
		loop := []string{"harness", "suite", "model"}
		for _, stage := range []string{"classify", "stats", "dedupe", "export"} {
			for _, dep := range goList(t, "-deps", "./"+stage) {
				if r := rel(dep); inModule(dep) && slices.ContainsFunc(loop, func(l string) bool { return r == l || strings.HasPrefix(r, l+"/") }) {
					t.Errorf("%s depends on %s: a stage of the pipeline reaches into the agent loop", stage, r)
				}
			}
		}
	})

	// The stages in their order: a stage imports none after it. What a
	// later stage keeps of each run, classify fills through the derivers
	// the command hands it (package derived).
	t.Run("stages in their order", func(t *testing.T) {
		order := []string{"classify", "dedupe", "export"}
		for i, stage := range order {
			for _, dep := range goList(t, "-deps", "./"+stage) {
				if later := order[i+1:]; inModule(dep) && slices.Contains(later, rel(dep)) {
					t.Errorf("%s depends on %s, a stage after it", stage, rel(dep))
				}
			}
		}
	})

	lines := goList(t, "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}};`, "./...")
	pkgs := 0
	for _, line := range strings.Split(strings.Join(lines, " "), ";") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		pkgs++
		pkg, imports := f[0], f[1:]
		for _, imp := range imports {
			if !inModule(imp) {
				continue
			}
			switch {
			case isTestkit(imp) && !isTestkit(pkg):
				t.Errorf("%s imports the test kit %s outside its tests", rel(pkg), rel(imp))
			case isLeaf(pkg) && !isLeaf(imp):
				t.Errorf("%s, a leaf of internal/, imports %s", rel(pkg), rel(imp))
			case isTestkit(pkg) && !isLeaf(imp) && !isTestkit(imp) && rel(imp) != "schemas":
				t.Errorf("the test kit's %s imports %s (it may import schemas and internal/'s leaves)", rel(pkg), rel(imp))
			}
		}
	}
	if pkgs < 20 {
		t.Fatalf("go list listed %d packages; the check proves nothing", pkgs)
	}
}
