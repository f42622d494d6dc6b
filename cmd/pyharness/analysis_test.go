package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runCmd runs the pyharness command line in-process.
func runCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	a := &app{stdin: strings.NewReader(""), stdout: &out, stderr: &errb,
		now: func() time.Time { return time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC) }, getenv: func(string) string { return "" }}
	code = run(context.Background(), a, args)
	return code, out.String(), errb.String()
}

const analysisFixtures = "../../classify/testdata/traces"

// TestClassifyStatsReport drives the three commands end to end on the
// fixed trace set: classify writes the dataset, stats reads it and the
// traces alike, and report writes the page.
func TestClassifyStatsReport(t *testing.T) {
	dir := t.TempDir()
	dataset := filepath.Join(dir, "dataset")

	code, out, errs := runCmd(t, "classify", "--in", analysisFixtures, "--out", dataset, "--json")
	if code != 0 {
		t.Fatalf("classify: exit %d: %s", code, errs)
	}
	var res struct {
		Classified int            `json:"classified"`
		Kinds      map[string]int `json:"kinds"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("classify --json: %v\n%s", err, out)
	}
	if res.Classified != 34 {
		t.Errorf("classified %d runs, want 34", res.Classified)
	}
	if code, out, _ := runCmd(t, "classify", "--in", analysisFixtures, "--out", dataset); code != 0 || !strings.Contains(out, "0 new, 0 reclassified, 34 already classified") {
		t.Errorf("a second classify: exit %d:\n%s", code, out)
	}

	for _, in := range []string{analysisFixtures, dataset} {
		code, out, errs := runCmd(t, "stats", "--in", in, "--json")
		if code != 0 {
			t.Fatalf("stats --in %s: exit %d: %s", in, code, errs)
		}
		var s struct {
			Kind  string `json:"kind"`
			Kinds []struct {
				Name  string `json:"name"`
				Count int    `json:"count"`
			} `json:"kinds"`
		}
		if err := json.Unmarshal([]byte(out), &s); err != nil {
			t.Fatal(err)
		}
		for _, k := range s.Kinds {
			if res.Kinds[k.Name] != k.Count {
				t.Errorf("stats --in %s (%s): %d %s turns, classify wrote %d", in, s.Kind, k.Count, k.Name, res.Kinds[k.Name])
			}
		}
	}
	code, out, _ = runCmd(t, "stats", "--in", dataset)
	if code != 0 || !strings.HasPrefix(out, "Read the classified dataset") || !strings.Contains(out, "What it is told, most often") {
		t.Errorf("stats of the dataset: exit %d:\n%s", code, out)
	}

	page := filepath.Join(dir, "report.html")
	code, out, errs = runCmd(t, "report", "--in", dataset, "--out", page)
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "Wrote "+page) {
		t.Errorf("report said %q", out)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "Generated 2026-12-01T09:00:00Z") || strings.Count(string(b), `<figure class="chart"`) != 5 {
		t.Error("the report is not the page expected")
	}
	if !strings.Contains(out, "No run pages") || strings.Contains(string(b), "report-runs/") {
		t.Errorf("a report of a dataset with no --traces links run pages:\n%s", out)
	}
	code, out, errs = runCmd(t, "report", "--in", dataset, "--traces", analysisFixtures, "--out", page)
	if code != 0 || !strings.Contains(out, "Wrote a page for each of 34 runs in "+filepath.Join(dir, "report-runs")) {
		t.Fatalf("report --traces: exit %d:\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "report-runs", "run", "bench-initials-p4-59a3dd8961a6.html")); err != nil {
		t.Errorf("no run page: %v", err)
	}
}

func TestStatsArguments(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"unknown breakdown", []string{"stats", "--in", analysisFixtures, "--by", "verdict"}, 2, "", `stats: --by "verdict": want one of [model tier case source tag]`},
		{"report with an unknown breakdown", []string{"report", "--in", analysisFixtures, "--by", "x"}, 2, "", "report: --by"},
		{"no traces", []string{"stats", "--in", "testdata"}, 2, "", "no trace files"},
		{"missing directory", []string{"stats", "--in", "nowhere"}, 2, "", "stats: --in nowhere: no such directory"},
		{"classify of nothing", []string{"classify", "--in", "nowhere", "--out", "unused"}, 2, "", "classify: --in nowhere: no such directory"},
		{"broken traces", []string{"stats", "--in", "../../report/stats/testdata/broken"}, 0, "bench-semver-bump-p1-d1bf4c4cd785.jsonl:5: invalid JSON", ""},
		{"by tier", []string{"stats", "--in", analysisFixtures, "--by", "tier"}, 0, "By tier", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runCmd(t, tt.args...)
			if code != tt.code || !strings.Contains(out, tt.stdout) || !strings.Contains(errs, tt.stderr) {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, out, errs)
			}
		})
	}
}
