package export_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/pyharness/pyharness/classify"
	"github.com/pyharness/pyharness/classify/dataset"
	"github.com/pyharness/pyharness/classify/turnlabel"
	"github.com/pyharness/pyharness/dedupe"
	"github.com/pyharness/pyharness/export"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
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
	if _, err := classify.Update(t.Context(), in, ds, dedupe.Deriver(), export.Deriver()); err != nil {
		t.Fatal(err)
	}
	type label struct {
		kind schemas.Kind
		code schemas.Code
	}
	labels := map[string]label{} // by run id and step
	for r, err := range dataset.Turns(t.Context(), ds) {
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
