package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/schemas"
)

// damagedTraces is a trace directory of 100 runs (four recorded runs, each
// copied 25 times under new run ids) damaged the ways a real collection
// gets damaged: 1% of the lines cut in half (never a file's first or last
// line, so each is an error in the middle of a file), ten runs written by a
// later minor version of the schema (schema_minor one above this build's, fields this build does
// not know), one run without its run_end, and one run id recorded twice —
// attempt 1 by one shard, attempt 2 by another. It returns the directory
// and the "file:line" of every cut line.
func damagedTraces(t *testing.T) (string, []string) {
	t.Helper()
	src := filepath.Join(t.TempDir(), "recorded")
	code, stdout, stderr := runCLI(t, "collect", "--model", "scripted", "--case", "initials", "--case", "fix-offbyone",
		"--passes", "2", "--out", src)
	if code != 0 {
		t.Fatalf("collect: exit %d\n%s\n%s", code, stdout, stderr)
	}
	recorded, err := filepath.Glob(filepath.Join(src, "runs", "*.jsonl"))
	if err != nil || len(recorded) != 4 {
		t.Fatalf("recorded %d traces (%v), want 4", len(recorded), err)
	}
	dir := filepath.Join(t.TempDir(), "damaged")
	runs := filepath.Join(dir, "runs")
	if err := os.MkdirAll(runs, 0o755); err != nil {
		t.Fatal(err)
	}
	type file struct {
		name  string
		lines []string
	}
	var files []*file
	for c := 1; c <= 25; c++ {
		for _, p := range recorded {
			raw, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			id := strings.TrimSuffix(filepath.Base(p), ".jsonl")
			newID := fmt.Sprintf("%s-c%02d", id, c)
			body := strings.ReplaceAll(string(raw), `"run_id":"`+id+`"`, `"run_id":"`+newID+`"`)
			f := &file{name: newID + ".jsonl", lines: strings.Split(strings.TrimSuffix(body, "\n"), "\n")}
			if c <= 10 { // a later minor version
				for i, l := range f.lines {
					var rec map[string]any
					if err := json.Unmarshal([]byte(l), &rec); err != nil {
						t.Fatal(err)
					}
					rec["added_in_a_later_minor"] = map[string]any{"note": "a field this build does not know"}
					if i == 0 {
						rec["schema_minor"] = schemas.SchemaMinor + 1
					}
					b, _ := json.Marshal(rec)
					f.lines[i] = string(b)
				}
			}
			files = append(files, f)
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].name < files[j].name })
	// One run in a hundred lost its run_end.
	noEnd := files[43]
	noEnd.lines = noEnd.lines[:len(noEnd.lines)-1]
	// 1% of the lines, cut in half.
	var cut []string
	n, owed := 0, 0
	for _, f := range files {
		for i := range f.lines {
			if n++; n%100 == 0 {
				owed++ // one more line to cut, at the next line that may be cut
			}
			if owed > 0 && i > 0 && i < len(f.lines)-1 && f != noEnd {
				f.lines[i] = f.lines[i][:len(f.lines[i])/2]
				cut = append(cut, fmt.Sprintf("%s:%d", f.name, i+1))
				owed--
			}
		}
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(runs, f.name), []byte(strings.Join(f.lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The same run recorded again by another shard, as its attempt 2.
	again := files[60]
	var start map[string]any
	if err := json.Unmarshal([]byte(again.lines[0]), &start); err != nil {
		t.Fatal(err)
	}
	start["attempt"] = 2
	b, _ := json.Marshal(start)
	lines := append([]string{string(b)}, again.lines[1:]...)
	name := strings.TrimSuffix(again.name, ".jsonl") + ".attempt-2.jsonl"
	if err := os.WriteFile(filepath.Join(runs, name), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if len(cut) < 5 {
		t.Fatalf("only %d lines cut of %d", len(cut), n)
	}
	t.Logf("%d runs, %d lines, %d cut: %v", len(files), n, len(cut), cut)
	return dir, cut
}

// The "inputs to the pipeline" row of the fault matrix: each command that
// reads traces — validate, stats, classify, export, dedupe — reads a
// damaged directory to the end, names what it could (file and line), and
// processes every good record; and none of them takes an empty directory
// for an empty result.
func TestPipelineOnDamagedTraces(t *testing.T) {
	dir, cut := damagedTraces(t)
	noEnd := "incomplete run"
	tests := []struct {
		name     string
		args     []string
		wantCode int
		// wantCut says every cut line is named as file:line in the output.
		wantCut bool
		want    []string
		// wantFiles are files the command must have written (under its --out).
		wantFiles []string
	}{
		{
			name: "validate", args: []string{"validate", dir}, wantCode: 1, wantCut: true,
			want: []string{noEnd, "101 file(s)", fmt.Sprintf("%d with errors", len(cut))},
		},
		{
			name: "stats", args: []string{"stats", "--in", dir}, wantCut: true,
			want: []string{"100 run(s) (1 earlier attempt(s) set aside)", noEnd, "every good record was read"},
		},
		{
			name: "classify", args: []string{"classify", "--in", dir, "--out", "OUT"}, wantCut: true,
			want: []string{"runs: 100 found (1 earlier attempt(s) set aside)", "every good record was kept"},
		},
		{
			name: "export", args: []string{"export", "--in", dir, "--out", "OUT", "--include-scripted"}, wantCut: true,
			want:      []string{"runs read: 100 (1 earlier attempts set aside)", "1 incomplete", fmt.Sprintf("%d trace file(s) have bad lines", len(cut))},
			wantFiles: []string{"train.jsonl", "valid.jsonl"},
		},
		{
			name: "dedupe", args: []string{"dedupe", "--in", dir}, wantCut: true,
			want: []string{"100 runs (1 earlier attempts set aside)", fmt.Sprintf("%d trace file(s) have bad lines", len(cut))},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			args := make([]string, len(tt.args))
			for i, a := range tt.args {
				args[i] = strings.ReplaceAll(a, "OUT", out)
			}
			code, stdout, stderr := runCLI(t, args...)
			all := stdout + stderr
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d\n%s", code, tt.wantCode, all)
			}
			if tt.wantCut {
				for _, c := range cut {
					if !strings.Contains(all, c) {
						t.Errorf("the cut line %s is not named", c)
					}
				}
			}
			for _, w := range tt.want {
				if !strings.Contains(all, w) {
					t.Errorf("output does not say %q:\n%s", w, all)
				}
			}
			for _, f := range tt.wantFiles {
				if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
					t.Errorf("%s was not written, or is empty (%v)", f, err)
				}
			}
		})
	}
}

// A run recorded under two file names (a shard's copy renamed on merge)
// is named by validate: the file's name and the run id it holds disagree.
func TestValidateNamesARunRecordedTwice(t *testing.T) {
	src := filepath.Join(t.TempDir(), "recorded")
	if code, stdout, stderr := runCLI(t, "collect", "--model", "scripted", "--case", "initials", "--passes", "1", "--out", src); code != 0 {
		t.Fatalf("collect: exit %d\n%s\n%s", code, stdout, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(src, "runs", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("%d traces", len(files))
	}
	raw, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	copyName := strings.TrimSuffix(filepath.Base(files[0]), ".jsonl") + "-shard2.jsonl"
	if err := os.WriteFile(filepath.Join(src, "runs", copyName), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ := runCLI(t, "validate", src)
	if code != 1 || !strings.Contains(stdout, copyName+":1: error: field \"run_id\"") {
		t.Errorf("exit %d; want the copy named at line 1:\n%s", code, stdout)
	}
}

// An empty directory is an error that says there is nothing to read, for
// every command that reads traces.
func TestPipelineOnAnEmptyDirectory(t *testing.T) {
	empty := t.TempDir()
	tests := []struct {
		name string
		args []string
	}{
		{"validate", []string{"validate", empty}},
		{"stats", []string{"stats", "--in", empty}},
		{"classify", []string{"classify", "--in", empty, "--out", "OUT"}},
		{"export", []string{"export", "--in", empty, "--out", "OUT"}},
		{"dedupe", []string{"dedupe", "--in", empty}},
		{"report", []string{"report", "--in", empty, "--out", "OUT"}},
		{"show --last", []string{"show", "--in", empty, "--last"}},
		{"show an id", []string{"show", "--in", empty, "adhoc-1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			for i, a := range tt.args {
				tt.args[i] = strings.ReplaceAll(a, "OUT", out)
			}
			code, stdout, stderr := runCLI(t, tt.args...)
			if code == 0 || !strings.Contains(stderr, "no trace files") || !strings.Contains(stderr, empty) {
				t.Errorf("exit %d; want an error naming %s and saying it holds no trace files\n%s%s", code, empty, stdout, stderr)
			}
		})
	}
}
