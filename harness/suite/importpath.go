package suite

import (
	"os"
	"path/filepath"
	"strings"
)

// ImportPath is what a suite of the repository at dir needs on Python's
// import path besides the repository itself: "src" for a src layout (a
// src/ directory holding a package or module, the code under test, that
// the tests import by its own name), as pytest's pythonpath = src setting
// or an editable install would put it. Nil for any other layout.
func ImportPath(dir string) []string {
	entries, err := os.ReadDir(filepath.Join(dir, "src"))
	if err != nil {
		return nil
	}
	for _, e := range entries {
		name := e.Name()
		switch {
		case strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".egg-info") || name == "__pycache__":
		case e.IsDir():
			if _, err := os.Stat(filepath.Join(dir, "src", name, "__init__.py")); err == nil {
				return []string{"src"}
			}
		case strings.HasSuffix(name, ".py") && name != "__init__.py" && name != "setup.py":
			return []string{"src"}
		}
	}
	return nil
}

// ImportPathEnv is the PYTHONPATH assignment that puts the repository's
// ImportPath first, for a command run in dir with env besides the
// sandbox's own (a check of the task); "" when there is nothing to add.
func ImportPathEnv(dir string, env []string) string { return withImportPath(dir, env) }

// withImportPath is the PYTHONPATH assignment that puts the repository's
// ImportPath first, before what env (later entries winning) or the
// harness's own environment set; "" when there is nothing to add, or the
// path is there already.
func withImportPath(dir string, env []string) string {
	add := ImportPath(dir)
	if len(add) == 0 {
		return ""
	}
	cur, set := os.LookupEnv("PYTHONPATH")
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PYTHONPATH="); ok {
			cur, set = v, true
		}
	}
	parts := []string{}
	if set && cur != "" {
		parts = strings.Split(cur, string(os.PathListSeparator))
	}
	var out []string
	for _, a := range add {
		has := false
		for _, p := range parts {
			has = has || filepath.Clean(p) == a || filepath.Clean(p) == filepath.Join(dir, a)
		}
		if !has {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		return ""
	}
	return "PYTHONPATH=" + strings.Join(append(out, parts...), string(os.PathListSeparator))
}
