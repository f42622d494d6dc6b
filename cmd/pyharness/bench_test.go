package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/pyharness/pyharness/collect/bench"
	"github.com/pyharness/pyharness/schemas"
)

// bench --json validates against collect/bench/report.schema.json and carries the
// same numbers as the text: the text rendered from the decoded JSON is the
// text the command prints.
func TestBenchJSONMatchesSchemaAndText(t *testing.T) {
	dir := t.TempDir()
	args := []string{"bench", "--model", "scripted", "--repeat", "2", "--case", "initials", "--case", "env-flag", "--out", filepath.Join(dir, "a")}
	code, jsonOut, stderr := runCLI(t, append(args, "--json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	schema, err := os.ReadFile(filepath.Join("..", "..", "collect", "bench", "report.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AddResource("report.json", doc)
	sch, err := c.Compile("report.json")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(jsonOut))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("bench --json does not validate: %v", err)
	}
	var rep bench.Report
	if err := json.Unmarshal([]byte(jsonOut), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 4 || !rep.Scripted || rep.Resolution.Statement == "" {
		t.Fatalf("report %+v", rep)
	}
	// The same runs (recorded in a/), read back from their traces, render
	// the same text.
	outcomes, err := bench.ReadOutcomes(t.Context(), filepath.Join(dir, "a"))
	if err != nil {
		t.Fatal(err)
	}
	var fromTraces, fromJSON bytes.Buffer
	bench.NewReport(outcomes, 2, 2).WriteText(&fromTraces)
	rep.WriteText(&fromJSON)
	if fromTraces.String() != fromJSON.String() {
		t.Errorf("text from the JSON:\n%s\ntext from the traces:\n%s", fromJSON.String(), fromTraces.String())
	}
}

// bench compare on two recorded benchmarks: one case apart over five
// passes is within the noise; six cases apart is resolved.
func TestBenchCompareRecorded(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a")
	if code, _, stderr := runCLI(t, "bench", "--model", "scripted", "--repeat", "5", "--tier", "6", "--case", "env-flag", "--case", "venv-python", "--case", "dry-run-flag", "--case", "config-relative-paths", "--out", a); code != 0 {
		t.Fatal(stderr)
	}
	// B is A with every run of some cases worked: what a harness change
	// that fixed those cases would record.
	flip := func(name string, cases ...string) string {
		b := filepath.Join(dir, name)
		os.MkdirAll(filepath.Join(b, "runs"), 0o755)
		files, _ := filepath.Glob(filepath.Join(a, "runs", "*.jsonl"))
		for _, f := range files {
			data, _ := os.ReadFile(f)
			out := data
			for _, c := range cases {
				if bytes.Contains(data, []byte(`"case_id":"`+c+`"`)) {
					lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
					var end schemas.RunEnd
					json.Unmarshal(lines[len(lines)-1], &end)
					end.Verdict, end.FailureClass = schemas.VerdictWorked, ""
					rec, _ := schemas.EncodeRecord(schemas.Record{RunEnd: &end})
					lines[len(lines)-1] = bytes.TrimSpace(rec)
					out = append(bytes.Join(lines, []byte("\n")), '\n')
				}
			}
			os.WriteFile(filepath.Join(b, "runs", filepath.Base(f)), out, 0o644)
		}
		return b
	}
	one := flip("one", "env-flag")
	_, out, _ := runCLI(t, "bench", "compare", a, one)
	if !strings.Contains(out, "within the noise") {
		t.Errorf("one case apart:\n%s", out)
	}
	many := flip("many", "env-flag", "venv-python", "dry-run-flag", "config-relative-paths")
	_, out, _ = runCLI(t, "bench", "compare", a, many)
	if !strings.Contains(out, "\nresolved: ") {
		t.Errorf("every case apart:\n%s", out)
	}
}
