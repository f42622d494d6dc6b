package harness

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// repoMapHeading starts the repository map in the opening message.
const repoMapHeading = "Repository files"

// listFiles lists the workspace's files within scope, sorted, with forward
// slashes, leaving out version-control data and interpreter litter, and
// anything that is not a regular file inside the workspace: a link that
// leaves it, a pipe, a socket or a device.
func listFiles(root string, sc *scope) []string {
	var files []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			return nil
		}
		if d.IsDir() {
			outRel := ""
			if sc != nil {
				outRel = sc.outRel
			}
			if hiddenDir(root, rel, outRel) {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Name() == ".git" || isNoise(rel) {
			return nil
		}
		if !d.Type().IsRegular() && !linkToRegularInside(root, p) {
			return nil
		}
		if sc != nil && !sc.inGlobs(rel) {
			return nil
		}
		files = append(files, rel)
		return nil
	})
	sort.Strings(files)
	return files
}

// repoMapBatch is how many Python files the repository map has parsed at
// once: the map's budget shows the definitions of a few dozen files at
// most, so a large repository is not parsed whole for it.
const repoMapBatch = 64

// repoMap describes the repository within a token budget: every file, with
// the top-level definitions of Python files while they fit, then only the
// names of files, then a count of what was left out. parse reads the
// definitions of a batch of files.
func repoMap(root string, sc *scope, tok *tokenizer, budget int, parse func([]pySource) []pyModule) (string, int) {
	files := listFiles(root, sc)
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%d):\n", repoMapHeading, len(files))
	left := 0
	withDefs := true
	parsed := map[string][]pyDef{}
	for i, f := range files {
		line := f
		if withDefs && strings.HasSuffix(f, ".py") {
			if _, ok := parsed[f]; !ok {
				parseAhead(root, files[i:], parsed, parse)
			}
			var names []string
			for _, d := range parsed[f] {
				names = append(names, d.Kind+" "+d.Name)
			}
			if len(names) > 0 {
				line += ": " + strings.Join(names, ", ")
			}
		}
		if tok.text(b.String()+line) > budget {
			if withDefs {
				// Out of room with definitions: go on with names only.
				withDefs = false
				if tok.text(b.String()+f) <= budget {
					b.WriteString(f + "\n")
					continue
				}
			}
			left = len(files) - i
			fmt.Fprintf(&b, "... and %d more files (use SKILL locate NAME to find a name)\n", left)
			break
		}
		b.WriteString(line + "\n")
	}
	return b.String(), left
}

// parseAhead parses the next batch of Python files from files on, noting
// the top-level definitions of each (none for a file it cannot read).
func parseAhead(root string, files []string, parsed map[string][]pyDef, parse func([]pySource) []pyModule) {
	var batch []pySource
	for _, f := range files {
		if len(batch) == repoMapBatch {
			break
		}
		if !strings.HasSuffix(f, ".py") {
			continue
		}
		parsed[f] = nil
		if src, err := readRegular(filepath.Join(root, filepath.FromSlash(f))); err == nil {
			batch = append(batch, pySource{name: f, text: string(src)})
		}
	}
	for i, m := range parse(batch) {
		parsed[batch[i].name] = m.topDefs()
	}
}

// linkToRegularInside reports whether p is a symlink to a regular file
// inside root.
func linkToRegularInside(root, p string) bool {
	st, err := os.Lstat(p)
	if err != nil || st.Mode()&fs.ModeSymlink == 0 {
		return false
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return false
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil || !strings.HasPrefix(real, realRoot+string(filepath.Separator)) {
		return false
	}
	st, err = os.Stat(real)
	return err == nil && st.Mode().IsRegular()
}
