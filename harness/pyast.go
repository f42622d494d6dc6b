package harness

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/pyharness/pyharness/schemas"
)

// pyDefsProgram lists definitions with Python's own parser; see its
// docstring for what it reads and writes.
//
//go:embed pydefs.py
var pyDefsProgram string

// Bounds on one parse: a process that takes longer or prints more is
// killed and its batch is read by pattern.
const (
	pyParseTimeout   = 20 * time.Second
	pyParseMaxOutput = 16 << 20
	// pyParseMaxBatch is how much source one process is sent; a larger
	// batch is split.
	pyParseMaxBatch = 4 << 20
)

// pyModule is what the harness knows of one Python source's definitions.
type pyModule struct {
	defs []pyDef
	// names are the module's own names: its functions and classes and
	// the targets of its module-level assignments.
	names map[string]bool
	// exact is set when the interpreter's parser read the source; unset,
	// the definitions were found by pattern.
	exact bool
}

// topDefs are the module's own functions and classes.
func (m pyModule) topDefs() []pyDef {
	var out []pyDef
	for _, d := range m.defs {
		if d.Top {
			out = append(out, d)
		}
	}
	return out
}

// pySource is a source to parse and the name it is reported by.
type pySource struct {
	name string
	text string
}

// pyParser reads Python definitions with the run's interpreter, one
// process per batch of sources, remembering what it read by content.
type pyParser struct {
	// python is the interpreter, or "" until findPython has found one.
	python string
	// findPython is asked for an interpreter on first use when python is
	// "" (a Go suite's run has none of its own).
	findPython func(ctx context.Context) (string, error)
	cache      map[[32]byte]pyCached
	// broken is why the interpreter could not be used; once set, every
	// source is read by pattern for the rest of the run.
	broken error
	// processes counts the interpreters started.
	processes int
}

func newPyParser(python string, find func(ctx context.Context) (string, error)) *pyParser {
	return &pyParser{python: python, findPython: find, cache: map[[32]byte]pyCached{}}
}

// pyCached is a source read before: its module, and why it did not parse.
type pyCached struct {
	mod pyModule
	err string
}

// parse reads each source's definitions, by ast where it can. The first
// warning lists the sources that do not parse; the second says why the
// interpreter could not be used, the first time it could not.
func (p *pyParser) parse(ctx context.Context, srcs []pySource) (mods []pyModule, unparsed, broken string) {
	mods = make([]pyModule, len(srcs))
	var todo []int
	var bad []string
	for i, s := range srcs {
		if c, ok := p.cache[sha256.Sum256([]byte(s.text))]; ok {
			mods[i] = c.mod
			if c.err != "" {
				bad = append(bad, fmt.Sprintf("%s (%s)", s.name, c.err))
			}
			continue
		}
		if strings.TrimSpace(s.text) == "" {
			mods[i] = pyModule{names: map[string]bool{}, exact: true}
			continue
		}
		todo = append(todo, i)
	}
	for len(todo) > 0 {
		n, size := 0, 0
		for n < len(todo) && (n == 0 || size+len(srcs[todo[n]].text) <= pyParseMaxBatch) {
			size += len(srcs[todo[n]].text)
			n++
		}
		batch := todo[:n]
		todo = todo[n:]
		texts := make([]string, len(batch))
		for k, i := range batch {
			texts[k] = srcs[i].text
		}
		results, err := p.run(ctx, texts)
		if err != nil {
			if p.broken == nil && ctx.Err() == nil {
				p.broken = err
				broken = fmt.Sprintf("%s: %v; Python definitions are read by pattern for the rest of the run", schemas.CodeRegexFallback, err)
			}
			for _, i := range append(batch, todo...) {
				mods[i] = patternModule(srcs[i].text)
			}
			break
		}
		for k, i := range batch {
			r := results[k]
			m := pyModule{names: map[string]bool{}, exact: r.Error == ""}
			if r.Error != "" {
				m = patternModule(srcs[i].text)
				bad = append(bad, fmt.Sprintf("%s (%s)", srcs[i].name, r.Error))
			} else {
				for _, d := range r.Defs {
					m.defs = append(m.defs, pyDef{Kind: d.Kind, Name: d.Name, Line: d.Line, Depth: d.Depth, Top: d.Depth == 0})
				}
				for _, n := range r.Names {
					m.names[n] = true
				}
			}
			p.cache[sha256.Sum256([]byte(srcs[i].text))] = pyCached{mod: m, err: r.Error}
			mods[i] = m
		}
	}
	if len(bad) > 0 {
		unparsed = fmt.Sprintf("%s: %s %s not parse; %s read by pattern", schemas.CodeRegexFallback, strings.Join(bad, ", "),
			plural(len(bad), "does", "do"), plural(len(bad), "its definitions were", "their definitions were"))
	}
	return mods, unparsed, broken
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// pyResult is the program's answer for one source.
type pyResult struct {
	Defs []struct {
		Kind  string `json:"kind"`
		Name  string `json:"name"`
		Line  int    `json:"line"`
		Depth int    `json:"depth"`
	} `json:"defs"`
	Names []string `json:"names"`
	Error string   `json:"error"`
}

// run starts the interpreter once for a batch, killed with ctx or after
// pyParseTimeout.
func (p *pyParser) run(ctx context.Context, texts []string) ([]pyResult, error) {
	if p.broken != nil {
		return nil, p.broken
	}
	if p.python == "" {
		if p.findPython == nil {
			return nil, errors.New("no Python interpreter to parse with")
		}
		py, err := p.findPython(ctx)
		if err != nil {
			return nil, err
		}
		p.python = py
	}
	in, err := json.Marshal(texts)
	if err != nil {
		return nil, fmt.Errorf("parse python: %w", err)
	}
	pctx, cancel := context.WithTimeout(ctx, pyParseTimeout)
	defer cancel()
	// -I: no user site, no environment, no current directory on the path;
	// -S: no site module. The program needs only ast and json.
	cmd := exec.CommandContext(pctx, p.python, "-I", "-S", "-c", pyDefsProgram)
	cmd.Stdin = bytes.NewReader(in)
	out := &limitedBuffer{max: pyParseMaxOutput}
	var stderr limitedBuffer
	stderr.max = 4 << 10
	cmd.Stdout, cmd.Stderr = out, &stderr
	cmd.WaitDelay = time.Second
	p.processes++
	err = cmd.Run()
	switch {
	case pctx.Err() != nil && ctx.Err() == nil:
		return nil, fmt.Errorf("parse python: %s took more than %s", p.python, pyParseTimeout)
	case ctx.Err() != nil:
		return nil, fmt.Errorf("parse python: %w", ctx.Err())
	case out.over:
		return nil, fmt.Errorf("parse python: %s printed more than %d bytes", p.python, pyParseMaxOutput)
	case err != nil:
		msg := strings.TrimSpace(stderr.String())
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
			msg = msg[i+1:]
		}
		return nil, fmt.Errorf("parse python with %s: %w %s", p.python, err, msg)
	}
	var results []pyResult
	if err := json.Unmarshal(out.Bytes(), &results); err != nil {
		return nil, fmt.Errorf("parse python: read %s's answer: %w", p.python, err)
	}
	if len(results) != len(texts) {
		return nil, fmt.Errorf("parse python: %d answers for %d sources", len(results), len(texts))
	}
	return results, nil
}

// limitedBuffer keeps at most max bytes and notes that more came; writes
// never fail, so the child is never blocked on a full pipe.
type limitedBuffer struct {
	bytes.Buffer
	max  int
	over bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); len(p) > room {
		b.over = true
		b.Buffer.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return b.Buffer.Write(p)
}

// pyModules parses sources for a turn, recording a fallback to patterns on
// the turn's warnings, or on the run's before the first turn (t nil). An
// interpreter that could not be used is recorded on the run as well.
func (r *runner) pyModules(ctx context.Context, t *schemas.Turn, srcs ...pySource) []pyModule {
	mods, unparsed, broken := r.py.parse(ctx, srcs)
	for _, w := range []string{unparsed, broken} {
		if w == "" {
			continue
		}
		if t != nil {
			t.Warnings = append(t.Warnings, w)
		}
		if t == nil || w == broken {
			r.warnings = append(r.warnings, w)
		}
	}
	return mods
}

// pyCompared parses sources that are compared with each other (a file
// before and after a write): when one was read by pattern, all are, so
// that a draft with a syntax error is judged as the pattern judges it.
func (r *runner) pyCompared(ctx context.Context, t *schemas.Turn, srcs ...pySource) []pyModule {
	mods := r.pyModules(ctx, t, srcs...)
	for _, m := range mods {
		if !m.exact {
			for i := range mods {
				mods[i] = patternModule(srcs[i].text)
			}
			break
		}
	}
	return mods
}
