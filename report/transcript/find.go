package transcript

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pyharness/pyharness/schemas/trace"
)

// notFoundError is a run the trace directory does not hold.
type notFoundError struct {
	Dir   string
	What  string // the id, prefix, or case and pass asked for
	Runs  int    // the runs the directory does hold
	Extra string // a hint, when there is one
}

func (e *notFoundError) Error() string {
	if e.Runs == 0 {
		return fmt.Sprintf("no run %s: %s holds no trace files", e.What, e.Dir)
	}
	msg := fmt.Sprintf("no run %s in %s (it holds %d run(s))", e.What, e.Dir, e.Runs)
	if e.Extra != "" {
		msg += "; " + e.Extra
	}
	return msg
}

// AmbiguousError is a prefix, or a case without a pass, that names more
// than one run.
type AmbiguousError struct {
	What    string
	Matches []string
}

// maxListed bounds the matches an ambiguous name lists.
const maxListed = 20

func (e *AmbiguousError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s names %d runs; say which:", e.What, len(e.Matches))
	for i, m := range e.Matches {
		if i == maxListed {
			fmt.Fprintf(&b, "\n  … and %d more", len(e.Matches)-maxListed)
			break
		}
		b.WriteString("\n  " + m)
	}
	return b.String()
}

// Found is a run located in a trace directory.
type Found struct {
	File trace.File
	// Earlier counts the attempts before File of the same run id.
	Earlier int
}

// Find locates one run: arg is a trace file, a run id, or a unique prefix
// of one, among the latest attempt of each run of dir.
func Find(ctx context.Context, dir, arg string) (Found, error) {
	if isFile(arg) {
		return fromFile(arg)
	}
	files, err := listing(ctx, dir)
	if err != nil {
		return Found{}, err
	}
	var matches []int
	for i, f := range files.latest {
		if f.RunID == arg {
			return files.found(i), nil
		}
		if strings.HasPrefix(f.RunID, arg) {
			matches = append(matches, i)
		}
	}
	switch len(matches) {
	case 0:
		return Found{}, &notFoundError{Dir: files.dir, What: fmt.Sprintf("%q", arg), Runs: len(files.latest), Extra: withSource(files.latest, arg)}
	case 1:
		return files.found(matches[0]), nil
	}
	ids := make([]string, len(matches))
	for i, m := range matches {
		ids[i] = files.latest[m].RunID
	}
	return Found{}, &AmbiguousError{What: fmt.Sprintf("%q", arg), Matches: ids}
}

// withSource is a hint for a name that is a run id without its source
// ("ct-ttl-expire-bad" for dogfood-ct-ttl-expire-bad-p1-…, a manifest
// entry's id): the prefix it likely meant, and --case; "" when no run id
// reads so.
func withSource(latest []trace.File, arg string) string {
	var meant []string
	for _, f := range latest {
		source, rest, ok := strings.Cut(f.RunID, "-")
		if p := source + "-" + arg; ok && strings.HasPrefix(rest, arg) && !slices.Contains(meant, p) {
			meant = append(meant, p)
		}
	}
	if len(meant) == 0 {
		return ""
	}
	return fmt.Sprintf("did you mean %s? (run ids start with their source: bench-, dogfood-, adhoc-); --case %s picks a run by its case", strings.Join(meant, " or "), arg)
}

// FindCase locates the run of a case in a pass; pass 0 takes the only run
// of the case, and lists them when there are several.
func FindCase(ctx context.Context, dir, caseID string, pass int) (Found, error) {
	files, err := listing(ctx, dir)
	if err != nil {
		return Found{}, err
	}
	what := fmt.Sprintf("of case %q", caseID)
	if pass > 0 {
		what += fmt.Sprintf(" in pass %d", pass)
	}
	type match struct {
		i, pass int
		label   string
	}
	var found []match
	cases := map[string]bool{}
	for i, f := range files.latest {
		st, err := trace.ReadStart(f)
		if err != nil {
			continue
		}
		cases[st.CaseID] = true
		if st.CaseID == caseID && (pass == 0 || st.Pass == pass) {
			found = append(found, match{i, st.Pass, fmt.Sprintf("%s (pass %d, %s)", f.RunID, st.Pass, st.Model.Name)})
		}
	}
	// The first pass first: the run a caller that must pick one picks.
	slices.SortStableFunc(found, func(a, b match) int { return cmp.Compare(a.pass, b.pass) })
	var matches []int
	var labels []string
	for _, m := range found {
		matches, labels = append(matches, m.i), append(labels, m.label)
	}
	switch len(matches) {
	case 0:
		nf := &notFoundError{Dir: files.dir, What: what, Runs: len(files.latest)}
		if !cases[caseID] {
			nf.Extra = fmt.Sprintf("no run of the directory is of case %q", caseID)
		}
		return Found{}, nf
	case 1:
		return files.found(matches[0]), nil
	}
	return Found{}, &AmbiguousError{What: strings.TrimPrefix(what, "of "), Matches: labels}
}

// FindLast locates the newest run of dir: the trace file written last.
func FindLast(ctx context.Context, dir string) (Found, error) {
	files, err := listing(ctx, dir)
	if err != nil {
		return Found{}, err
	}
	best, bestTime := -1, int64(0)
	for i, f := range files.latest {
		st, err := os.Stat(f.Path)
		if err != nil {
			continue
		}
		if t := st.ModTime().UnixNano(); best < 0 || t > bestTime || (t == bestTime && f.RunID > files.latest[best].RunID) {
			best, bestTime = i, t
		}
	}
	if best < 0 {
		return Found{}, &notFoundError{Dir: files.dir, What: "to show", Runs: 0}
	}
	return files.found(best), nil
}

func isFile(arg string) bool {
	st, err := os.Stat(arg)
	return err == nil && st.Mode().IsRegular()
}

// fromFile is a trace file named on the command line; its attempt number
// says how many attempts came before it.
func fromFile(path string) (Found, error) {
	id, attempt, ok := trace.ParseFileName(filepath.Base(path))
	if !ok {
		id, attempt = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)), 1
	}
	return Found{File: trace.File{RunID: id, Attempt: attempt, Path: path}, Earlier: attempt - 1}, nil
}

// runFiles is the listing of a directory, latest attempts apart.
type runFiles struct {
	dir     string
	latest  []trace.File
	earlier []int
}

func (r *runFiles) found(i int) Found { return Found{File: r.latest[i], Earlier: r.earlier[i]} }

func listing(ctx context.Context, dir string) (*runFiles, error) {
	out := &runFiles{dir: trace.Dir(dir)}
	for la, err := range trace.LastAttempts(ctx, dir) {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("find run: no trace directory %s", dir)
		}
		if err != nil {
			return nil, fmt.Errorf("find run: %w", err)
		}
		out.latest = append(out.latest, la.File)
		out.earlier = append(out.earlier, la.SetAside)
	}
	return out, nil
}
