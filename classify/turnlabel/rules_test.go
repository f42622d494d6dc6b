package turnlabel

import (
	"flag"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// paraphrase is one entry of testdata/paraphrases.yaml.
type paraphrase struct {
	Kind  schemas.Kind `yaml:"kind"`
	Code  schemas.Code `yaml:"code"`
	Texts []string     `yaml:"texts"`
}

func loadParaphrases(t *testing.T, file string) []paraphrase {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	var ps []paraphrase
	if err := yaml.Unmarshal(b, &ps); err != nil {
		t.Fatalf("read paraphrases: %v", err)
	}
	return ps
}

var kinds = []schemas.Kind{schemas.KindOpening, schemas.KindToolResult, schemas.KindRefusalOrNudge, schemas.KindParseFailure}

// agreement tallies the rules' labels against the recorded ones.
type agreement struct {
	name    string
	matrix  map[[2]schemas.Kind]int // [recorded, rules] kind
	n, kind int
	coded   int // turns recorded as refusal, nudge or parse failure
	code    int // of those, the rules gave the recorded code
	misses  []string
}

func newAgreement(name string) *agreement {
	return &agreement{name: name, matrix: map[[2]schemas.Kind]int{}}
}

func (a *agreement) add(want, got Label, text string) {
	a.n++
	a.matrix[[2]schemas.Kind{want.Kind, got.Kind}]++
	if want.Kind == got.Kind {
		a.kind++
	}
	if want.Code != "" {
		a.coded++
		if got.Code == want.Code {
			a.code++
		}
	}
	if want.Kind != got.Kind || want.Code != got.Code {
		a.misses = append(a.misses, fmt.Sprintf("%s/%s read as %s/%s: %q", want.Kind, want.Code, got.Kind, got.Code, firstLine(text)))
	}
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	return s
}

// table writes the confusion matrix as a Markdown table.
func (a *agreement) table(b *strings.Builder) {
	fmt.Fprintf(b, "%s: %d turns; kinds agree on %d (%.1f%%); codes agree on %d of %d refusals, nudges and parse failures (%.1f%%).\n\n",
		a.name, a.n, a.kind, pctf(a.kind, a.n), a.code, a.coded, pctf(a.code, a.coded))
	b.WriteString("| recorded \\ rules |")
	for _, k := range kinds {
		fmt.Fprintf(b, " %s |", k)
	}
	b.WriteString("\n|---|")
	for range kinds {
		b.WriteString("---:|")
	}
	b.WriteString("\n")
	for _, want := range kinds {
		fmt.Fprintf(b, "| %s |", want)
		for _, got := range kinds {
			fmt.Fprintf(b, " %d |", a.matrix[[2]schemas.Kind{want, got}])
		}
		b.WriteString("\n")
	}
	if len(a.misses) > 0 {
		b.WriteString("\nMisses:\n\n")
		for _, m := range a.misses {
			fmt.Fprintf(b, "- %s\n", m)
		}
	}
	b.WriteString("\n")
}

func pctf(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return 100 * float64(n) / float64(of)
}

// TestRuleAgreement measures the text rules against recorded labels: on the
// coded traces of classify/testdata/traces with every code removed and every
// refusal, nudge and parse failure reworded (in the seeds' wording, and in
// the held-out wording), and on each paraphrase set alone. It asserts at
// least 95% on kinds for the seeds' wording and pins every matrix in
// testdata/agreement.md (docs/analysis.md quotes them).
func TestRuleAgreement(t *testing.T) {
	seeds := map[string][]string{}
	heldOutTexts := map[string][]string{}
	dev := newAgreement("Seed wording (paraphrases.yaml), the set the rules were written against")
	other := newAgreement("Other harnesses' wording (paraphrases-other-harnesses.yaml), a first held-out set since used to generalise the rules")
	heldOut := newAgreement("Held-out wording (paraphrases-heldout.yaml), written after the rules were frozen and not tuned to")
	measureParaphrases(t, "paraphrases.yaml", dev, seeds)
	measureParaphrases(t, "paraphrases-other-harnesses.yaml", other, map[string][]string{})
	measureParaphrases(t, "paraphrases-heldout.yaml", heldOut, heldOutTexts)
	traces := measureTraces(t, "Coded traces of testdata/traces, codes removed, every refusal, nudge and parse failure reworded in the seeds' wording", seeds)
	tracesHeldOut := measureTraces(t, "The same traces, reworded in the held-out wording", heldOutTexts)

	var b strings.Builder
	for _, a := range []*agreement{traces, dev, other, heldOut, tracesHeldOut} {
		a.table(&b)
	}
	golden := filepath.Join("testdata", "agreement.md")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./classify/turnlabel -run TestRuleAgreement -update)", err)
	}
	if string(want) != b.String() {
		t.Errorf("agreement changed (go test ./classify/turnlabel -run TestRuleAgreement -update, then update docs/analysis.md):\n%s", b.String())
	}
	// The bar is on the seeds' wording, which is what the rules are for; the
	// held-out numbers are pinned by the golden file and reported, not
	// raised by tuning to them.
	for _, a := range []*agreement{traces, dev} {
		if got := pctf(a.kind, a.n); got < 95 {
			t.Errorf("%s: kinds agree on %.1f%%, want at least 95%%:\n%s", a.name, got, strings.Join(a.misses, "\n"))
		}
	}
}

// measureTraces labels every coded turn of classify/testdata/traces with its kind
// and code removed and, for a refusal, a nudge or a parse failure, its
// harness message replaced by a wording of the same code from texts.
func measureTraces(t *testing.T, name string, texts map[string][]string) *agreement {
	t.Helper()
	a := newAgreement(name)
	files, err := trace.ListFiles("../testdata/traces")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		run, err := trace.ReadRun(f)
		if err != nil || run.Start == nil {
			continue
		}
		for _, turn := range run.Turns {
			want := Label{Kind: turn.Sent.Kind, Code: turn.Sent.Code}
			if want.Kind == "" {
				continue // recorded without a label: nothing to agree with
			}
			msgs := slices.Clone(turn.Sent.Messages)
			if want.Kind == schemas.KindRefusalOrNudge || want.Kind == schemas.KindParseFailure {
				options := texts[string(want.Kind)+"/"+string(want.Code)]
				if len(options) == 0 {
					t.Fatalf("%s: no wording of %s/%s", name, want.Kind, want.Code)
				}
				h := fnv.New32a()
				fmt.Fprintf(h, "%s/%d", turn.RunID, turn.Step)
				msgs[len(msgs)-1].Content = options[int(h.Sum32())%len(options)]
			}
			stripped := *turn
			stripped.Sent.Kind, stripped.Sent.Code, stripped.Sent.Messages = "", "", msgs
			got := Of(&stripped)
			if got.From != FromRules {
				t.Fatalf("a turn without a recorded kind was labelled from %q", got.From)
			}
			a.add(want, got, Feedback(msgs))
		}
	}
	if a.n == 0 {
		t.Fatal("no coded turns in classify/testdata/traces")
	}
	return a
}

// measureParaphrases classifies every wording of a paraphrase file as the
// harness's answer to a reply (an opening as the first turn), and adds the
// wordings to byCode.
func measureParaphrases(t *testing.T, file string, a *agreement, byCode map[string][]string) {
	t.Helper()
	for _, p := range loadParaphrases(t, file) {
		want := Label{Kind: p.Kind, Code: p.Code}
		key := string(p.Kind) + "/" + string(p.Code)
		byCode[key] = append(byCode[key], p.Texts...)
		for _, text := range p.Texts {
			step := 2
			if p.Kind == schemas.KindOpening {
				step = 1
			}
			got := byRules(step, []schemas.Message{{Role: "assistant", Content: "READ x.py"}, {Role: "user", Content: text}})
			if p.Kind == schemas.KindOpening {
				got = byRules(step, []schemas.Message{{Role: "system", Content: "You are a coding agent."}, {Role: "user", Content: text}})
			}
			a.add(want, got, text)
		}
	}
}

// TestEveryGuardCodeHasParaphrases keeps the paraphrase set complete as the
// harness gains guards.
func TestEveryGuardCodeHasParaphrases(t *testing.T) {
	have := map[schemas.Code]bool{}
	for _, file := range []string{"paraphrases.yaml", "paraphrases-other-harnesses.yaml", "paraphrases-heldout.yaml"} {
		for _, p := range loadParaphrases(t, file) {
			have[p.Code] = true
		}
	}
	for _, r := range codeRules {
		if !have[r.code] {
			t.Errorf("guard code %s has no paraphrases in testdata/paraphrases.yaml", r.code)
		}
	}
	if !have[schemas.CodeParseFailed] {
		t.Errorf("no paraphrases of a parse failure")
	}
}

func TestClassifyText(t *testing.T) {
	reply := schemas.Message{Role: "assistant", Content: "PATCH x.py"}
	tests := []struct {
		name     string
		step     int
		msgs     []schemas.Message
		kind     schemas.Kind
		code     schemas.Code
		feedback string
	}{
		{"first step", 1, []schemas.Message{{Role: "user", Content: "Task: do it"}}, schemas.KindOpening, "", "Task: do it"},
		{"system prompt and no reply", 3, []schemas.Message{{Role: "system", Content: "s"}, {Role: "user", Content: "Task"}}, schemas.KindOpening, "", "Task"},
		{"own marker", 2, []schemas.Message{reply, {Role: "user", Content: "REFUSED (wrong-file): x.py is not a file this task changes."}}, schemas.KindRefusalOrNudge, schemas.CodeWrongFile, "REFUSED (wrong-file): x.py is not a file this task changes."},
		{"own parse marker", 2, []schemas.Message{reply, {Role: "user", Content: "REFUSED (parse-failed): unknown action X"}}, schemas.KindParseFailure, schemas.CodeParseFailed, ""},
		{"suite broken after a write", 2, []schemas.Message{reply, {Role: "user", Content: "Wrote a.py (+1 -0 lines).\nSUITE BROKEN (suite-broken): the test suite passed before you wrote a.py and fails now:"}}, schemas.KindRefusalOrNudge, schemas.CodeSuiteBroken, ""},
		{"harness parse failure", 2, []schemas.Message{reply, {Role: "user", Content: "could not read an action from your reply: no action verb found.\nReply with exactly one action"}}, schemas.KindParseFailure, schemas.CodeParseFailed, ""},
		{"tool result with a fence", 2, []schemas.Message{reply, {Role: "tool", Content: "x.py (lines 1-3 of 3):\n```python\n# that is the wrong file\n```"}}, schemas.KindToolResult, "", ""},
		{"test failure naming an undefined name", 2, []schemas.Message{reply, {Role: "user", Content: "Tests: 1 ran, 0 failed, 1 errors.\n  ERROR t: NameError: name 'f' is not defined"}}, schemas.KindToolResult, "", ""},
		{"unnamed refusal", 2, []schemas.Message{reply, {Role: "user", Content: "Refused: the moon is in the wrong phase."}}, schemas.KindRefusalOrNudge, "", ""},
		{"nothing new", 2, []schemas.Message{reply}, schemas.KindToolResult, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := byRules(tt.step, tt.msgs)
			if got.Kind != tt.kind || got.Code != tt.code || got.From != FromRules {
				t.Errorf("ByRules = %+v, want %s/%s from rules", got, tt.kind, tt.code)
			}
			if tt.feedback != "" {
				if f := Feedback(tt.msgs); f != tt.feedback {
					t.Errorf("Feedback = %q, want %q", f, tt.feedback)
				}
			}
		})
	}
}

func TestLabelTurnPrefersTheRecord(t *testing.T) {
	turn := &schemas.Turn{Step: 2, Sent: schemas.Sent{Kind: schemas.KindToolResult, Messages: []schemas.Message{{Role: "user", Content: "that is the wrong file"}}}}
	if got := Of(turn); got != (Label{Kind: schemas.KindToolResult, From: fromRecord}) {
		t.Errorf("Of = %+v, want the recorded tool-result", got)
	}
	turn.Sent.Kind = schemas.KindRefusalOrNudge
	if got := Of(turn); got != (Label{Kind: schemas.KindRefusalOrNudge, Code: schemas.CodeWrongFile, From: fromRecord}) {
		t.Errorf("Of of a refusal recorded without its code = %+v, want the code from the rules", got)
	}
}

func TestFeedbackLine(t *testing.T) {
	tests := []struct{ in, want string }{
		{"REFUSED (run-tests-first): you changed files. RUN tests first.", "you changed files. RUN tests first."},
		{"Wrote a.py.\nSUITE BROKEN (suite-broken): the suite fails now:\nmore", "the suite fails now:"},
		{"\n  Tests: 3 ran, all passed.\nmore", "Tests: 3 ran, all passed."},
		{"Not Code (x): y", "Not Code (x): y"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := FeedbackLine(tt.in); got != tt.want {
			t.Errorf("FeedbackLine(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestAnalysisDocQuotesTheAgreement keeps docs/analysis.md's copy of the
// agreement matrices the one the test measured.
func TestAnalysisDocQuotesTheAgreement(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "analysis.md"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("testdata", "agreement.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "<!-- agreement:begin -->\n")
	quoted, _, ok2 := strings.Cut(rest, "<!-- agreement:end -->")
	if !ok || !ok2 {
		t.Fatal("docs/analysis.md has no <!-- agreement:begin --> … <!-- agreement:end --> block")
	}
	if quoted != string(want) {
		t.Error("docs/analysis.md quotes an agreement other than testdata/agreement.md: copy the file between the markers")
	}
}
