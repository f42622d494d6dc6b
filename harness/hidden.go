package harness

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

// cacheDirs are directories of tools, never the repository's code: the
// repository map, reads and the workspace copy leave them out.
var cacheDirs = map[string]bool{
	".git": true, ".pyharness-git": true, "__pycache__": true, ".pytest_cache": true, ".mypy_cache": true,
	".ruff_cache": true, ".tox": true, ".nox": true, ".venv": true, "venv": true, "node_modules": true,
}

// harnessOutput reports whether dir is an output directory of pyharness
// (--out of some run, wherever it was): it has a runs/ directory whose
// traces start with a run_start of this schema. What the harness wrote
// is never the model's input, nor training prompts' content.
func harnessOutput(dir string) bool {
	entries, err := os.ReadDir(filepath.Join(dir, trace.RunsDir))
	if err != nil {
		return false
	}
	mark := []byte(`"schema":"` + schemas.Schema + `"`)
	for i, e := range entries {
		if i == 50 {
			break
		}
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		f, err := os.Open(filepath.Join(dir, trace.RunsDir, e.Name()))
		if err != nil {
			continue
		}
		head := make([]byte, 256)
		n, _ := io.ReadFull(f, head)
		f.Close()
		if bytes.Contains(head[:n], []byte(`"type":"run_start"`)) && bytes.Contains(head[:n], mark) {
			return true
		}
	}
	return false
}

// outsideRel is the path of outDir relative to repo, with forward slashes,
// when outDir is inside it; "" otherwise.
func outsideRel(repo, outDir string) string {
	if outDir == "" {
		return ""
	}
	r, err1 := filepath.Abs(repo)
	o, err2 := filepath.Abs(outDir)
	if err1 != nil || err2 != nil {
		return ""
	}
	rel, err := filepath.Rel(r, o)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	return filepath.ToSlash(rel)
}

// hiddenDir reports whether the workspace directory at rel (under root) is
// one the model never sees: a tool's cache, this run's output directory
// (outRel), or any pyharness output directory.
func hiddenDir(root, rel, outRel string) bool {
	if cacheDirs[filepath.Base(rel)] || isNoise(rel) {
		return true
	}
	if outRel != "" && (rel == outRel || strings.HasPrefix(rel, outRel+"/")) {
		return true
	}
	return harnessOutput(filepath.Join(root, filepath.FromSlash(rel)))
}
