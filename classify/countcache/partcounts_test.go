package countcache_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/classify"
	"github.com/pyharness/pyharness/classify/countcache"
	"github.com/pyharness/pyharness/classify/dataset"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

// countsFiles lists the counts files of a dataset as the part files they
// are named for.
func countsFiles(t *testing.T, dir string) []string {
	t.Helper()
	var parts []string
	root := filepath.Join(dir, countcache.CountsDir)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(root, path)
		parts = append(parts, strings.TrimSuffix(filepath.ToSlash(rel), ".counts")+".parquet")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(parts)
	return parts
}

func liveParts(t *testing.T, dir string) []string {
	t.Helper()
	var parts []string
	for _, table := range []string{dataset.RunsTable, dataset.TurnsTable} {
		rels, err := dataset.PartFiles(dir, table)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, rels...)
	}
	slices.Sort(parts)
	return parts
}

// allCounts is everything TurnCounts, RunCounts and ClaimedDoneRuns give
// for a dataset.
type allCounts struct {
	turns, turnsByCase []countcache.Counted[dataset.TurnSummary]
	runs, runsByCase   []countcache.Counted[countcache.RunTally]
	claimed            [3][]dataset.Partitioned[dataset.RunSummary]
}

func readAllCounts(t *testing.T, dir string) allCounts {
	t.Helper()
	ctx := context.Background()
	var a allCounts
	for _, cases := range []bool{false, true} {
		o := countcache.Options{Cases: cases}
		turns, runs := &a.turns, &a.runs
		if cases {
			turns, runs = &a.turnsByCase, &a.runsByCase
		}
		for c, err := range countcache.Turns(ctx, dir, o) {
			if err != nil {
				t.Fatal(err)
			}
			*turns = append(*turns, c)
		}
		for c, err := range countcache.Runs(ctx, dir, o) {
			if err != nil {
				t.Fatal(err)
			}
			*runs = append(*runs, c)
		}
	}
	a.claimed[0] = collect(t, countcache.ClaimedDoneRuns(ctx, dir, 1))
	a.claimed[1] = collect(t, countcache.ClaimedDone(ctx, dir))
	a.claimed[2] = collect(t, countcache.ClaimedDoneRuns(ctx, dir, countcache.ClaimedDonePerPart+5))
	return a
}

// compareCounts reports the first difference of each list of a and b.
func compareCounts(t *testing.T, aName string, a allCounts, bName string, b allCounts) {
	t.Helper()
	first := func(list string, x, y any) {
		t.Helper()
		xv, yv := reflect.ValueOf(x), reflect.ValueOf(y)
		for i := range max(xv.Len(), yv.Len()) {
			if i >= xv.Len() || i >= yv.Len() {
				t.Errorf("%s: %d %s, %d %s", list, xv.Len(), aName, yv.Len(), bName)
				return
			}
			if !reflect.DeepEqual(xv.Index(i).Interface(), yv.Index(i).Interface()) {
				t.Errorf("%s, entry %d: %s %#v\n%s %#v", list, i, aName, xv.Index(i).Interface(), bName, yv.Index(i).Interface())
				return
			}
		}
	}
	first("turns", a.turns, b.turns)
	first("turns by case", a.turnsByCase, b.turnsByCase)
	first("runs", a.runs, b.runs)
	first("runs by case", a.runsByCase, b.runsByCase)
	for i := range a.claimed {
		first(fmt.Sprintf("claimed DONE, list %d", i), a.claimed[i], b.claimed[i])
	}
}

// TestCountsFilesCountAsTheColumns: classify writes a counts file for
// every part file it writes, and no other; the readers take every part
// file's counts from it, and give what they give counting the columns
// (the counts files removed): the same groups of equal rows in the same
// order, with the case columns and without, and the same failures that
// claimed DONE.
func TestCountsFilesCountAsTheColumns(t *testing.T) {
	dir := t.TempDir()
	if _, err := classify.Update(context.Background(), fixtures, dir); err != nil {
		t.Fatal(err)
	}
	live := liveParts(t, dir)
	if got := countsFiles(t, dir); !slices.Equal(got, live) {
		t.Fatalf("counts files for %q, want one for each part file %q", got, live)
	}
	for _, rel := range live {
		ok, okCases := countcache.FreshCounts(dir, rel, false), countcache.FreshCounts(dir, rel, true)
		if strings.HasPrefix(rel, dataset.RunsTable+"/") && !countcache.ListsClaimedDone(dir, rel) {
			t.Errorf("%s: its counts list no failures that claimed DONE", rel)
		}
		if !ok || !okCases {
			t.Errorf("%s: counts read %v without the case columns, %v with them; want both", rel, ok, okCases)
		}
	}
	stored := readAllCounts(t, dir)
	if len(stored.claimed[2]) == 0 {
		t.Fatal("the fixtures hold no failure that claimed DONE: the test reads none")
	}
	if err := os.RemoveAll(filepath.Join(dir, countcache.CountsDir)); err != nil {
		t.Fatal(err)
	}
	fromColumns := readAllCounts(t, dir)
	compareCounts(t, "from the counts files", stored, "from the columns", fromColumns)
	// The failures that claimed DONE, each part file's first perPart.
	var want [3][]dataset.Partitioned[dataset.RunSummary]
	perPart := map[string]int{}
	for run, err := range dataset.Runs(context.Background(), dir) {
		if err != nil {
			t.Fatal(err)
		}
		r := dataset.Partitioned[dataset.RunSummary]{Partition: run.Partition, Row: run.Row.Summary()}
		if r.Row.Verdict != schemas.VerdictFailed || !r.Row.ClaimedDone {
			continue
		}
		perPart[r.Partition.Dir()]++
		for i, n := range []int{1, countcache.ClaimedDonePerPart, countcache.ClaimedDonePerPart + 5} {
			if perPart[r.Partition.Dir()] <= n {
				want[i] = append(want[i], r)
			}
		}
	}
	if !reflect.DeepEqual(stored.claimed, want) {
		t.Errorf("failures that claimed DONE:\n%+v\nwant\n%+v", stored.claimed, want)
	}
}

// TestStaleCountsAreNotRead: a counts file is not read when its part file
// changed in place in a column it counts, was replaced by another part
// file, or when the counts file is damaged or cut short; the readers then
// count the columns, and give what they give without counts files.
func TestStaleCountsAreNotRead(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := classify.Update(ctx, fixtures, dir); err != nil {
		t.Fatal(err)
	}
	rels, err := dataset.PartFiles(dir, dataset.TurnsTable)
	if err != nil || len(rels) < 2 {
		t.Fatalf("want two turns part files or more: %q %v", rels, err)
	}
	rel, other := rels[0], rels[1]
	path := filepath.Join(dir, filepath.FromSlash(rel))
	fresh := func() bool { return countcache.FreshCounts(dir, rel, false) }
	if !fresh() {
		t.Fatal("the counts file of a part file classify just wrote is not read")
	}
	part, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	counts, err := os.ReadFile(countcache.CountsPath(dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	restore := func() {
		t.Helper()
		if err := os.WriteFile(path, part, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(countcache.CountsPath(dir, rel), counts, 0o644); err != nil {
			t.Fatal(err)
		}
		if !fresh() {
			t.Fatal("the counts file is not read after the files were restored")
		}
	}
	otherPart, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(other)))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		change func()
	}{
		{"a column it counts overwritten in place", func() { overwriteColumns(t, path, "feedback") }},
		{"the part file replaced by another", func() {
			if err := os.WriteFile(path, otherPart, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"a byte of the counts file flipped", func() {
			b := slices.Clone(counts)
			b[len(b)/2] ^= 0x40
			if err := os.WriteFile(countcache.CountsPath(dir, rel), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"the counts file cut short", func() {
			if err := os.WriteFile(countcache.CountsPath(dir, rel), counts[:len(counts)-9], 0o644); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.change()
			if fresh() {
				t.Error("the counts file is read")
			}
			if c.name == "a column it counts overwritten in place" {
				restore()
				return
			}
			withStale := readAllCounts(t, dir)
			aside := filepath.Join(t.TempDir(), "counts")
			if err := os.Rename(filepath.Join(dir, countcache.CountsDir), aside); err != nil {
				t.Fatal(err)
			}
			fromColumns := readAllCounts(t, dir)
			if err := os.Rename(aside, filepath.Join(dir, countcache.CountsDir)); err != nil {
				t.Fatal(err)
			}
			compareCounts(t, "with the stale counts file", withStale, "without counts files", fromColumns)
			restore()
		})
	}
}

// TestCountsFollowTheParts: a classify that replaces part files (a run's
// newer attempt) removes their counts files and writes the new ones', and
// one after a crash removes the counts files no commit recorded.
func TestCountsFollowTheParts(t *testing.T) {
	ctx := context.Background()
	traces := filepath.Join(t.TempDir(), "runs")
	all, err := trace.ListFiles(fixtures)
	if err != nil {
		t.Fatal(err)
	}
	var later []trace.File
	for _, f := range all {
		if f.Attempt == 2 {
			later = append(later, f)
			continue
		}
		copyTrace(t, traces, f)
	}
	if len(later) == 0 {
		t.Fatal("the fixtures hold no second attempt")
	}
	out := t.TempDir()
	if _, err := classify.Update(ctx, traces, out); err != nil {
		t.Fatal(err)
	}
	before := liveParts(t, out)
	for _, f := range later {
		copyTrace(t, traces, f)
	}
	res, err := classify.Update(ctx, traces, out)
	if err != nil {
		t.Fatal(err)
	}
	if res.Reclassified == 0 {
		t.Fatalf("the second classify replaced no run: %+v", res)
	}
	live := liveParts(t, out)
	if slices.Equal(live, before) {
		t.Fatal("the second classify replaced no part file")
	}
	if got := countsFiles(t, out); !slices.Equal(got, live) {
		t.Errorf("counts files for %q, want one for each live part file %q", got, live)
	}

	orphan := countcache.CountsPath(out, dataset.TurnsTable+"/source=bench/model=scripted/part-000009-0001.parquet")
	if err := os.MkdirAll(filepath.Dir(orphan), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(orphan, []byte("half a file"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := classify.Update(ctx, traces, out); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(orphan); !os.IsNotExist(err) {
		t.Errorf("the orphan counts file is still there (%v)", err)
	}
}

// copyTrace copies the trace file f into the directory dir, made if need
// be.
func copyTrace(t *testing.T, dir string, f trace.File) {
	t.Helper()
	b, err := os.ReadFile(f.Path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, filepath.Base(f.Path)), b, 0o644); err != nil {
		t.Fatal(err)
	}
}
