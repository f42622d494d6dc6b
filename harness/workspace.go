package harness

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pyharness/pyharness/harness/suite"
	"github.com/pyharness/pyharness/internal/gitrun"
	"github.com/pyharness/pyharness/schemas"
)

// noise is what a run leaves behind that is never a write; the sandbox's
// HOME is removed after every suite, but a process that escaped may leave
// it behind.
var noise = []string{"__pycache__/", "*.pyc", ".pytest_cache/", ".mypy_cache/", "*.egg-info/", suite.HomePrefix + "*/"}

// isNoise reports whether a workspace path is interpreter or tool litter.
func isNoise(rel string) bool {
	for _, part := range strings.Split(rel, "/") {
		switch {
		case part == "__pycache__", part == ".pytest_cache", part == ".mypy_cache", strings.HasSuffix(part, ".egg-info"),
			strings.HasPrefix(part, suite.HomePrefix):
			return true
		}
	}
	return strings.HasSuffix(rel, ".pyc")
}

// workspace is the isolated copy of a repository a run works in. It is a git
// repository of its own whose first commit is the baseline, so the patch of
// the run is `git diff` against it.
type workspace struct {
	dir     string
	source  string
	inPlace bool
	commit  string // the source repository's HEAD, when it is a git repository
	// gitDir is the baseline repository, outside the workspace: a suite
	// that cleans its working directory cannot take the run's patch with it,
	// and --in-place writes nothing of the harness's into the user's tree.
	gitDir string
	// outRel is the run's output directory inside the source, or "".
	outRel string
}

// newWorkspace copies src into a new temporary directory (never writing
// src), or, with inPlace, works in src itself.
//
// outDir is the run's output directory: inside src (run --repo . writes
// pyharness-out/ there), it is neither copied nor, in place, part of the
// patch; no output directory of pyharness is ever copied (see
// harnessOutput).
func newWorkspace(ctx context.Context, src string, inPlace bool, outDir string) (*workspace, error) {
	abs, err := filepath.Abs(src)
	if err != nil {
		return nil, fmt.Errorf("open repository: %w", err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("open repository: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("open repository: %s is not a directory", src)
	}
	ws := &workspace{source: abs, inPlace: inPlace, outRel: outsideRel(abs, outDir)}
	if out, err := gitOutput(ctx, abs, "rev-parse", "--verify", "-q", "HEAD"); err == nil {
		ws.commit = strings.TrimSpace(out)
	}
	if ws.gitDir, err = os.MkdirTemp("", "pyharness-git-"); err != nil {
		return nil, fmt.Errorf("create workspace: %w", err)
	}
	if inPlace {
		ws.dir = abs
		if err := ws.snapshot(ctx); err != nil {
			ws.close()
			return nil, err
		}
		return ws, nil
	}
	dir, err := os.MkdirTemp("", "pyharness-ws-")
	if err != nil {
		os.RemoveAll(ws.gitDir)
		return nil, fmt.Errorf("create workspace: %w", err)
	}
	ws.dir = dir
	if err := copyTree(abs, dir, ws.outRel); err != nil {
		ws.close()
		return nil, fmt.Errorf("copy repository into workspace: %w", err)
	}
	if err := ws.snapshot(ctx); err != nil {
		ws.close()
		return nil, err
	}
	return ws, nil
}

// gitArgs runs git on the workspace's own baseline repository, never on a
// .git of the user's.
func (w *workspace) gitArgs(args ...string) []string {
	return append([]string{"--git-dir", w.gitDir, "--work-tree", w.dir}, args...)
}

// snapshot records the baseline commit of the workspace.
func (w *workspace) snapshot(ctx context.Context) error {
	gitDir := w.gitDir
	if _, err := gitOutput(ctx, w.dir, "init", "-q", "--bare", gitDir); err != nil {
		return fmt.Errorf("snapshot workspace: %w", err)
	}
	exclude := ".pyharness-git/\n.git/\n" + strings.Join(noise, "\n") + "\n"
	if w.outRel != "" {
		exclude += "/" + w.outRel + "/\n"
	}
	if err := os.WriteFile(filepath.Join(gitDir, "info", "exclude"), []byte(exclude), 0o644); err != nil {
		return fmt.Errorf("snapshot workspace: %w", err)
	}
	for _, args := range [][]string{
		{"add", "-A"},
		{"-c", "user.name=pyharness", "-c", "user.email=pyharness@localhost", "-c", "commit.gpgsign=false",
			"commit", "-q", "--allow-empty", "--no-verify", "-m", "baseline"},
	} {
		if _, err := gitOutput(ctx, w.dir, w.gitArgs(args...)...); err != nil {
			return fmt.Errorf("snapshot workspace: %w", err)
		}
	}
	return nil
}

// changes returns the run's writes and its patch against the baseline.
func (w *workspace) changes(ctx context.Context) ([]schemas.Write, string, error) {
	if _, err := gitOutput(ctx, w.dir, w.gitArgs("add", "-A")...); err != nil {
		return nil, "", fmt.Errorf("diff workspace: %w", err)
	}
	numstat, err := gitOutput(ctx, w.dir, w.gitArgs("diff", "--cached", "--numstat", "--no-renames", "HEAD")...)
	if err != nil {
		return nil, "", fmt.Errorf("diff workspace: %w", err)
	}
	var writes []schemas.Write
	for _, line := range strings.Split(strings.TrimSpace(numstat), "\n") {
		f := strings.SplitN(line, "\t", 3)
		if len(f) != 3 || isNoise(f[2]) {
			continue
		}
		added, _ := strconv.Atoi(f[0])
		removed, _ := strconv.Atoi(f[1])
		writes = append(writes, schemas.Write{Path: f[2], Added: added, Removed: removed})
	}
	patch, err := gitOutput(ctx, w.dir, w.gitArgs("diff", "--cached", "--no-renames", "--no-color", "HEAD")...)
	if err != nil {
		return nil, "", fmt.Errorf("diff workspace: %w", err)
	}
	return writes, patch, nil
}

// close removes the baseline repository and the workspace copy (in place,
// the user's tree stays).
func (w *workspace) close() error {
	err := os.RemoveAll(w.gitDir)
	if !w.inPlace && w.dir != "" {
		if rerr := os.RemoveAll(w.dir); err == nil {
			err = rerr
		}
	}
	return err
}

// gitOutput runs git on the workspace's own repository, blind to the
// machine's system-wide configuration (hooks, signing, attributes).
func gitOutput(ctx context.Context, dir string, args ...string) (string, error) {
	return gitrun.Run(ctx, dir, []string{"GIT_CONFIG_NOSYSTEM=1"}, args...)
}

// copyTree copies a repository's files, keeping symlinks as links (so that a
// link pointing out of the tree stays one the scope guard refuses), and
// leaving out .git and interpreter litter.
func copyTree(src, dst, outRel string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil || rel == "." {
			return err
		}
		slashed := filepath.ToSlash(rel)
		if d.Name() == ".git" || d.Name() == ".pyharness-git" || isNoise(slashed) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		// The harness's own output is never the model's input. A
		// virtualenv and the tools' caches are copied: a suite may need
		// them, and the map and reads leave them out.
		if d.IsDir() && ((outRel != "" && slashed == outRel) || harnessOutput(path)) {
			return filepath.SkipDir
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type().IsRegular():
			return copyFile(path, target)
		}
		return nil // sockets, devices: not part of a repository
	})
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, st.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// CopyRepo copies a repository's working tree as a run's workspace would
// hold it (no .git, no interpreter litter, links kept as links).
func CopyRepo(src, dst string) error { return copyTree(src, dst, "") }
