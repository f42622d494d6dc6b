package export_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/classify"
	"github.com/pyharness/pyharness/dedupe"
	"github.com/pyharness/pyharness/dedupe/dedupetest"
	"github.com/pyharness/pyharness/export"
	"github.com/pyharness/pyharness/schemas"
)

// On the fixture (secrets in a repository's environment file and in
// messages, a native tool call, scripted, incomplete and error runs),
// every format and the options that change what the first pass reads give
// the same files whether the first pass reads classify's stored facts
// (Options.Dataset) or the traces.
func TestExportOnClassifyFactsIsTheSame(t *testing.T) {
	in := writeFixture(t)
	// A secret assigned only in a run the filters leave out, and shown
	// bare in a run exported: learned from the stored facts, it is
	// redacted as when read from the trace.
	const leftOutSecret = "zebra-lantern-quartz-77"
	for _, r := range []dedupetest.Run{
		{ID: "bench-delta-p1-f00000000001", Case: "delta", Pass: 1, Verdict: schemas.VerdictError, Turns: []dedupetest.Turn{
			{Draft: "WRITE .env\n```\nSERVICE_PASSWORD=" + leftOutSecret + "\n```", Verb: "WRITE", Path: ".env"},
		}},
		{ID: "bench-delta-p2-f00000000002", Case: "delta", Pass: 2, Verdict: schemas.VerdictWorked, Turns: []dedupetest.Turn{
			{Draft: "RUN tests", Verb: "RUN", Result: "connecting with " + leftOutSecret + "\nRan 1 test in 0.001s\n\nOK"},
			{Draft: "DONE tests pass", Verb: "DONE", Status: schemas.StatusStopped},
		}},
	} {
		if _, err := dedupetest.Write(in, r); err != nil {
			t.Fatal(err)
		}
	}
	ds := filepath.Join(t.TempDir(), "dataset")
	if _, err := classify.Update(t.Context(), in, ds, dedupe.Deriver(), export.Deriver()); err != nil {
		t.Fatal(err)
	}
	cases := map[string]func(*export.Options){
		"jsonl":               func(*export.Options) {},
		"parquet":             func(o *export.Options) { o.Format = export.FormatParquet },
		"dpo":                 func(o *export.Options) { o.Format = export.FormatDPO },
		"include scripted":    func(o *export.Options) { o.IncludeScripted = true },
		"include failed runs": func(o *export.Options) { o.IncludeFailedRuns = true },
		"keep tool calls":     func(o *export.Options) { o.KeepToolCalls = true },
		"as written":          func(o *export.Options) { o.AsWritten = true },
		"kind tool-result":    func(o *export.Options) { o.Kinds = []string{"tool-result"} },
		"tag and model":       func(o *export.Options) { o.Tags, o.Models = []string{"nightly"}, []string{"ollama"} },
	}
	for name, change := range cases {
		t.Run(name, func(t *testing.T) {
			out := t.TempDir()
			opts := export.DefaultOptions()
			opts.In = in
			change(&opts)
			var sums [2]*export.Summary
			for k, dataset := range []string{"", ds} {
				opts.Out, opts.Dataset = filepath.Join(out, fmt.Sprint(k)), dataset
				var err error
				sums[k], err = export.Run(t.Context(), opts, io.Discard)
				var nothing *export.NothingError
				if err != nil && !errors.As(err, &nothing) {
					t.Fatal(err)
				}
			}
			if sums[1].FromStore == 0 {
				t.Fatalf("no run from classify's facts")
			}
			sums[0].Out, sums[1].Out = "", ""
			a, _ := json.Marshal(sums[0])
			b, _ := json.Marshal(sums[1])
			if string(a) != string(b) {
				t.Errorf("summaries differ:\n%s\n%s", a, b)
			}
			for _, f := range []string{"train.jsonl", "valid.jsonl", "meta.jsonl", "README.md", "data/train-00000-of-00001.parquet"} {
				a, errA := os.ReadFile(filepath.Join(out, "0", f))
				b, errB := os.ReadFile(filepath.Join(out, "1", f))
				if (errA == nil) != (errB == nil) || string(a) != string(b) {
					t.Errorf("%s differs on classify's facts", f)
				}
				if strings.Contains(string(b), leftOutSecret) {
					t.Errorf("%s holds the secret value of a run left out", f)
				}
			}
		})
	}
}
