package mine

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/pyharness/pyharness/harness"
	"github.com/pyharness/pyharness/internal/gitrun"
)

// clone is the private clone under OUT that holds every task's commit.
type clone struct {
	dir string
	// date is HEAD's commit date, given to every task commit so that the
	// same tasks get the same hashes.
	date string
	mu   sync.Mutex // one writer of refs and temporary indexes at a time
}

// newClone clones src's HEAD into dir (objects copied, never linked: the
// source's files are only read). A src that is not the top of a git
// repository (a directory of files, or one inside another repository) is
// copied and committed once instead: its tasks have no history.
func newClone(ctx context.Context, src, dir string) (*clone, error) {
	top, err := gitrun.Run(ctx, src, nil, "rev-parse", "--show-toplevel")
	if err != nil || !samePath(strings.TrimSpace(top), src) {
		return newSnapshot(ctx, src, dir)
	}
	if _, err := gitrun.Run(ctx, "", nil, "clone", "--quiet", "--no-hardlinks", src, dir); err != nil {
		return nil, fmt.Errorf("clone %s: %w", src, err)
	}
	date, err := gitrun.Run(ctx, dir, nil, "log", "-1", "--format=%cI", "HEAD")
	if err != nil {
		return nil, fmt.Errorf("clone %s: %w", src, err)
	}
	return &clone{dir: dir, date: strings.TrimSpace(date)}, nil
}

// samePath reports whether two paths name the same directory, links
// followed.
func samePath(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}

// snapshotDate is the date of a snapshot's commit: fixed, so that the same
// files give the same hashes.
const snapshotDate = "2000-01-01T00:00:00Z"

// newSnapshot makes dir a new repository whose one commit holds src's
// files (as a run's workspace would copy them).
func newSnapshot(ctx context.Context, src, dir string) (*clone, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("copy %s: %w", src, err)
	}
	if err := harness.CopyRepo(src, dir); err != nil {
		return nil, fmt.Errorf("copy %s: %w", src, err)
	}
	env := []string{"GIT_AUTHOR_NAME=pyharness", "GIT_AUTHOR_EMAIL=pyharness@localhost", "GIT_AUTHOR_DATE=" + snapshotDate,
		"GIT_COMMITTER_NAME=pyharness", "GIT_COMMITTER_EMAIL=pyharness@localhost", "GIT_COMMITTER_DATE=" + snapshotDate}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "commit.gpgsign=false", "commit", "-q", "--no-verify", "-m", "snapshot of " + filepath.Base(src)}} {
		if _, err := gitrun.Run(ctx, dir, env, args...); err != nil {
			return nil, fmt.Errorf("snapshot %s: %w", src, err)
		}
	}
	return &clone{dir: dir, date: snapshotDate}, nil
}

// commit makes a commit on parent whose tree is parent's with files
// replaced by the given contents, and names it refs/heads/tasks/<name>.
func (c *clone) commit(ctx context.Context, parent, name, message string, files map[string][]byte) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	idx, err := os.CreateTemp("", "pyharness-mine-index-")
	if err != nil {
		return "", fmt.Errorf("commit task: %w", err)
	}
	idx.Close()
	os.Remove(idx.Name())
	defer os.Remove(idx.Name())
	env := []string{"GIT_INDEX_FILE=" + idx.Name(),
		"GIT_AUTHOR_NAME=pyharness", "GIT_AUTHOR_EMAIL=pyharness@localhost", "GIT_AUTHOR_DATE=" + c.date,
		"GIT_COMMITTER_NAME=pyharness", "GIT_COMMITTER_EMAIL=pyharness@localhost", "GIT_COMMITTER_DATE=" + c.date}
	if _, err := gitrun.Run(ctx, c.dir, env, "read-tree", parent); err != nil {
		return "", fmt.Errorf("commit task: %w", err)
	}
	for _, path := range sortedKeys(files) {
		blob, err := hashObject(ctx, c.dir, files[path])
		if err != nil {
			return "", fmt.Errorf("commit task: %w", err)
		}
		mode := "100644"
		if out, err := gitrun.Run(ctx, c.dir, env, "ls-files", "-s", "--", path); err == nil && strings.HasPrefix(out, "100755") {
			mode = "100755"
		}
		if _, err := gitrun.Run(ctx, c.dir, env, "update-index", "--add", "--cacheinfo", mode+","+blob+","+path); err != nil {
			return "", fmt.Errorf("commit task: %w", err)
		}
	}
	tree, err := gitrun.Run(ctx, c.dir, env, "write-tree")
	if err != nil {
		return "", fmt.Errorf("commit task: %w", err)
	}
	sha, err := gitrun.Run(ctx, c.dir, env, "commit-tree", "--no-gpg-sign", strings.TrimSpace(tree), "-p", parent, "-m", message)
	if err != nil {
		return "", fmt.Errorf("commit task: %w", err)
	}
	sha = strings.TrimSpace(sha)
	if _, err := gitrun.Run(ctx, c.dir, nil, "update-ref", "refs/heads/tasks/"+name, sha); err != nil {
		return "", fmt.Errorf("commit task: %w", err)
	}
	return sha, nil
}

// forget removes the ref of a task that was not kept, if it was made.
func (c *clone) forget(ctx context.Context, name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	gitrun.Run(ctx, c.dir, nil, "update-ref", "-d", "refs/heads/tasks/"+name)
}

func hashObject(ctx context.Context, dir string, data []byte) (string, error) {
	cmd := exec.CommandContext(ctx, "git", "hash-object", "-w", "--stdin")
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(data)
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git hash-object: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// show is a file's content at a commit.
func (c *clone) show(ctx context.Context, commit, path string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", "show", commit+":"+path)
	cmd.Dir = c.dir
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git show %s:%s: %w", commit, path, err)
	}
	return out, nil
}

// extract writes the tree of commit into dir, which it creates.
func (c *clone) extract(ctx context.Context, commit, dir string) error {
	cmd := exec.CommandContext(ctx, "git", "archive", "--format=tar", commit)
	cmd.Dir = c.dir
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("extract %s: %w", commit, err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("extract %s: %w", commit, err)
	}
	terr := untar(pipe, dir)
	io.Copy(io.Discard, pipe)
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("extract %s: %w", commit, err)
	}
	if terr != nil {
		return fmt.Errorf("extract %s: %w", commit, terr)
	}
	return nil
}

func untar(r io.Reader, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.Clean(h.Name)
		if name == "." || strings.HasPrefix(name, "..") || filepath.IsAbs(name) {
			continue
		}
		target := filepath.Join(dir, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeSymlink:
			os.MkdirAll(filepath.Dir(target), 0o755)
			if err := os.Symlink(h.Linkname, target); err != nil {
				return err
			}
		case tar.TypeReg:
			os.MkdirAll(filepath.Dir(target), 0o755)
			f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, os.FileMode(h.Mode&0o777)|0o600)
			if err != nil {
				return err
			}
			if _, err := io.Copy(f, tr); err != nil {
				f.Close()
				return err
			}
			if err := f.Close(); err != nil {
				return err
			}
		}
	}
}
