package harness

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

// The disk rows of the fault matrix that need no process of their own: an
// output directory the run cannot write. Either the run does not start
// (nothing half-written), or it stops with an error that names the path,
// and every record written before stays readable, so that collect --resume
// redoes it (collect's TestDiskFullThenResume runs out of room mid-run).
func TestUnwritableOutput(t *testing.T) {
	tests := []struct {
		name string
		// spoil makes part of OUT unwritable before the run.
		spoil func(t *testing.T, out string)
		// root marks a row that needs permissions to hold, which root
		// ignores: as root the run must work instead.
		root    bool
		wantErr []string
		// wantRecords is how many records the trace keeps (-1: no trace).
		wantRecords int
	}{
		{
			name:        "the trace directory is a file",
			spoil:       func(t *testing.T, out string) { writeTree(t, out, map[string]string{"runs": "not a directory\n"}) },
			wantErr:     []string{"create trace directory", filepath.Join("runs")},
			wantRecords: -1,
		},
		{
			name: "the trace directory is read-only",
			spoil: func(t *testing.T, out string) {
				if err := os.MkdirAll(filepath.Join(out, "runs"), 0o555); err != nil {
					t.Fatal(err)
				}
				os.Chmod(filepath.Join(out, "runs"), 0o555)
			},
			root:        true,
			wantErr:     []string{"create trace", "permission denied"},
			wantRecords: -1,
		},
		{
			name:        "the patch directory cannot be made at the end of the run",
			spoil:       func(t *testing.T, out string) { writeTree(t, out, map[string]string{"patches": "not a directory\n"}) },
			wantErr:     []string{"write patch", "patches"},
			wantRecords: 5, // run_start and four turns; run_end never came
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			asRoot := tt.root && os.Geteuid() == 0
			out := t.TempDir()
			tt.spoil(t, out)
			repo := t.TempDir()
			writeTree(t, repo, fixture)
			cfg := Config{RunID: "disk", OutDir: out, Repo: repo, TaskSpec: schemas.TaskSpec{Task: "Add initials(name) to initials.py", Targets: []string{"initials.py"}, Names: []string{"initials"}},
				SuiteTimeout: time.Minute,
				Model:        schemas.Model{Backend: "scripted", Name: "disk"}}
			res, err := Run(context.Background(), cfg, script(t, goodDrafts...))
			if asRoot {
				// Root writes through the mode bits, as the kernel lets
				// it: the run must then simply work and keep its trace,
				// not trip over a check of its own on the bits.
				if err != nil {
					t.Fatalf("as root, a read-only directory is writable, and the run failed: %v", err)
				}
				if _, err := os.Stat(res.TracePath); err != nil {
					t.Errorf("as root the run wrote no trace: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Run returned no error (verdict %s)", res.End.Verdict)
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %q", err, w)
				}
			}
			files, lerr := trace.ListFiles(out)
			if tt.wantRecords < 0 {
				if lerr == nil && len(files) > 0 {
					t.Errorf("a trace was started: %v", files)
				}
				return
			}
			if len(files) != 1 {
				t.Fatalf("%d trace files (%v), want 1", len(files), lerr)
			}
			run, rerr := trace.ReadRun(files[0])
			if rerr != nil {
				t.Errorf("the records written before the failure do not read back: %v", rerr)
			}
			if got := 1 + len(run.Turns); run.Start == nil || got != tt.wantRecords || run.End != nil {
				t.Errorf("the trace holds run_start %v, %d turns, run_end %v; want %d records and no run_end", run.Start != nil, len(run.Turns), run.End != nil, tt.wantRecords)
			}
			checkTraceValid(t, files[0].Path, false)
			if errors.Is(err, os.ErrNotExist) {
				t.Errorf("the error reads as a missing file: %v", err)
			}
		})
	}
}
