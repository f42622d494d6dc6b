package harness

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/pyharness/pyharness/schemas"
)

// errOutsideScope is a path the run may not touch.
var errOutsideScope = errors.New("outside scope")

// scope decides which workspace paths a run may read and write.
type scope struct {
	root  string // the workspace, symlinks resolved
	globs []string
	// outRel is the run's output directory relative to the workspace
	// when the repository holds it (run --repo . writes pyharness-out/
	// there): never read, listed or written.
	outRel string
}

// newScope takes globs checked by schemas.TaskSpec.Validate.
func newScope(root string, globs []string) (*scope, error) {
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, fmt.Errorf("resolve workspace: %w", err)
	}
	return &scope{root: real, globs: globs}, nil
}

// resolve turns a path the model named into a clean workspace-relative path
// with forward slashes, refusing anything that leaves the workspace — by
// "..", by an absolute path, or through a symlink — or that the scope globs
// do not cover.
func (s *scope) resolve(name string) (string, error) {
	if name == "" {
		return "", fmt.Errorf("no path given")
	}
	if strings.ContainsAny(name, "\x00\n") || !utf8.ValidString(name) {
		return "", fmt.Errorf("%w: %q is not a path", errOutsideScope, name)
	}
	slashed := strings.ReplaceAll(name, "\\", "/")
	if path.IsAbs(slashed) || filepath.IsAbs(name) || filepath.VolumeName(name) != "" {
		return "", fmt.Errorf("%w: %s is an absolute path; name files relative to the repository root", errOutsideScope, name)
	}
	rel := path.Clean(slashed)
	if rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", fmt.Errorf("%w: %s leaves the repository", errOutsideScope, name)
	}
	first := strings.SplitN(rel, "/", 2)[0]
	if first == ".git" || first == ".pyharness-git" {
		return "", fmt.Errorf("%w: %s is version-control data", errOutsideScope, name)
	}
	for _, part := range strings.Split(rel, "/") {
		if isDeviceName(part) {
			return "", fmt.Errorf("%w: %s is a device name on Windows, where no file can have it; choose another name", errOutsideScope, part)
		}
	}
	if err := s.checkLinks(rel); err != nil {
		return "", err
	}
	for dir := path.Dir(rel); dir != "."; dir = path.Dir(dir) {
		if hiddenDir(s.root, dir, s.outRel) {
			return "", fmt.Errorf("%w: %s is in %s, which is the harness's output or a tool's cache, not the repository's code", errOutsideScope, rel, dir)
		}
	}
	if !s.inGlobs(rel) {
		return "", fmt.Errorf("%w: %s is not within --scope %s", errOutsideScope, rel, strings.Join(s.globs, ", "))
	}
	// A pipe (which a suite can make) blocks whoever reads or writes it.
	if st, err := os.Stat(filepath.Join(s.root, filepath.FromSlash(rel))); err == nil && !st.Mode().IsRegular() && !st.IsDir() {
		return "", fmt.Errorf("%w: %s is not a regular file (a pipe, socket or device)", errOutsideScope, rel)
	}
	return rel, nil
}

// isDeviceName reports whether a path segment is one of the names Windows
// reserves for devices (CON, PRN, AUX, NUL, COM1-9, LPT1-9), with or
// without an extension: a patch that creates one cannot be applied there.
func isDeviceName(part string) bool {
	base, _, _ := strings.Cut(strings.ToUpper(part), ".")
	base = strings.TrimRight(base, " ")
	switch base {
	case "CON", "PRN", "AUX", "NUL":
		return true
	}
	return len(base) == 4 && (strings.HasPrefix(base, "COM") || strings.HasPrefix(base, "LPT")) && base[3] >= '1' && base[3] <= '9'
}

// readRegular reads a workspace file, refusing anything but a regular file
// (after links): reading a pipe a suite left behind would block the run, and
// a device would never end.
func readRegular(name string) ([]byte, error) {
	st, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("read %s: not a regular file", name)
	}
	return os.ReadFile(name)
}

// checkLinks resolves the longest existing prefix of rel and refuses it when
// a symlink takes it out of the workspace.
func (s *scope) checkLinks(rel string) error {
	full := filepath.Join(s.root, filepath.FromSlash(rel))
	probe := full
	for {
		if _, err := os.Lstat(probe); err == nil {
			break
		}
		parent := filepath.Dir(probe)
		if parent == probe || len(parent) < len(s.root) {
			return nil
		}
		probe = parent
	}
	real, err := filepath.EvalSymlinks(probe)
	if err != nil {
		// A dangling link: where it points is what matters.
		if target, lerr := os.Readlink(probe); lerr == nil {
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(probe), target)
			}
			real = filepath.Clean(target)
		} else {
			return fmt.Errorf("resolve %s: %w", rel, err)
		}
	}
	if real != s.root && !strings.HasPrefix(real, s.root+string(filepath.Separator)) {
		return fmt.Errorf("%w: %s is a link that leaves the repository", errOutsideScope, rel)
	}
	return nil
}

func (s *scope) inGlobs(rel string) bool { return schemas.InScope(s.globs, rel) }
