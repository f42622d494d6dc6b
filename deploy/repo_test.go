package deploy

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// root is the repository, the main module, above this one.
const root = ".."

// exitCodes reads the exit-code table of cmd/pyharness (exitcodes.go) by
// parsing its source: this module does not import the main module, and
// the numbers must be the ones the binary exits with.
func exitCodes(t *testing.T) map[string]int {
	t.Helper()
	path := filepath.Join(root, "cmd", "pyharness", "exitcodes.go")
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	codes := map[string]int{}
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, s := range gd.Specs {
			vs := s.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if i >= len(vs.Values) {
					continue
				}
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.INT {
					n, err := strconv.Atoi(lit.Value)
					if err != nil {
						t.Fatalf("%s: %s = %s: %v", path, name.Name, lit.Value, err)
					}
					codes[name.Name] = n
				}
			}
		}
	}
	for _, name := range []string{"exitOK", "exitUsage", "exitIncomplete", "exitPreflight"} {
		if _, ok := codes[name]; !ok {
			t.Fatalf("%s has no integer constant %s", path, name)
		}
	}
	return codes
}

// ciCommands returns the lines of the files CI runs (.ci/run and the
// README's test command), trimmed, without comments.
func ciCommands(t *testing.T) []string {
	t.Helper()
	var lines []string
	for _, name := range []string{".ci/run", "scripts/test.sh"} {
		f, err := os.Open(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			l := strings.TrimSpace(sc.Text())
			if l != "" && !strings.HasPrefix(l, "#") {
				lines = append(lines, l)
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	return lines
}

// goDirective returns the go version of the main module's go.mod.
func goDirective(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "go "); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Fatal("go.mod has no go directive")
	return ""
}
