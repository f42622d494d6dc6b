package bench

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/collect"
	"github.com/pyharness/pyharness/datasets"
	"github.com/pyharness/pyharness/schemas"
)

// scriptedModel plays each case's own scripts, as `bench --model scripted`
// does.
func scriptedModel(ctx context.Context, it collect.Item, pass int, opts schemas.Options, slot int) (collect.Backend, error) {
	return collect.CaseScript(*it.Case, pass, opts)
}

func expected(c datasets.Case, variant string) (schemas.Verdict, schemas.FailureClass) {
	want := c.Expect[variant]
	if want == string(schemas.VerdictWorked) {
		return schemas.VerdictWorked, ""
	}
	return schemas.VerdictFailed, schemas.FailureClass(want)
}

// `bench --repeat 5 --model scripted`: every case, five passes, and the
// per-run verdicts and per-tier scores are exactly what the chosen scripts
// are built to produce.
func TestScriptedBenchScoresArePinned(t *testing.T) {
	cases, err := datasets.Cases()
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	outcomes, err := Run(context.Background(), collect.Options{Cases: cases, Passes: 5, Jobs: 2, OutDir: out, Model: scriptedModel})
	if err != nil {
		t.Fatal(err)
	}
	if len(outcomes) != 5*len(cases) {
		t.Fatalf("%d runs, want %d", len(outcomes), 5*len(cases))
	}
	byID := map[string]datasets.Case{}
	wantTier := map[int][2]int{}
	for _, c := range cases {
		byID[c.ID] = c
	}
	for _, o := range outcomes {
		c := byID[o.Case]
		v := strings.TrimPrefix(o.Model, c.ID+"/") // the variant played
		wv, wc := expected(c, v)
		if o.Verdict != wv || o.FailureClass != wc {
			t.Errorf("%s pass %d (%s): %s %s, want %s %s", o.Case, o.Pass, v, o.Verdict, o.FailureClass, wv, wc)
		}
		s := wantTier[c.Tier]
		s[1]++
		if wv == schemas.VerdictWorked {
			s[0]++
		}
		wantTier[c.Tier] = s
	}
	r := NewReport(outcomes, len(cases), 5)
	for _, ts := range r.Tiers {
		if w := wantTier[ts.Tier]; ts.Worked != w[0] || ts.Judged != w[1] {
			t.Errorf("tier %d scored %d/%d, the scripts are built for %d/%d", ts.Tier, ts.Worked, ts.Judged, w[0], w[1])
		}
	}
	if !r.Resolution.Computed || r.Resolution.Gap < 1 {
		t.Errorf("resolution %+v", r.Resolution)
	}
	// The recorded benchmark is read back the same from its traces.
	back, err := ReadOutcomes(t.Context(), out)
	if err != nil || len(back) != len(outcomes) {
		t.Fatalf("read back %d outcomes (%v)", len(back), err)
	}
	var text bytes.Buffer
	r.WriteText(&text)
	t.Logf("\n%s", text.String())
}

// A benchmark run again over the same OUT runs every case again, as a new
// attempt of the same run id, and writes no plan file: unlike collect, it
// neither refuses nor skips runs that are already there.
func TestRunAgainRecordsNewAttempts(t *testing.T) {
	cases, err := datasets.Cases()
	if err != nil {
		t.Fatal(err)
	}
	o := collect.Options{Cases: cases[:2], Passes: 1, OutDir: t.TempDir(), Model: scriptedModel}
	first, err := Run(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Run(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != 2 || len(again) != 2 {
		t.Fatalf("%d and %d outcomes, want 2 each", len(first), len(again))
	}
	for i := range first {
		if first[i].RunID != again[i].RunID || first[i].Case != cases[i].ID {
			t.Errorf("outcome %d: %s then %s, want case %s twice under one id", i, first[i].RunID, again[i].RunID, cases[i].ID)
		}
	}
	files, err := os.ReadDir(filepath.Join(o.OutDir, "runs"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, f.Name())
	}
	want := []string{first[0].RunID + ".attempt-2.jsonl", first[0].RunID + ".jsonl", first[1].RunID + ".attempt-2.jsonl", first[1].RunID + ".jsonl"}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("runs/ holds %v, want %v", names, want)
	}
	if _, err := os.Stat(filepath.Join(o.OutDir, "collect.json")); !os.IsNotExist(err) {
		t.Errorf("bench wrote a plan file (%v)", err)
	}
}
