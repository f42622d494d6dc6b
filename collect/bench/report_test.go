package bench

import (
	"bytes"
	_ "embed"
	"flag"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pyharness/pyharness/schemas"
)

var update = flag.Bool("update", false, "rewrite report.schema.json")

// reportSchema is the JSON Schema of `pyharness bench --json`, published as
// collect/bench/report.schema.json.
//
//go:embed report.schema.json
var reportSchema []byte

func TestReportSchemaMatchesGoTypes(t *testing.T) {
	got, err := generateReportSchema()
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		os.WriteFile("report.schema.json", got, 0o644)
		return
	}
	if !bytes.Equal(got, reportSchema) {
		t.Fatal("bench/report.schema.json is out of date: go test ./collect/bench -run TestReportSchemaMatchesGoTypes -update")
	}
}

func outcome(c string, tier, pass int, verdict schemas.Verdict, class schemas.FailureClass) Outcome {
	o := Outcome{Case: c, Tier: tier, Pass: pass, Verdict: verdict, FailureClass: class, ModelSteps: 3, Writes: []schemas.Write{{Path: "x.py", Added: 1}}}
	if class == schemas.FailWroteNothing {
		o.Writes = nil
	}
	return o
}

func TestResolutionStatement(t *testing.T) {
	tests := []struct {
		name   string
		totals []int // worked per pass, of 3 cases
		want   string
		gap    int
	}{
		{"identical passes", []int{2, 2, 2}, "This sample resolves a gap of 1 case(s) or more. Identical code scored 2–2 across 3 passes, so a difference of 0 or fewer is noise", 1},
		{"spread of one", []int{1, 2, 2, 1, 2}, "This sample resolves a gap of 2 case(s) or more. Identical code scored 1–2 across 5 passes, so a difference of 1 or fewer is noise and must not be reported as a result.", 2},
		{"spread capped at the cases", []int{0, 3}, "resolves a gap of 3 case(s) or more. Identical code scored 0–3 across 2 passes", 3},
		{"one pass", []int{2}, "no resolution can be computed", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var runs []Outcome
			for p, worked := range tt.totals {
				for c := 0; c < 3; c++ {
					v, class := schemas.VerdictFailed, schemas.FailDidNotDoTheJob
					if c < worked {
						v, class = schemas.VerdictWorked, ""
					}
					runs = append(runs, outcome(string(rune('a'+c)), 1, p+1, v, class))
				}
			}
			// An error run is in no total.
			runs = append(runs, Outcome{Case: "a", Tier: 1, Pass: 1, Verdict: schemas.VerdictError})
			r := NewReport(runs, 3, len(tt.totals))
			if !strings.Contains(r.Resolution.Statement, tt.want) {
				t.Errorf("statement %q does not say %q", r.Resolution.Statement, tt.want)
			}
			if r.Resolution.Gap != tt.gap {
				t.Errorf("gap %d, want %d", r.Resolution.Gap, tt.gap)
			}
			if r.Resolution.Computed && (r.Resolution.BootstrapLow > r.Resolution.BootstrapHigh ||
				r.Resolution.BootstrapLow < float64(r.Resolution.Min) || r.Resolution.BootstrapHigh > float64(r.Resolution.Max)) {
				t.Errorf("bootstrap interval %.2f–%.2f outside the totals %d–%d", r.Resolution.BootstrapLow, r.Resolution.BootstrapHigh, r.Resolution.Min, r.Resolution.Max)
			}
			if r.NotJudged.Error != 1 {
				t.Errorf("not judged %+v, want the error run counted apart", r.NotJudged)
			}
		})
	}
}

func TestFailureTableAndTiers(t *testing.T) {
	runs := []Outcome{
		outcome("a", 1, 1, schemas.VerdictWorked, ""),
		outcome("b", 1, 1, schemas.VerdictFailed, schemas.FailWroteNothing),
		outcome("a", 1, 2, schemas.VerdictWorked, ""),
		outcome("b", 1, 2, schemas.VerdictFailed, schemas.FailWrongThing),
		outcome("c", 2, 1, schemas.VerdictFailed, schemas.FailDidNotDoTheJob),
		outcome("c", 2, 2, schemas.VerdictWorked, ""),
		{Case: "c", Tier: 2, Pass: 3, Verdict: schemas.VerdictCancelled},
	}
	runs[1].ClaimedDone = true
	runs[4].ClaimedDone = true
	r := NewReport(runs, 3, 2)
	f := r.Failures
	if f.Worked != 3 || f.Failed != 3 || f.WroteNothing != 1 || f.WrongThing != 1 || f.DidNotDoTheJob != 1 || f.ClaimedDone != 2 || f.ClaimedDoneNoop != 1 {
		t.Errorf("failure table %+v", f)
	}
	if len(r.Tiers) != 2 || r.Tiers[0].Worked != 2 || r.Tiers[0].Judged != 4 || r.Tiers[0].Weakest != "b" || r.Tiers[0].WeakestWorked != 0 {
		t.Errorf("tiers %+v", r.Tiers)
	}
	if r.NotJudged.Cancelled != 1 {
		t.Errorf("not judged %+v", r.NotJudged)
	}
	var buf bytes.Buffer
	r.WriteText(&buf)
	for _, want := range []string{"1 · one small component", "2 / 4", "b 0/2", "1 not judged: 0 error, 1 cancelled", "ended by claiming DONE", "1 of them wrote nothing"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, buf.String())
		}
	}
}

func TestCompare(t *testing.T) {
	mk := func(differ int) ([]Outcome, []Outcome) {
		var a, b []Outcome
		for c := 0; c < 15; c++ {
			for p := 1; p <= 5; p++ {
				id := string(rune('a' + c))
				a = append(a, outcome(id, 1, p, schemas.VerdictWorked, ""))
				v, class := schemas.VerdictWorked, schemas.FailureClass("")
				if c < differ {
					v, class = schemas.VerdictFailed, schemas.FailDidNotDoTheJob
				}
				b = append(b, outcome(id, 1, p, v, class))
			}
		}
		return a, b
	}
	a, b := mk(1)
	if c := Compare("A", a, "B", b, 0.05); c.Resolved || !strings.HasPrefix(c.Sentence, "within the noise") || c.OnlyA != 5 {
		t.Errorf("one case apart: %+v", c)
	}
	a, b = mk(6)
	if c := Compare("A", a, "B", b, 0.05); !c.Resolved || !strings.HasPrefix(c.Sentence, "resolved") || c.P >= 0.001 {
		t.Errorf("six cases apart: %+v", c)
	}
	if p := ExactMcNemar(0, 0); p != 1 {
		t.Errorf("no discordant pairs: p = %v", p)
	}
	if p := ExactMcNemar(0, 5); p < 0.0624 || p > 0.0626 {
		t.Errorf("0 vs 5: p = %v, want 0.0625", p)
	}
}

// Turns cut or refused by the context are counted in the report, by turn
// and by run, and the header says the context and its warning.
func TestReportCountsContextLimits(t *testing.T) {
	c := &schemas.ContextSizes{Requested: 8192, Sent: true, Trained: 4096, Effective: 4096, Source: schemas.ContextFromTrained}
	runs := []Outcome{
		outcome("a", 1, 1, schemas.VerdictWorked, ""),
		outcome("b", 1, 1, schemas.VerdictFailed, schemas.FailWroteNothing),
		outcome("c", 1, 1, schemas.VerdictWorked, ""),
	}
	for i := range runs {
		runs[i].Backend, runs[i].Model, runs[i].Context = "ollama", "tiny", c
	}
	runs[0].ContextFull, runs[0].ContextOverflow = 2, 1
	runs[1].ContextFull, runs[1].ContextTruncated = 1, 3
	r := NewReport(runs, 3, 1)
	want := ContextLimits{Full: 3, FullRuns: 2, Truncated: 3, TruncatedRuns: 1, Overflow: 1, OverflowRuns: 1}
	if r.Limits != want {
		t.Errorf("limits %+v, want %+v", r.Limits, want)
	}
	var buf bytes.Buffer
	r.WriteText(&buf)
	for _, line := range []string{
		"Context: requested 8192, trained 4096, effective 4096 (trained)",
		"warning: --num-ctx 8192 is above the model's trained context 4096",
		"Context limits: 3 replies cut by a full context (in 2 runs), 3 prompts the server cut (in 1 runs), 1 prompts it refused as too long (in 1 runs)",
	} {
		if !strings.Contains(buf.String(), line) {
			t.Errorf("text lacks %q:\n%s", line, buf.String())
		}
	}
}

// A long failure reason in a language written with multi-byte characters
// is cut between characters: the table stays valid UTF-8.
func TestReportCutsWhyBetweenCharacters(t *testing.T) {
	o := outcome("a", 1, 1, schemas.VerdictFailed, schemas.FailDidNotDoTheJob)
	o.Why = strings.Repeat("é", 69) + "日本語のテスト"
	var b bytes.Buffer
	NewReport([]Outcome{o}, 1, 1).WriteText(&b)
	if !utf8.Valid(b.Bytes()) {
		t.Fatalf("the report is not valid UTF-8:\n%s", b.String())
	}
	if want := strings.Repeat("é", 69) + "…"; !strings.Contains(b.String(), want) {
		t.Errorf("the reason is not cut to 70 characters (%q):\n%s", want, b.String())
	}
}
