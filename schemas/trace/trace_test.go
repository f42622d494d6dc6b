package trace

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/schemas"
)

func writeRun(t *testing.T, dir, runID string) string {
	t.Helper()
	w, err := Create(dir, runID)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range sampleRun(runID) {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return w.Path()
}

func TestWriteReadRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := writeRun(t, dir, "r1")
	var got []schemas.Record
	for rec, err := range ReadFile(path) {
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		got = append(got, rec)
	}
	want := sampleRun("r1")
	if len(got) != len(want) {
		t.Fatalf("read %d records, want %d", len(got), len(want))
	}
	for i := range want {
		a, _ := schemas.EncodeRecord(want[i])
		b, _ := schemas.EncodeRecord(got[i])
		if !bytes.Equal(a, b) {
			t.Errorf("record %d differs:\nwrote %s\nread  %s", i, a, b)
		}
	}
	var conv schemas.Conversation
	for _, r := range got {
		if r.Turn != nil {
			if _, err := conv.Apply(r.Turn); err != nil {
				t.Errorf("prompt rebuilt from deltas does not match its hash: %v", err)
			}
		}
	}
	if n := len(conv.Messages()); n != 4 {
		t.Errorf("rebuilt prompt has %d messages, want 4", n)
	}
}

func TestCreateNeverOverwritesAnAttempt(t *testing.T) {
	dir := t.TempDir()
	p1 := writeRun(t, dir, "r1")
	before, _ := os.ReadFile(p1)
	w, err := Create(dir, "r1")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if w.Attempt() != 2 || filepath.Base(w.Path()) != "r1.attempt-2.jsonl" {
		t.Fatalf("second attempt: got %d at %s", w.Attempt(), w.Path())
	}
	after, _ := os.ReadFile(p1)
	if !bytes.Equal(before, after) {
		t.Fatal("creating a second attempt changed the first attempt's file")
	}
	all, err := list(dir)
	if err != nil {
		t.Fatal(err)
	}
	latest, setAside := all.Latest()
	if latest.Len() != 1 || latest.File(0).Attempt != 2 || setAside != 1 {
		t.Fatalf("latest = %+v, set aside %d; want attempt 2 and 1 set aside", latest.files(), setAside)
	}
}

func TestWriteRefusesAnotherRunsRecord(t *testing.T) {
	w, err := Create(t.TempDir(), "r1")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Write(sampleRun("r2")[0]); err == nil {
		t.Fatal("a record of run r2 was written to the trace of r1")
	}
}

// Bad input: each case gives a clear message with file and line, and every
// good record before it is still read.
func TestReadBadInput(t *testing.T) {
	good := func() string {
		var b strings.Builder
		for _, r := range sampleRun("r1") {
			line, _ := schemas.EncodeRecord(r)
			b.Write(line)
		}
		return b.String()
	}()
	goodLines := strings.SplitAfter(good, "\n")
	tests := []struct {
		name      string
		content   string
		wantGood  int
		wantErr   string // substring of the error, empty for none
		wantLine  int
		wantField string
		warning   bool
	}{
		{name: "empty file", content: "", wantGood: 0},
		{name: "truncated mid-line", content: goodLines[0] + goodLines[1] + goodLines[2][:40],
			wantGood: 2, wantErr: "torn last line", wantLine: 3, warning: true},
		{name: "garbage line in the middle", content: goodLines[0] + "this is not json\n" + goodLines[1] + goodLines[2] + goodLines[3],
			wantGood: 4, wantErr: "invalid JSON", wantLine: 2},
		{name: "wrong type for a field", content: goodLines[0] + `{"type":"turn","run_id":"r1","step":"two"}` + "\n" + goodLines[3],
			wantGood: 2, wantErr: "want int", wantLine: 2, wantField: "step"},
		{name: "unknown major schema", content: strings.Replace(goodLines[0], "pyharness.trace/v1", "pyharness.trace/v9", 1) + goodLines[1],
			wantGood: 0, wantErr: "this build reads pyharness.trace/v1", wantLine: 1, wantField: "schema"},
		{name: "invalid UTF-8", content: goodLines[0] + "{\"type\":\"turn\",\"run_id\":\"r1\xff\xfe\"}\n" + goodLines[1],
			wantGood: 2, wantErr: "not valid UTF-8", wantLine: 2},
		{name: "unknown record type", content: goodLines[0] + `{"type":"banana","run_id":"r1"}` + "\n",
			wantGood: 1, wantErr: "unknown record type", wantLine: 2, wantField: "type"},
		{name: "newer minor with unknown fields is read", content: strings.Replace(goodLines[0], `"schema_minor":0`, `"schema_minor":7,"future":{"x":1}`, 1) + goodLines[1],
			wantGood: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var goodN int
			var errs []error
			for rec, err := range readRecords(strings.NewReader(tt.content), "run.jsonl") {
				if err != nil {
					errs = append(errs, err)
					continue
				}
				if rec.Type() == "" {
					t.Fatal("a record with no type was yielded without an error")
				}
				goodN++
			}
			if goodN != tt.wantGood {
				t.Errorf("read %d good records, want %d (errors: %v)", goodN, tt.wantGood, errs)
			}
			if tt.wantErr == "" {
				if len(errs) > 0 {
					t.Errorf("unexpected errors: %v", errs)
				}
				return
			}
			if len(errs) != 1 {
				t.Fatalf("got %d errors, want 1: %v", len(errs), errs)
			}
			err := errs[0]
			if !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), "run.jsonl:") {
				t.Errorf("error %q does not name the file and say %q", err, tt.wantErr)
			}
			if IsWarning(err) != tt.warning {
				t.Errorf("IsWarning = %v, want %v", IsWarning(err), tt.warning)
			}
			var pe *ParseError
			var te *tornLineError
			switch {
			case errors.As(err, &pe):
				if pe.Line != tt.wantLine || pe.Field != tt.wantField {
					t.Errorf("line %d field %q, want line %d field %q", pe.Line, pe.Field, tt.wantLine, tt.wantField)
				}
			case errors.As(err, &te):
				if te.Line != tt.wantLine {
					t.Errorf("torn line %d, want %d", te.Line, tt.wantLine)
				}
			default:
				t.Errorf("error %T carries no position", err)
			}
		})
	}
}

// TestReadLinesLongerThanTheBuffer reads with a buffer far shorter than
// every line: the records, the bad line and the torn last line come out as
// they do with a buffer that holds the whole file.
func TestReadLinesLongerThanTheBuffer(t *testing.T) {
	var good strings.Builder
	for _, r := range sampleRun("r1") {
		line, _ := schemas.EncodeRecord(r)
		good.Write(line)
	}
	lines := strings.SplitAfter(good.String(), "\n")
	content := lines[0] + "\r\n" + `{"type":"turn","run_id":"r1","step":"two"}` + "\r\n" + lines[1] + lines[2] + lines[3][:len(lines[3])-9]
	summary := func(size int) []string {
		var got []string
		for rec, err := range read(strings.NewReader(content), "run.jsonl", size) {
			if err != nil {
				got = append(got, err.Error())
				continue
			}
			b, _ := schemas.EncodeRecord(rec)
			got = append(got, string(b))
		}
		return got
	}
	want, got := summary(1<<20), summary(16)
	if len(want) != 5 || !strings.Contains(want[1], `run.jsonl:3: field "step"`) || !strings.Contains(want[4], "run.jsonl:6: torn last line") {
		t.Fatalf("with a large buffer: %q", want)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("with a 16-byte buffer:\n%q\nwant\n%q", got, want)
	}
}

// TestPooledReadBuffersAreNotShared reads traces with the pooled read
// buffer the way the pipeline does: one left after its first record, one
// read inside the loop over another. Each must read exactly what was
// written, whatever buffer the pool hands out.
func TestPooledReadBuffersAreNotShared(t *testing.T) {
	dir := t.TempDir()
	a, b := writeRun(t, dir, "ra"), writeRun(t, dir, "rb")
	encoded := func(path string) []string {
		t.Helper()
		var out []string
		for rec, err := range ReadFile(path) {
			if err != nil {
				t.Fatalf("read %s: %v", path, err)
			}
			line, _ := schemas.EncodeRecord(rec)
			out = append(out, string(line))
		}
		return out
	}
	wantA, wantB := encoded(a), encoded(b)
	for range ReadFile(a) {
		break // left early: its buffer goes back to the pool mid-file
	}
	if got := encoded(b); strings.Join(got, "") != strings.Join(wantB, "") {
		t.Errorf("after a reader left early, %s read as\n%q\nwant\n%q", b, got, wantB)
	}
	var gotA []string
	for rec, err := range ReadFile(a) {
		if err != nil {
			t.Fatal(err)
		}
		if got := encoded(b); strings.Join(got, "") != strings.Join(wantB, "") {
			t.Fatalf("read inside the loop over %s, %s read as\n%q\nwant\n%q", a, b, got, wantB)
		}
		line, _ := schemas.EncodeRecord(rec)
		gotA = append(gotA, string(line))
	}
	if strings.Join(gotA, "") != strings.Join(wantA, "") {
		t.Errorf("with another file read inside its loop, %s read as\n%q\nwant\n%q", a, gotA, wantA)
	}
}
