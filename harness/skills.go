package harness

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/pyharness/pyharness/schemas"
)

// skillNames are the deterministic procedures a model may call.
var skillNames = []string{"locate", "outline", "scaffold-test"}

// runSkill runs a skill and returns its result for the model.
func (r *runner) runSkill(ctx context.Context, t *schemas.Turn, name string, args []string) (string, error) {
	switch name {
	case "locate":
		if len(args) != 1 {
			return "", fmt.Errorf("SKILL locate takes one name, e.g. SKILL locate parse_args")
		}
		return r.locate(args[0]), nil
	case "outline":
		if len(args) != 1 {
			return "", fmt.Errorf("SKILL outline takes one file, e.g. SKILL outline src/app.py")
		}
		rel, err := r.scope.resolve(args[0])
		if err != nil {
			return "", err
		}
		src, err := readRegular(r.abs(rel))
		if err != nil {
			return "", fmt.Errorf("outline %s: no such file", rel)
		}
		return outline(rel, string(src), r.pyModules(ctx, t, pySource{name: rel, text: string(src)})[0]), nil
	case "scaffold-test":
		if len(args) != 1 {
			return "", fmt.Errorf("SKILL scaffold-test takes one module, e.g. SKILL scaffold-test wordcount")
		}
		return r.scaffoldTest(ctx, t, args[0])
	}
	return "", fmt.Errorf("unknown skill %q: the skills are %s", name, strings.Join(skillNames, ", "))
}

// locate lists where a name is defined and where it is used, in Python
// files within scope.
func (r *runner) locate(name string) string {
	if !regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.]*$`).MatchString(name) {
		return fmt.Sprintf("locate %s: not a Python name", name)
	}
	short := name[strings.LastIndex(name, ".")+1:]
	word := regexp.MustCompile(`\b` + regexp.QuoteMeta(short) + `\b`)
	var defs, uses []string
	for _, f := range listFiles(r.ws.dir, r.scope) {
		if !strings.HasSuffix(f, ".py") {
			continue
		}
		src, err := readRegular(r.abs(f))
		if err != nil {
			continue
		}
		for i, line := range strings.Split(string(src), "\n") {
			if !word.MatchString(line) {
				continue
			}
			loc := fmt.Sprintf("%s:%d: %s", f, i+1, strings.TrimSpace(line))
			if m := defRe.FindStringSubmatch(line); m != nil && m[3] == short {
				defs = append(defs, loc)
			} else if m := assignRe.FindStringSubmatch(line); m != nil && m[1] == short {
				defs = append(defs, loc)
			} else if len(uses) < 40 {
				uses = append(uses, loc)
			}
		}
	}
	var b strings.Builder
	if len(defs) == 0 {
		fmt.Fprintf(&b, "%s is not defined in any Python file in scope.\n", name)
	} else {
		fmt.Fprintf(&b, "%s is defined at:\n  %s\n", name, strings.Join(defs, "\n  "))
	}
	if len(uses) > 0 {
		fmt.Fprintf(&b, "used at:\n  %s\n", strings.Join(uses, "\n  "))
	}
	return b.String()
}

// outline lists a file's classes and functions with their line numbers.
func outline(rel, src string, m pyModule) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%d lines):\n", rel, strings.Count(src, "\n")+1)
	defs := m.defs
	if len(defs) == 0 {
		b.WriteString("  no classes or functions\n")
	}
	for _, d := range defs {
		fmt.Fprintf(&b, "  %5d  %s%s %s\n", d.Line, strings.Repeat("  ", d.Depth), d.Kind, d.Name)
	}
	return b.String()
}

// scaffoldTest returns a unittest skeleton for a module's public functions;
// it writes nothing (the model decides where the test goes).
func (r *runner) scaffoldTest(ctx context.Context, t *schemas.Turn, module string) (string, error) {
	rel := strings.ReplaceAll(strings.TrimSuffix(module, ".py"), ".", "/") + ".py"
	rel, err := r.scope.resolve(rel)
	if err != nil {
		return "", err
	}
	src, err := readRegular(r.abs(rel))
	if err != nil {
		return "", fmt.Errorf("scaffold-test %s: no module %s", module, rel)
	}
	mod := moduleName(rel)
	var funcs []string
	for _, d := range r.pyModules(ctx, t, pySource{name: rel, text: string(src)})[0].topDefs() {
		if !strings.HasPrefix(d.Name, "_") {
			funcs = append(funcs, d.Name)
		}
	}
	if len(funcs) == 0 {
		return "", fmt.Errorf("scaffold-test %s: the module has no public functions or classes", module)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "A unittest skeleton for %s (write it with WRITE tests/test_%s.py or where the suite finds tests):\n\n", rel, filepath.Base(strings.TrimSuffix(rel, ".py")))
	fmt.Fprintf(&b, "```python\nimport unittest\n\nfrom %s import %s\n\n\nclass Test%s(unittest.TestCase):\n", mod, strings.Join(funcs, ", "), camel(filepath.Base(strings.TrimSuffix(rel, ".py"))))
	for _, f := range funcs {
		fmt.Fprintf(&b, "    def test_%s(self):\n        self.fail(\"write the test of %s\")\n\n", strings.ToLower(f), f)
	}
	b.WriteString("\nif __name__ == \"__main__\":\n    unittest.main()\n```\n")
	return b.String(), nil
}
