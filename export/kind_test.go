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
	"github.com/pyharness/pyharness/dedupe/dedupetest"
	"github.com/pyharness/pyharness/export"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/trace"
	"github.com/pyharness/pyharness/turnlabel"
)

// stripLabels rewrites every trace of dir without the kind and code of what
// each turn was sent, as a harness that does not record them writes it.
func stripLabels(t *testing.T, dir string) {
	t.Helper()
	files, err := trace.ListFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		var out []byte
		for rec, err := range trace.ReadFile(f.Path) {
			if err != nil {
				t.Fatal(err)
			}
			if rec.Turn != nil {
				rec.Turn.Sent.Kind, rec.Turn.Sent.Code = "", ""
			}
			line, err := schemas.EncodeRecord(rec)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, line...)
		}
		if err := os.WriteFile(f.Path, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// On traces recorded without kinds or codes, export --kind K selects the
// turns classify labels K (by its text rules) and no other, and every row's
// kind and code are classify's: one labelling, used by both. (Filtering on
// the recorded kind, every turn's is empty and --kind selects nothing.)
func TestKindFilterAgreesWithClassify(t *testing.T) {
	in := writeFixture(t)
	stripLabels(t, in)
	ds := filepath.Join(t.TempDir(), "dataset")
	if _, err := classify.Update(t.Context(), in, ds); err != nil {
		t.Fatal(err)
	}
	type label struct {
		kind schemas.Kind
		code schemas.Code
	}
	labels := map[string]label{} // by run id and step
	for r, err := range classify.Turns(t.Context(), ds) {
		if err != nil {
			t.Fatal(err)
		}
		if r.Row.LabelFrom != turnlabel.FromRules {
			t.Fatalf("turn %s/%d labelled from %q: the trace still records its kind", r.Row.RunID, r.Row.Step, r.Row.LabelFrom)
		}
		labels[fmt.Sprintf("%s/%d", r.Row.RunID, r.Row.Step)] = label{r.Row.Kind, r.Row.Code}
	}

	exported := func(kinds []string) (*export.Summary, []export.Meta) {
		t.Helper()
		o := options(in, filepath.Join(t.TempDir(), "out"), export.FormatJSONL)
		o.IncludeScripted, o.IncludeFailedRuns, o.Kinds = true, true, kinds
		sum, err := export.Run(t.Context(), o, io.Discard)
		var nothing *export.NothingError
		if errors.As(err, &nothing) {
			return sum, nil
		}
		if err != nil {
			t.Fatal(err)
		}
		return sum, readMeta(t, o.Out)
	}
	check := func(kind string, rows []export.Meta) {
		t.Helper()
		for _, m := range rows {
			l := labels[fmt.Sprintf("%s/%d", m.RunID, m.Step)]
			if m.Kind != l.kind || m.Code != l.code {
				t.Errorf("turn %s/%d: exported as %s (%q), classified %s (%q)", m.RunID, m.Step, m.Kind, m.Code, l.kind, l.code)
			}
			if kind != "" && string(m.Kind) != kind {
				t.Errorf("--kind %s exported turn %s/%d, which classify labels %s", kind, m.RunID, m.Step, l.kind)
			}
		}
	}
	all, rows := exported(nil)
	check("", rows)
	selected := 0
	for _, kind := range []schemas.Kind{schemas.KindOpening, schemas.KindToolResult, schemas.KindRefusalOrNudge, schemas.KindParseFailure} {
		sum, rows := exported([]string{string(kind)})
		check(string(kind), rows)
		if (kind == schemas.KindOpening || kind == schemas.KindToolResult) && len(rows) == 0 {
			t.Errorf("--kind %s exported nothing: %s", kind, sum.Why)
		}
		selected += sum.Selected
	}
	if selected != all.Selected {
		t.Errorf("the four kinds select %d turns together, no --kind %d: a turn is in no kind, or in two", selected, all.Selected)
	}
}

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
	if _, err := classify.Update(t.Context(), in, ds); err != nil {
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
