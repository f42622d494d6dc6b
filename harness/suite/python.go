package suite

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// pythonCandidates are tried in order when no interpreter is given. The
// first python3 on PATH may be a pyenv or venv build without pytest, while
// Debian's python3-pytest serves /usr/bin/python3.
var pythonCandidates = []string{"python3", "/usr/bin/python3", "python"}

// probeScript prints the interpreter's real path (a pyenv shim resolves to
// a different Python depending on the directory it runs in), its version and
// whether it can import pytest.
const probeScript = `import sys
print(sys.executable)
print("%d.%d.%d" % tuple(sys.version_info[:3]))
try:
    import pytest
    print("pytest " + pytest.__version__)
except Exception:
    print("no pytest")
`

// pythonProbe is what one interpreter said about itself.
type pythonProbe struct {
	executable string
	version    string
	hasPytest  bool
	err        error // the interpreter did not run, or is not Python 3
}

// probeEntry lets concurrent callers share one probe of an interpreter.
type probeEntry struct {
	once sync.Once
	p    pythonProbe
}

var (
	probeMu    sync.Mutex
	probeCache = map[string]*probeEntry{}
)

// FindPython returns the path of a Python 3 interpreter to run suites with.
// A preferred interpreter (a path or a name on PATH) is used if it runs;
// otherwise python3 on PATH, /usr/bin/python3 and python are tried in order.
// With needPytest, the interpreter must also import pytest. What each
// interpreter can do is asked once per process and remembered.
func FindPython(ctx context.Context, preferred string, needPytest bool) (string, error) {
	if preferred != "" {
		path, err := exec.LookPath(preferred)
		if err != nil {
			return "", fmt.Errorf("find python %q: not found or not executable: %w", preferred, err)
		}
		p := probePython(ctx, path)
		switch {
		case p.err != nil:
			return "", fmt.Errorf("find python %q: %w", preferred, p.err)
		case needPytest && !p.hasPytest:
			return "", fmt.Errorf("find python %q: Python %s at %s cannot import pytest (install pytest for it, or give an interpreter that has it)", preferred, p.version, p.executable)
		}
		return p.executable, nil
	}
	var tried []string
	for _, name := range pythonCandidates {
		path, err := exec.LookPath(name)
		if err != nil {
			continue
		}
		p := probePython(ctx, path)
		switch {
		case p.err != nil:
			tried = append(tried, fmt.Sprintf("%s (%v)", path, p.err))
		case needPytest && !p.hasPytest:
			tried = append(tried, fmt.Sprintf("%s (Python %s, no pytest)", path, p.version))
		default:
			return p.executable, nil
		}
	}
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("find python: %w", err)
	}
	want := "Python 3 interpreter"
	if needPytest {
		want = "Python 3 interpreter that can import pytest"
	}
	if len(tried) == 0 {
		return "", fmt.Errorf("find python: none of %s is on this machine", strings.Join(pythonCandidates, ", "))
	}
	return "", fmt.Errorf("find python: no %s among %s", want, strings.Join(tried, ", "))
}

// probePython runs the interpreter once per process and remembers what it
// said; a probe cut short by the caller's context is forgotten, so the next
// caller asks again.
func probePython(ctx context.Context, path string) pythonProbe {
	probeMu.Lock()
	e, ok := probeCache[path]
	if !ok {
		e = &probeEntry{}
		probeCache[path] = e
	}
	probeMu.Unlock()
	e.once.Do(func() {
		pctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		out, err := exec.CommandContext(pctx, path, "-c", probeScript).Output()
		if ctx.Err() != nil {
			e.p = pythonProbe{err: fmt.Errorf("probe %s: %w", path, ctx.Err())}
			probeMu.Lock()
			delete(probeCache, path)
			probeMu.Unlock()
			return
		}
		e.p = parseProbe(path, string(out), err)
	})
	return e.p
}

func parseProbe(path, out string, runErr error) pythonProbe {
	if runErr != nil {
		msg := "it does not run"
		var ee *exec.ExitError
		if errors.As(runErr, &ee) && len(ee.Stderr) > 0 {
			msg += ": " + lastLine(string(ee.Stderr))
		} else {
			msg += ": " + runErr.Error()
		}
		return pythonProbe{err: errors.New(msg)}
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 3 {
		return pythonProbe{err: fmt.Errorf("it is not a Python interpreter (it printed %q)", strings.TrimSpace(out))}
	}
	p := pythonProbe{
		executable: strings.TrimSpace(lines[0]),
		version:    strings.TrimSpace(lines[1]),
		hasPytest:  strings.HasPrefix(lines[2], "pytest "),
	}
	if p.executable == "" {
		p.executable = path
	}
	if !strings.HasPrefix(p.version, "3.") {
		p.err = fmt.Errorf("it is Python %s, not Python 3", p.version)
	}
	return p
}
