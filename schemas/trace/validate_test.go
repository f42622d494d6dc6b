package trace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/schemas"
)

// The Go types and the published JSON Schema agree: records written from
// the types, every field filled in, validate; a record missing a field the
// types always write does not.
func TestGoTypesValidateAgainstJSONSchema(t *testing.T) {
	v, err := NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := writeRun(t, dir, "r1")
	rep := v.ValidateFile(path)
	if len(rep.Problems) != 0 || rep.Records != 4 || !rep.Complete {
		t.Fatalf("a trace written from the Go types does not validate: %+v", rep)
	}
	// Zero-valued records (nil slices, empty strings) validate too.
	empty := []schemas.Record{
		{RunStart: &schemas.RunStart{RunID: "z", Attempt: 1, Source: "adhoc", Model: schemas.Model{Backend: "ollama"}}},
		{Turn: &schemas.Turn{RunID: "z", Step: 1, Sent: schemas.Sent{Kind: "opening", PromptHash: schemas.PromptHash(nil)}, Outcome: schemas.Outcome{Status: "applied"}}},
		{RunEnd: &schemas.RunEnd{RunID: "z", Verdict: "error", StopReason: "model-error", Steps: 1}},
	}
	w, err := Create(dir, "z")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range empty {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	if rep := v.ValidateFile(w.Path()); len(rep.Problems) != 0 {
		t.Fatalf("zero-valued records do not validate: %+v", rep.Problems)
	}
}

func TestValidateNamesTheFieldAtFault(t *testing.T) {
	v, err := NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	lines := encodeAll(t, sampleRun("r1"))
	tests := []struct {
		name, edit, want string
		line             int
	}{
		{"missing required field", strings.Replace(lines[1], `"model_step":true,`, "", 1), `missing property 'model_step'`, 2},
		{"value outside the enum", strings.Replace(lines[1], `"kind":"opening"`, `"kind":"chitchat"`, 1), `field "sent.kind"`, 2},
		{"bad prompt hash", strings.Replace(lines[2], `"prompt_hash":"sha256:`, `"prompt_hash":"md5:`, 1), `field "sent.prompt_hash"`, 3},
		{"step out of order", strings.Replace(lines[2], `"step":2`, `"step":5`, 1), `field "step": 5 after step 1`, 3},
		{"record of another run", strings.Replace(lines[2], `"run_id":"r1"`, `"run_id":"r9"`, 1), `"r9" in the file of run "r1"`, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mod := append([]string(nil), lines...)
			mod[tt.line-1] = tt.edit
			if mod[tt.line-1] == lines[tt.line-1] {
				t.Fatal("test edit changed nothing")
			}
			path := filepath.Join(t.TempDir(), "r1.jsonl")
			os.WriteFile(path, []byte(strings.Join(mod, "")), 0o644)
			rep := v.ValidateFile(path)
			found := false
			for _, p := range rep.Problems {
				if p.Line == tt.line && p.Severity == severityError && strings.Contains(p.Message, tt.want) {
					found = true
				}
			}
			if !found {
				t.Errorf("want an error at line %d saying %q, got %+v", tt.line, tt.want, rep.Problems)
			}
		})
	}
}

func TestValidateDirectoryOfGoodTornAndGarbage(t *testing.T) {
	v, err := NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeRun(t, dir, "good")
	torn := encodeAll(t, sampleRun("torn"))
	os.WriteFile(filepath.Join(dir, "torn.jsonl"), []byte(torn[0]+torn[1]+torn[2]+torn[3][:30]), 0o644)
	garb := encodeAll(t, sampleRun("garbage"))
	os.WriteFile(filepath.Join(dir, "garbage.jsonl"), []byte(garb[0]+"{{{ not json\n"+garb[1]+garb[2]+garb[3]), 0o644)

	files, err := ListFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*FileReport{}
	for _, f := range files {
		got[f.RunID] = v.ValidateFile(f.Path)
	}
	if r := got["good"]; r.Records != 4 || len(r.Problems) != 0 {
		t.Errorf("good: %+v", r)
	}
	if r := got["torn"]; r.Records != 3 || r.Errors() != 0 || r.Complete ||
		len(r.Problems) != 2 || r.Problems[0].Line != 4 || !strings.Contains(r.Problems[0].Message, "torn last line") {
		t.Errorf("torn: want 3 records, a torn-line warning at line 4 and an incomplete run; got %+v", r)
	}
	if r := got["garbage"]; r.Records != 4 || r.Errors() != 1 || r.Problems[0].Line != 2 {
		t.Errorf("garbage: want 4 records and one error at line 2; got %+v", r)
	}
}

func encodeAll(t *testing.T, recs []schemas.Record) []string {
	t.Helper()
	var out []string
	for _, r := range recs {
		b, err := schemas.EncodeRecord(r)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	return out
}
