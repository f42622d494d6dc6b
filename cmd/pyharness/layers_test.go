package main

import (
	"os"
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

// The root holds the design's top level and nothing else: the pipeline's
// stages in the order they run, the command, what the tree needs around
// them, and report/ for what analysts read (stats, the HTML report, a
// run's transcript), which reads every stage's output and belongs to none.
var (
	// stageOrder is the pipeline from the records up: a package imports
	// nothing of a stage after its own.
	stageOrder = []string{"schemas", "datasets", "harness", "collect", "classify", "dedupe", "export", "report"}
	// rootDirs is every directory the root may hold.
	rootDirs = append(slices.Clone(stageOrder), "cmd", "internal", "docs", "scripts", "deploy")
	// agentLoop is what runs a model: the pipeline's stages after collect
	// read its records and reach into none of it (the reply reader and the
	// chat templates, harness/draft and harness/chattemplate, they may use).
	agentLoop = []string{"harness", "harness/model", "harness/suite", "harness/preflight", "collect"}
	// orchestrators drive the whole pipeline as one job, as the command
	// does: the fine-tuning loop benches, collects, exports and trains.
	orchestrators = []string{"collect/loop"}
)

// stageOf is the top-level directory a module-relative package path is in.
func stageOf(rel string) string {
	top, _, _ := strings.Cut(rel, "/")
	return top
}

// The root lists the design's top level; a new top-level directory fails
// here until it is argued into rootDirs.
func TestRootLayout(t *testing.T) {
	entries, err := os.ReadDir(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			got = append(got, e.Name())
		}
	}
	for _, d := range got {
		if !slices.Contains(rootDirs, d) {
			t.Errorf("the root holds %s/: nest it under the stage it serves (%s)", d, strings.Join(rootDirs, ", "))
		}
	}
	for _, d := range rootDirs {
		if !slices.Contains(got, d) {
			t.Errorf("the root lacks %s/", d)
		}
	}
}

// The packages' imports (tests' imports aside) run from the layers above
// down: no stage imports a later one, the stages after collect never reach
// into the agent loop, internal/ holds leaves that import nothing of the
// module's but each other, and the test kit is linked into tests alone.
func TestPackageLayers(t *testing.T) {
	rel := func(p string) string { return strings.TrimPrefix(strings.TrimPrefix(p, modulePath), "/") }
	inModule := func(p string) bool { return p == modulePath || strings.HasPrefix(p, modulePath+"/") }
	under := func(r string, roots []string) bool {
		return slices.ContainsFunc(roots, func(l string) bool { return r == l || strings.HasPrefix(r, l+"/") })
	}
	isTestkit := func(p string) bool { return strings.HasPrefix(rel(p), "internal/testkit/") }
	isLeaf := func(p string) bool { return strings.HasPrefix(rel(p), "internal/") && !isTestkit(p) }

	t.Run("stages after collect below the loop", func(t *testing.T) {
		loopAt := slices.Index(stageOrder, "collect")
		for _, stage := range stageOrder[loopAt+1:] {
			for _, dep := range goList(t, "-deps", "./"+stage+"/...") {
				r := rel(dep)
				// collect's own reading of records (runcost, synthetic) is not the loop.
				if inModule(dep) && (slices.Contains(agentLoop, r) || under(r, []string{"harness/model", "collect/bench", "collect/loop"})) {
					t.Errorf("%s depends on %s: a stage of the pipeline reaches into the agent loop", stage, r)
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
			from, to := slices.Index(stageOrder, stageOf(rel(pkg))), slices.Index(stageOrder, stageOf(rel(imp)))
			switch {
			case isTestkit(imp) && !isTestkit(pkg):
				t.Errorf("%s imports the test kit %s outside its tests", rel(pkg), rel(imp))
			case isLeaf(pkg) && !isLeaf(imp):
				t.Errorf("%s, a leaf of internal/, imports %s", rel(pkg), rel(imp))
			case isTestkit(pkg) && !isLeaf(imp) && !isTestkit(imp) && rel(imp) != "schemas":
				t.Errorf("the test kit's %s imports %s (it may import schemas and internal/'s leaves)", rel(pkg), rel(imp))
			case from >= 0 && to > from && !under(rel(pkg), orchestrators):
				t.Errorf("%s imports %s, of a stage after its own (%s)", rel(pkg), rel(imp), strings.Join(stageOrder, " → "))
			}
		}
	}
	if pkgs < 20 {
		t.Fatalf("go list listed %d packages; the check proves nothing", pkgs)
	}
}
