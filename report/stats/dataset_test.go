package stats

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/pyharness/pyharness/classify"
	"github.com/pyharness/pyharness/classify/countcache"
	"github.com/pyharness/pyharness/classify/dataset"
	"github.com/pyharness/pyharness/collect/synthetic"
)

// collectRows counts a dataset from its full rows read one by one, each
// counted once: what fromDataset did before it counted groups of equal
// rows.
func collectRows(ctx context.Context, dir string, o Options) (*collector, error) {
	c := newCollector(dir, inputDataset, o)
	for r, err := range dataset.Runs(ctx, dir) {
		if err != nil {
			return nil, err
		}
		rs := r.Row.Summary()
		c.addRun(r.Partition, countcache.RunTallyOf(&rs), 1)
		c.example(r.Partition, &rs)
	}
	for t, err := range dataset.Turns(ctx, dir) {
		if err != nil {
			return nil, err
		}
		c.addTurn(t.Partition, t.Row.Summary(), 1)
	}
	return c, nil
}

// TestDatasetCountsAgreeWithRows: the summary of a generated dataset of
// several row groups, counted a group of equal rows at a time, is the one
// counted row by row, with every breakdown: the same wordings kept for
// codes with more than maxMessages of them, the same failures listed
// among more than maxExamples that claimed DONE. Both from the counts
// files classify writes and, those removed, from the tables' columns.
func TestDatasetCountsAgreeWithRows(t *testing.T) {
	ctx := context.Background()
	o := synthetic.DefaultOptions()
	o.Turns = 20_000
	traces := filepath.Join(t.TempDir(), "traces")
	if _, err := synthetic.Generate(ctx, traces, o); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "dataset")
	if _, err := classify.Update(ctx, traces, dir); err != nil {
		t.Fatal(err)
	}
	counts, err := filepath.Glob(filepath.Join(dir, "counts", "*", "*", "*", "*.counts"))
	if err != nil || len(counts) == 0 {
		t.Fatalf("classify wrote no counts files (%v)", err)
	}
	for _, from := range []string{"counts files", "columns"} {
		if from == "columns" {
			if err := os.RemoveAll(filepath.Join(dir, "counts")); err != nil {
				t.Fatal(err)
			}
		}
		for _, by := range append([]string{""}, dimensions...) {
			checkDatasetCounts(t, ctx, dir, from, by)
		}
	}
}

func checkDatasetCounts(t *testing.T, ctx context.Context, dir, from, by string) {
	t.Run(fmt.Sprintf("from %s by %q", from, by), func(t *testing.T) {
		byRow, err := collectRows(ctx, dir, Options{By: by})
		if err != nil {
			t.Fatal(err)
		}
		byGroup, err := collectDataset(ctx, dir, Options{By: by})
		if err != nil {
			t.Fatal(err)
		}
		// The wordings kept for each code, which the report shows
		// only the commonest and the number of.
		for code, n := range byRow.nudges {
			if !reflect.DeepEqual(byGroup.nudges[code], n) {
				t.Errorf("code %s: %d turns, %d wordings kept counted by groups; %d turns, %d wordings row by row, or other wordings",
					code, byGroup.nudges[code].count, len(byGroup.nudges[code].messages), n.count, len(n.messages))
			}
		}
		want, got := byRow.finish(), byGroup.finish()
		if !reflect.DeepEqual(got, want) {
			a, _ := json.MarshalIndent(got, "", " ")
			b, _ := json.MarshalIndent(want, "", " ")
			t.Errorf("counted by groups:\n%s\n---\nrow by row:\n%s", a, b)
		}
		if by != "" {
			return
		}
		capped := 0
		for _, n := range want.Nudges {
			if n.Distinct == maxMessages {
				capped++
			}
		}
		if capped == 0 {
			t.Errorf("no code has %d wordings: the test does not reach the cap", maxMessages)
		}
		if cd := want.ClaimedDone; cd.Claimed <= maxExamples || len(cd.Examples) != maxExamples {
			t.Errorf("%d failures claimed DONE, %d listed: want more than %d, %d listed", cd.Claimed, len(cd.Examples), maxExamples, maxExamples)
		}
	})
}
