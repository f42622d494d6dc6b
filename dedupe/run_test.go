package dedupe_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/dedupe"
	"github.com/pyharness/pyharness/dedupe/dedupetest"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const writeF = "WRITE f.py\n```python\ndef f(xs):\n    total = 0\n    for x in xs:\n        total += x\n    return total\n```"

// fixture writes three cases and a dogfood task: exact copies that differ
// only in volatile tokens, a near-duplicate, distinct pairs, and a step the
// harness settled without the model.
func fixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	alpha := func(pass int, dur, extra string) dedupetest.Run {
		return dedupetest.Run{ID: fmt.Sprintf("bench-alpha-p%d-00000000000%d", pass, pass), Case: "alpha", Tier: 1, Pass: pass, Verdict: "worked",
			Turns: []dedupetest.Turn{
				{Draft: "READ f.py", Verb: "READ", Result: "f.py (lines 1-2 of 2):\n```\ndef f(xs):\n    pass\n```"},
				{Draft: writeF + extra, Verb: "WRITE", Result: "Wrote f.py."},
				{Draft: "RUN tests", Verb: "RUN", Result: "Ran 3 tests in " + dur + "\n\nOK"},
				{Draft: "DONE f sums its input", Verb: "DONE", Status: schemas.StatusStopped},
			}}
	}
	runs := []dedupetest.Run{
		alpha(1, "0.001s", ""),
		alpha(2, "0.004s", ""),
		alpha(3, "0.002s", "\n"),
		alpha(4, "0.003s", "  # the sum"),
		{ID: "bench-beta-p1-000000000001", Case: "beta", Tier: 2, Pass: 1, Verdict: "failed", Turns: []dedupetest.Turn{
			{Draft: "I will look first.", Verb: ""},
			{Draft: "READ g.py", Verb: "READ", Result: "g.py is empty"},
			{Draft: "DONE", Verb: "DONE", Status: schemas.StatusRefused, Code: "run-tests-first"},
			{Draft: "", NoModel: true, Verb: "RUN", Result: "Ran 0 tests"},
		}},
		{ID: "bench-beta-p2-000000000002", Case: "beta", Tier: 2, Pass: 2, Verdict: "worked", Turns: []dedupetest.Turn{
			{Draft: "READ g.py", Verb: "READ", Result: "g.py is empty"},
			{Draft: "WRITE g.py\n```python\ndef g():\n    return 2\n```", Verb: "WRITE", Result: "Wrote g.py at 2026-01-01T10:00:00Z."},
		}},
		{ID: "dogfood-tool_x-p1-000000000001", Source: schemas.SourceDogfood, Case: "tool-x", Pass: 1, Verdict: "worked", Turns: []dedupetest.Turn{
			{Draft: "READ f.py", Verb: "READ"},
		}},
	}
	for _, r := range runs {
		if _, err := dedupetest.Write(dir, r); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestRunReport(t *testing.T) {
	dir := fixture(t)
	var out bytes.Buffer
	rep, err := dedupe.Run(context.Background(), dir, dedupe.Options{}, &out)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.ReplaceAll(out.String(), dir, "DIR")
	golden := filepath.Join("testdata", "report.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("report differs from %s (go test -update rewrites it):\n%s", golden, got)
	}

	// An independent count: every model turn's prompt and draft, each text
	// normalised by a plain strings-and-loops statement of the rules.
	raw, exact, groups := 0, map[string]bool{}, map[string]bool{}
	for run, err := range trace.Runs(t.Context(), dir) {
		if err != nil {
			t.Fatal(err)
		}
		var conv schemas.Conversation
		for _, turn := range run.Turns {
			prompt, err := conv.Apply(turn)
			if err != nil {
				t.Fatal(err)
			}
			if !turn.ModelStep {
				continue
			}
			raw++
			var parts []string
			for _, m := range prompt {
				parts = append(parts, m.Role, plainNormalize(m.Content))
			}
			parts = append(parts, plainNormalize(turn.Reply.Content))
			b, _ := json.Marshal(parts)
			exact[string(b)] = true
			groups[trace.GroupOf(run.Start)] = true
		}
	}
	if rep.RawTurns != raw || rep.ExactUnique != len(exact) || rep.Groups != len(groups) {
		t.Errorf("dedupe: %d raw, %d exact-unique, %d groups; independent count: %d, %d, %d",
			rep.RawTurns, rep.ExactUnique, rep.Groups, raw, len(exact), len(groups))
	}
	// Pass 4 of alpha writes a comment more: its steps 3 and 4 answer the
	// same message with the same draft as pass 1 (only their context holds
	// the longer write), so they are near-duplicates; its step 2 differs in
	// two words of a short draft, below a Jaccard of 0.8 on 5-grams.
	if rep.Clusters != rep.ExactUnique-2 {
		t.Errorf("%d clusters of %d exact-unique pairs; want two near-duplicates folded", rep.Clusters, rep.ExactUnique)
	}
}

// plainNormalize states the normal form for the fixture's texts without the
// package: line endings, trailing space, blank-line runs, durations and
// timestamps.
func plainNormalize(s string) string {
	var lines []string
	for _, l := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n") {
		l = strings.TrimRight(l, " \t")
		var words []string
		for _, w := range strings.Split(l, " ") {
			switch {
			case strings.HasSuffix(w, "s") && strings.HasPrefix(w, "0.") && len(w) == 6:
				w = "<dur>"
			case strings.HasPrefix(w, "2026-") && strings.HasSuffix(w, "Z."):
				w = "<time>."
			}
			words = append(words, w)
		}
		lines = append(lines, strings.Join(words, " "))
	}
	s = strings.Join(lines, "\n")
	for strings.Contains(s, "\n\n\n") {
		s = strings.ReplaceAll(s, "\n\n\n", "\n\n")
	}
	return strings.Trim(s, "\n")
}

func TestRunJSON(t *testing.T) {
	var out bytes.Buffer
	if _, err := dedupe.Run(context.Background(), fixture(t), dedupe.Options{JSON: true}, &out); err != nil {
		t.Fatal(err)
	}
	var rep dedupe.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out.String())
	}
	if rep.RawTurns == 0 || rep.VarietyRatio <= 0 || len(rep.ByGroup) != 3 {
		t.Fatalf("report %+v", rep)
	}
}

func TestRunNoTraces(t *testing.T) {
	_, err := dedupe.Run(context.Background(), t.TempDir(), dedupe.Options{}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "no trace files") {
		t.Fatalf("error %v, want one that says there are no trace files", err)
	}
}

func TestSentence(t *testing.T) {
	tests := []struct {
		name string
		f    dedupe.Figures
		want string
	}{
		{"low", dedupe.Figures{RawTurns: 212, Clusters: 31, Groups: 15, VarietyRatio: 31.0 / 212}, "60 runs gave 212 turns but 31 distinct pairs, from 15 cases: collect on more repositories, not more passes."},
		{"enough", dedupe.Figures{RawTurns: 10, Clusters: 9, Groups: 3, VarietyRatio: 0.9}, ""},
		{"nothing", dedupe.Figures{}, ""},
	}
	for _, tt := range tests {
		if got := dedupe.Sentence(60, tt.f, true); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// Runs whose ids interleave their groups (ids do not name their case) are
// read group by group, and counted as when they came in order.
func TestRunGroupsInterleavedRunIDs(t *testing.T) {
	dir := t.TempDir()
	run := func(id, c string, pass int, draft string) dedupetest.Run {
		return dedupetest.Run{ID: id, Case: c, Tier: 1, Pass: pass, Verdict: "worked", Turns: []dedupetest.Turn{
			{Draft: "READ f.py", Verb: "READ", Result: "f.py is empty"},
			{Draft: draft, Verb: "WRITE", Result: "Wrote f.py."},
		}}
	}
	for _, r := range []dedupetest.Run{
		run("r1", "beta", 1, writeF),
		run("r2", "alpha", 1, writeF),
		run("r3", "beta", 2, writeF),
		run("r4", "alpha", 2, "WRITE f.py\n```python\ndef f(xs):\n    return sum(xs)\n```"),
		run("r5", "beta", 3, writeF),
	} {
		if _, err := dedupetest.Write(dir, r); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := dedupe.Run(context.Background(), dir, dedupe.Options{JSON: true}, new(bytes.Buffer))
	if err != nil {
		t.Fatal(err)
	}
	// beta: READ and WRITE, three copies each; alpha: one READ pair, two
	// WRITE pairs.
	want := map[string][3]int{"alpha": {4, 3, 3}, "beta": {6, 2, 2}}
	for _, g := range rep.ByGroup {
		if w := want[g.Group]; [3]int{g.RawTurns, g.ExactUnique, g.Clusters} != w {
			t.Errorf("group %s: %d turns, %d exact-unique, %d clusters; want %v", g.Group, g.RawTurns, g.ExactUnique, g.Clusters, w)
		}
	}
	if rep.RawTurns != 10 || rep.ExactUnique != 5 || rep.Groups != 2 {
		t.Fatalf("report %+v", rep.Figures)
	}
}
