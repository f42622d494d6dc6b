package transcript

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/schemas/trace"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const fixtures = "../../classify/testdata/traces"

func TestFind(t *testing.T) {
	tests := []struct {
		name        string
		arg         string
		wantID      string
		wantAttempt int
		wantEarlier int
		wantErr     string
	}{
		{name: "an id", arg: "bench-initials-p1-9b170d0ba35c", wantID: "bench-initials-p1-9b170d0ba35c", wantAttempt: 1},
		{name: "a unique prefix", arg: "bench-initials-p4", wantID: "bench-initials-p4-59a3dd8961a6", wantAttempt: 1},
		{name: "the last attempt, the first set aside", arg: "dogfood-cli-flag", wantID: "dogfood-cli-flag", wantAttempt: 2, wantEarlier: 1},
		{name: "a file", arg: fixtures + "/runs/dogfood-cli-flag.attempt-2.jsonl", wantID: "dogfood-cli-flag", wantAttempt: 2, wantEarlier: 1},
		{name: "an ambiguous prefix", arg: "bench-initials", wantErr: "\"bench-initials\" names 2 runs; say which:\n  bench-initials-p1-9b170d0ba35c\n  bench-initials-p4-59a3dd8961a6"},
		{name: "a prefix of many", arg: "bench-", wantErr: `… and 10 more`},
		{name: "a missing id", arg: "nosuch", wantErr: `no run "nosuch" in ../../classify/testdata/traces/runs (it holds 34 run(s))`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Find(t.Context(), fixtures, tt.arg)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Find(%q) = %v, want an error holding %q", tt.arg, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if f.File.RunID != tt.wantID || f.File.Attempt != tt.wantAttempt || f.Earlier != tt.wantEarlier {
				t.Errorf("Find(%q) = %s attempt %d, %d earlier; want %s attempt %d, %d earlier", tt.arg, f.File.RunID, f.File.Attempt, f.Earlier, tt.wantID, tt.wantAttempt, tt.wantEarlier)
			}
		})
	}
}

func TestFindCase(t *testing.T) {
	f, err := FindCase(t.Context(), fixtures, "initials", 4)
	if err != nil || f.File.RunID != "bench-initials-p4-59a3dd8961a6" {
		t.Errorf("FindCase(initials, 4) = %s, %v", f.File.RunID, err)
	}
	_, err = FindCase(t.Context(), fixtures, "initials", 0)
	var amb *AmbiguousError
	if !errors.As(err, &amb) || len(amb.Matches) != 2 || !strings.Contains(amb.Matches[0], "(pass 1, ") {
		t.Errorf("FindCase(initials) = %v, want the two passes listed", err)
	}
	_, err = FindCase(t.Context(), fixtures, "initials", 3)
	var nf *notFoundError
	if !errors.As(err, &nf) || nf.Extra != "" {
		t.Errorf("FindCase(initials, 3) = %v, want not found with no hint (the case is there)", err)
	}
	_, err = FindCase(t.Context(), fixtures, "no-such-case", 0)
	if !errors.As(err, &nf) || !strings.Contains(nf.Error(), `no run of the directory is of case "no-such-case"`) {
		t.Errorf("FindCase(no-such-case) = %v", err)
	}
}

func TestLoadCorrupt(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "adhoc-x.jsonl")
	if err := os.WriteFile(path, []byte("not json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(trace.File{RunID: "adhoc-x", Attempt: 1, Path: path}, 0)
	var ce *corruptError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), path+":1:") {
		t.Errorf("Load = %v, want a CorruptError naming %s:1", err, path)
	}
}

// TestWriteText compares the transcripts of fixture runs with golden files
// (go test -update rewrites them): a legacy run with no turn kinds, and a
// run of a second attempt.
func TestWriteText(t *testing.T) {
	for _, id := range []string{"adhoc-legacy", "dogfood-cli-flag", "bench-fix-offbyone-p1-a721dfb21aa5"} {
		for _, o := range []struct {
			suffix string
			opts   Options
		}{{"", Options{}}, {".full", Options{Full: true, Patch: true}}} {
			t.Run(id+o.suffix, func(t *testing.T) {
				f, err := Find(t.Context(), fixtures, id)
				if err != nil {
					t.Fatal(err)
				}
				r, err := Load(f.File, f.Earlier)
				if err != nil {
					t.Fatal(err)
				}
				var b bytes.Buffer
				if err := WriteText(context.Background(), &b, r, o.opts); err != nil {
					t.Fatal(err)
				}
				golden(t, filepath.Join("testdata", id+o.suffix+".txt"), b.Bytes())
				// Every step is named with its code and outcome.
				for _, turn := range r.Turns {
					re := regexp.MustCompile(`(?m)^step ` + strconv.Itoa(turn.Step) + `\b.*→  ` + regexp.QuoteMeta(strings.TrimSpace(string(turn.Outcome.Status)+" "+string(turn.Outcome.Code))))
					if !re.Match(b.Bytes()) {
						t.Errorf("step %d's line does not say its outcome %s", turn.Step, turn.Outcome.Status)
					}
					if turn.Sent.Code != "" && !strings.Contains(b.String(), string(turn.Sent.Code)) {
						t.Errorf("step %d's code %s is not shown", turn.Step, turn.Sent.Code)
					}
				}
			})
		}
	}
}

func TestCompare(t *testing.T) {
	load := func(id string) *Run {
		f, err := Find(t.Context(), fixtures, id)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Load(f.File, f.Earlier)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	a, b := load("bench-initials-p1"), load("bench-initials-p4")
	if d := firstDivergence(a, a); d.Step != 0 {
		t.Errorf("a run parts from itself at step %d", d.Step)
	}
	d := firstDivergence(a, b)
	if d.Step == 0 {
		t.Fatal("two passes of initials do not part")
	}
	var out bytes.Buffer
	if err := WriteCompare(context.Background(), &out, a, b, CompareOptions{Width: 120}); err != nil {
		t.Fatal(err)
	}
	golden(t, filepath.Join("testdata", "compare-initials.txt"), out.Bytes())
	for _, line := range strings.Split(strings.TrimRight(out.String(), "\n"), "\n") {
		if n := visible(line); n > 120 {
			t.Errorf("a line of %d characters, wider than 120: %q", n, line)
		}
	}
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update rewrites it); got:\n%s", path, got)
	}
}
