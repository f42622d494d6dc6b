package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/schemas"
)

// A run that stopped stuck is a DPO rejected example and never an SFT
// target (docs/export.md). Collected beside a run that worked on the same
// case: one stuck at its first step is the rejected side of the pair at
// the opening prompt; none of the drafts of a stuck run, not even a READ
// the harness applied, is an SFT row, with --include-failed-runs or
// without.
func TestStuckRunIsRejectedNeverTarget(t *testing.T) {
	dir := t.TempDir()
	const doneNoQuote = "DONE the code is already correct"
	clean := cleanDrafts(t, "initials")[0]
	scripts := map[string][]string{
		"clean":         clean,
		"stuck-at-once": {doneNoQuote, doneNoQuote, doneNoQuote, "RUN tests"},
		"stuck-later":   {"READ README.md", doneNoQuote, doneNoQuote, doneNoQuote, "RUN tests"},
	}
	ids := map[string]string{}
	for name, drafts := range scripts {
		writeFiles(t, dir, map[string]string{name + ".jsonl": scriptLines(t, drafts)})
		out := filepath.Join(dir, name)
		code, stdout, stderr := runCLI(t, "collect", "--case", "initials", "--passes", "1", "--model", "scripted:"+filepath.Join(dir, name+".jsonl"), "--out", out)
		if code != 0 {
			t.Fatalf("collect %s: exit %d\n%s\n%s", name, code, stdout, stderr)
		}
		end := runEnd(t, out)
		ids[name] = end.RunID
		if name != "clean" && end.StopReason != schemas.StopStuck {
			t.Fatalf("%s stopped %s after %d steps, want stuck", name, end.StopReason, end.Steps)
		}
		// Shards merge by copying directories.
		b, err := os.ReadFile(traceOf(t, out))
		if err != nil {
			t.Fatal(err)
		}
		writeFiles(t, filepath.Join(dir, "traces", "runs"), map[string]string{end.RunID + ".jsonl": string(b)})
		if name != "clean" {
			writeFiles(t, filepath.Join(dir, "stuck-only", "runs"), map[string]string{end.RunID + ".jsonl": string(b)})
		}
	}
	stuck := map[string]bool{ids["stuck-at-once"]: true, ids["stuck-later"]: true}

	type meta struct {
		RunID         string `json:"run_id"`
		Step          int    `json:"step"`
		RejectedRunID string `json:"rejected_run_id"`
		RejectedStep  int    `json:"rejected_step"`
	}
	metas := func(out string) []meta {
		t.Helper()
		var ms []meta
		for _, line := range jsonLines(t, filepath.Join(out, "meta.jsonl")) {
			var m meta
			if err := json.Unmarshal(line, &m); err != nil {
				t.Fatal(err)
			}
			ms = append(ms, m)
		}
		return ms
	}
	for _, extra := range [][]string{nil, {"--include-failed-runs"}} {
		out := filepath.Join(dir, "sft"+strings.Join(extra, ""))
		code, stdout, stderr := runCLI(t, append([]string{"export", "--in", filepath.Join(dir, "traces"), "--format", "jsonl", "--include-scripted", "--out", out}, extra...)...)
		if code != 0 {
			t.Fatalf("export %v: exit %d\n%s\n%s", extra, code, stdout, stderr)
		}
		rows := metas(out)
		if len(rows) == 0 {
			t.Fatalf("export %v: no rows; the worked run's drafts should be there\n%s", extra, stdout)
		}
		for _, m := range rows {
			if stuck[m.RunID] {
				t.Errorf("export %v: SFT row from the stuck run %s, step %d", extra, m.RunID, m.Step)
			}
		}
		if !strings.Contains(stdout, "stopped stuck") {
			t.Errorf("export %v does not say why the stuck run was left out:\n%s", extra, stdout)
		}
	}

	// Alone, the stuck runs give no SFT pair: the READ one of them applied
	// is no target either (beside the worked run, near-duplicate dedupe
	// could hide it behind the worked run's first READ).
	code, stdout, stderr := runCLI(t, "export", "--in", filepath.Join(dir, "stuck-only"), "--format", "jsonl", "--include-scripted", "--include-failed-runs", "--out", filepath.Join(dir, "sft-stuck"))
	if code != exitFailure || !strings.Contains(stderr, "nothing exported") || !strings.Contains(stdout, "2 stopped stuck") {
		t.Errorf("export of the stuck runs alone: exit %d, want nothing exported, both left out as stuck\n%s\n%s", code, stdout, stderr)
	}

	out := filepath.Join(dir, "dpo")
	code, stdout, stderr = runCLI(t, "export", "--in", filepath.Join(dir, "traces"), "--format", "dpo", "--include-scripted", "--out", out)
	if code != 0 {
		t.Fatalf("export dpo: exit %d\n%s\n%s", code, stdout, stderr)
	}
	pairs := metas(out)
	found := false
	for _, m := range pairs {
		if stuck[m.RunID] {
			t.Errorf("the stuck run %s is the chosen side of a pair (step %d)", m.RunID, m.Step)
		}
		found = found || m.RejectedRunID == ids["stuck-at-once"] && m.RejectedStep == 1 && m.RunID == ids["clean"] && m.Step == 1
	}
	if !found {
		t.Errorf("no pair rejects the stuck run's DONE at step 1 for the worked run's READ: %+v", pairs)
	}
	var row struct {
		Rejected []schemas.Message `json:"rejected"`
	}
	train := jsonLines(t, filepath.Join(out, "train.jsonl"))
	if valid := filepath.Join(out, "valid.jsonl"); len(train) == 0 {
		train = jsonLines(t, valid)
	}
	hasDone := false
	for _, line := range train {
		if err := json.Unmarshal(line, &row); err != nil {
			t.Fatal(err)
		}
		hasDone = hasDone || len(row.Rejected) == 1 && row.Rejected[0].Content == doneNoQuote
	}
	if !hasDone {
		t.Errorf("no DPO row has the stuck draft %q as its rejected answer", doneNoQuote)
	}
}
