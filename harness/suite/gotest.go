package suite

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

var (
	goRun = regexp.MustCompile(`^=== (?:RUN|CONT|NAME)\s+(\S+)`)
	// The test's own output may run into the result line when it did not
	// end with a newline ("xxxx--- PASS: TestBig (0.00s)").
	// The durations are optional: quietVolatile drops them from the
	// output a run keeps, which is read again.
	goResult     = regexp.MustCompile(`--- (PASS|FAIL|SKIP): (\S+)(?: \([\d.]+s\))?$`)
	goLog        = regexp.MustCompile(`^\s+([^\s:]+\.go):(\d+): (.*)$`)
	goPanic      = regexp.MustCompile(`^panic: (.*)$`)
	goStackFrame = regexp.MustCompile(`^\t(\S+\.go):(\d+)(?: \+0x[0-9a-f]+)?$`)
	goBuildHead  = regexp.MustCompile(`^# (\S+)`)
	goBuildError = regexp.MustCompile(`^([^\s:#][^:]*\.go):(\d+)(?::\d+)?: (.*)$`)
	goOK         = regexp.MustCompile(`^ok\s+(\S+)`)
	goNoFiles    = regexp.MustCompile(`^\?\s+(\S+)\s+\[no test files\]`)
	goBuildFail  = regexp.MustCompile(`^FAIL\s+(\S+)\s+\[(?:build|setup) failed\]`)
	goPkgFail    = regexp.MustCompile(`^FAIL\s+(\S+)(?:\s+(?:[\d.]+s|\(cached\)))?$`)
)

// goFailure is a failing test seen in one package's output, kept until the
// package's closing line says which package it was.
type goFailure struct {
	name     string
	topLevel bool
}

// goPackage is what has been seen of the package being run.
type goPackage struct {
	failures  []goFailure
	logs      map[string]Failure // first "file.go:12: message" of each test
	current   string
	panicMsg  string
	panicFile string
	panicLine int
	inPanic   bool
}

// readGoTest reads "go test -v" output: "--- PASS/FAIL/SKIP" lines (top
// level tests are counted, subtests give the failure detail), the
// package lines ("ok", "FAIL", "[no test files]", "[build failed]") and
// the compiler's errors before a build failure.
func readGoTest(text string, rp repoPaths, module string) reading {
	var rd reading
	pkg := &goPackage{logs: map[string]Failure{}}
	buildErrors := map[string]Failure{} // package → its first compile error
	buildPkg := ""
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimRight(l, " \t")
		if m := goBuildHead.FindStringSubmatch(l); m != nil {
			buildPkg = m[1]
			continue
		}
		if buildPkg != "" {
			if m := goBuildError.FindStringSubmatch(l); m != nil {
				if _, seen := buildErrors[buildPkg]; !seen {
					file, _ := rp.rel(m[1])
					buildErrors[buildPkg] = Failure{Test: buildPkg, File: file, Line: atoi(m[2]), Message: rp.clean(m[3])}
				}
				continue
			}
			if !startsIndented(l) {
				buildPkg = ""
			}
		}
		if m := goRun.FindStringSubmatch(l); m != nil {
			pkg.current, pkg.inPanic = m[1], false
			continue
		}
		if m := goResult.FindStringSubmatch(l); m != nil {
			result, name := m[1], m[2]
			top := !strings.Contains(name, "/") // subtests are "TestX/case"
			if top {
				rd.ran++
				switch result {
				case "PASS":
					rd.passed++
				case "FAIL":
					rd.failed++
				case "SKIP":
					rd.skipped++
				}
			}
			if result == "FAIL" {
				pkg.failures = append(pkg.failures, goFailure{name: name, topLevel: top})
			}
			// Without -v the log lines follow the result line.
			pkg.current = name
			continue
		}
		if m := goPanic.FindStringSubmatch(l); m != nil {
			if pkg.panicMsg == "" {
				pkg.panicMsg, pkg.inPanic = "panic: "+m[1], true
			}
			continue
		}
		if pkg.inPanic && pkg.panicFile == "" {
			if m := goStackFrame.FindStringSubmatch(l); m != nil {
				if rel, ok := goFrameFile(m[1], rp, module); ok {
					pkg.panicFile, pkg.panicLine = rel, atoi(m[2])
				}
				continue
			}
		}
		if m := goLog.FindStringSubmatch(l); m != nil && pkg.current != "" {
			if _, seen := pkg.logs[pkg.current]; !seen {
				pkg.logs[pkg.current] = Failure{File: m[1], Line: atoi(m[2]), Message: m[3]}
			}
			continue
		}
		switch {
		case goOK.MatchString(l):
			rd.summary = true
			pkg = &goPackage{logs: map[string]Failure{}}
		case goNoFiles.MatchString(l):
			rd.summary = true
		case goBuildFail.MatchString(l):
			rd.summary = true
			name := goBuildFail.FindStringSubmatch(l)[1]
			f, ok := buildErrors[name]
			if !ok {
				f = Failure{Test: name, Message: "build failed"}
			}
			rd.errors++
			rd.failures = append(rd.failures, f)
			rd.importErrors = append(rd.importErrors, importFailure("package "+name, "does not build", f.File, f.Line, f.Message))
			pkg = &goPackage{logs: map[string]Failure{}}
		case goPkgFail.MatchString(l):
			rd.summary = true
			name := goPkgFail.FindStringSubmatch(l)[1]
			rd.failures = append(rd.failures, pkg.report(name, module, rp, &rd)...)
			pkg = &goPackage{logs: map[string]Failure{}}
		}
	}
	return rd
}

// report turns a failed package's tests into failures: each failing test
// that logged something, and each failing top-level test with no failing
// subtest to explain it (a panic, usually). A package that failed with no
// failing test (TestMain, init) is one error.
func (p *goPackage) report(pkgPath, module string, rp repoPaths, rd *reading) []Failure {
	dir := ""
	if module != "" && pkgPath != module {
		if rel, ok := strings.CutPrefix(pkgPath, module+"/"); ok {
			dir = rel
		}
	}
	var out []Failure
	for _, f := range p.failures {
		if log, ok := p.logs[f.name]; ok {
			log.Test = f.name
			log.File = path.Join(dir, filepath.ToSlash(log.File))
			log.Message = rp.clean(log.Message)
			out = append(out, log)
			continue
		}
		if !f.topLevel || p.hasFailingSubtest(f.name) {
			continue
		}
		out = append(out, Failure{Test: f.name, File: p.panicFile, Line: p.panicLine, Message: p.panicMsg})
	}
	if len(p.failures) == 0 {
		rd.errors++
		msg := p.panicMsg
		if msg == "" {
			msg = "package failed without a failing test"
		}
		out = append(out, Failure{Test: pkgPath, File: p.panicFile, Line: p.panicLine, Message: msg})
	}
	return out
}

func (p *goPackage) hasFailingSubtest(name string) bool {
	for _, f := range p.failures {
		if strings.HasPrefix(f.name, name+"/") {
			return true
		}
	}
	return false
}

// goFrameFile is a stack frame's file as a path in the repository, or
// false when the frame is not the repository's. Frames name absolute
// paths, except in a build with -trimpath (GOFLAGS can carry it into the
// suite): there the module's files read as the module path and the file
// ("example.com/calc/store/store.go") and the standard library's as a
// package path ("testing/testing.go"), which is no file of the repository.
func goFrameFile(frame string, rp repoPaths, module string) (string, bool) {
	if filepath.IsAbs(frame) {
		return rp.rel(frame)
	}
	if module == "" {
		return "", false
	}
	rel, ok := strings.CutPrefix(frame, module+"/")
	if !ok {
		return "", false
	}
	return rp.rel(rel)
}

// modulePath is the module line of dir/go.mod, or "".
func modulePath(dir string) string {
	data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(l), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}
