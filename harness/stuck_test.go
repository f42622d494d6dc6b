package harness

import (
	"strings"
	"testing"

	"github.com/pyharness/pyharness/schemas"
)

// A model that sends the same refused draft again and again stops at the
// third refusal in a row (stop_reason stuck, run_end saying which refusal
// repeated), each repeat before it told the refusal as usual; one that
// changes its draft, its code, or does something the harness accepts in
// between goes on. Drafts the parser reads the same way (another format,
// other spacing) are the same draft.
func TestStuckOnTheSameRefusal(t *testing.T) {
	greetTask := Config{TaskSpec: schemas.TaskSpec{Targets: []string{"greet.py"}, Subject: "greet", Task: "Make greet strip the name"}}
	const (
		doneNoQuote  = "DONE the code is already correct"
		shell        = "```bash\nsed -i s/name/name.strip/ greet.py\n```"
		readMissing  = "READ nothere.py"
		readMissing2 = "READ ./nothere.py"
	)
	tests := []struct {
		name   string
		cfg    Config
		drafts []string
		// stuckAt is the step the run stops stuck at, 0 for none.
		stuckAt int
		code    schemas.Code
		steps   int
	}{
		{name: "same DONE without a quote three times", drafts: []string{runTests, doneNoQuote, doneNoQuote, doneNoQuote, doneNoQuote},
			stuckAt: 4, code: schemas.CodeQuoteRequired},
		{name: "twice, then another draft: goes on", drafts: []string{doneNoQuote, doneNoQuote, readGreet, patchGreetOK, runTests, "DONE greet strips the name"},
			steps: 6},
		{name: "twice, then the same summary quoting a line: goes on", drafts: []string{doneNoQuote, doneNoQuote, "DONE already right: `return \"Hello, \" + name`"},
			steps: 3},
		{name: "same shell command: refused without an action", drafts: []string{shell, shell, shell, runTests},
			stuckAt: 3, code: schemas.CodeShellCommand},
		{name: "a path written two ways is one draft", drafts: []string{readMissing, readMissing2, readMissing, runTests},
			stuckAt: 3, code: schemas.CodeNoSuchFile},
		{name: "an accepted step between the repeats ends the row", drafts: []string{doneNoQuote, doneNoQuote, runTests, doneNoQuote, doneNoQuote, readGreet},
			steps: 6},
		{name: "limit 0 in the flag (negative here) turns the rule off", cfg: Config{StuckAfter: -1},
			drafts: []string{doneNoQuote, doneNoQuote, doneNoQuote, doneNoQuote, readGreet}, steps: 5},
		{name: "limit 2", cfg: Config{StuckAfter: 2}, drafts: []string{doneNoQuote, doneNoQuote, readGreet},
			stuckAt: 2, code: schemas.CodeQuoteRequired},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := greetTask
			cfg.StuckAfter = tt.cfg.StuckAfter
			// A budget of exactly the script: a run that is not stopped
			// plays every draft and ends on the budget.
			cfg.MaxSteps = len(tt.drafts)
			out := runScripted(t, fixture, cfg, tt.drafts...)
			e := out.res.End
			if tt.stuckAt == 0 {
				if e.StopReason == schemas.StopStuck || e.Stuck != nil || e.Steps != tt.steps {
					t.Fatalf("stop %s (stuck %+v) after %d steps, want %d steps and no stuck stop", e.StopReason, e.Stuck, e.Steps, tt.steps)
				}
				return
			}
			if e.StopReason != schemas.StopStuck || e.Steps != tt.stuckAt || len(out.turns) != tt.stuckAt {
				t.Fatalf("stop %s after %d steps (%d turns), want stuck after %d", e.StopReason, e.Steps, len(out.turns), tt.stuckAt)
			}
			limit := cfg.StuckAfter
			if limit == 0 {
				limit = DefaultStuckAfter
			}
			want := schemas.Stuck{Code: tt.code, Times: limit, FromStep: tt.stuckAt - limit + 1}
			if e.Stuck == nil || e.Stuck.Code != want.Code || e.Stuck.Times != want.Times || e.Stuck.FromStep != want.FromStep || e.Stuck.Draft == "" {
				t.Fatalf("run_end stuck = %+v, want %+v with the draft", e.Stuck, want)
			}
			// Every repeat is refused with its code; each before the stop
			// is answered with the refusal, as any refusal is.
			for i := want.FromStep; i <= tt.stuckAt; i++ {
				if o := out.turns[i-1].Outcome; o.Status != schemas.StatusRefused || o.Code != tt.code {
					t.Errorf("step %d outcome %+v, want refused %s", i, o, tt.code)
				}
			}
			for i := want.FromStep + 1; i <= tt.stuckAt; i++ {
				sent := out.turns[i-1].Sent
				if sent.Kind != schemas.KindRefusalOrNudge || sent.Code != tt.code {
					t.Errorf("step %d was sent %+v, want the %s refusal", i, sent, tt.code)
				}
			}
			if e.Verdict != schemas.VerdictFailed || !strings.Contains(e.Reason, "stuck, "+string(tt.code)) {
				t.Errorf("verdict %s, reason %q: want failed, the reason naming the repeated refusal", e.Verdict, e.Reason)
			}
			if line := e.Stuck.Line(); !strings.HasPrefix(line, "STUCK:") || !strings.Contains(line, string(tt.code)) {
				t.Errorf("summary line %q", line)
			}
		})
	}
}

// The stuck stop and its account survive the trace: what run_end wrote is
// what a reader of the file gets, through the fast line decoder too.
func TestStuckRecordedInTheTrace(t *testing.T) {
	out := runScripted(t, fixture, Config{TaskSpec: schemas.TaskSpec{Targets: []string{"greet.py"}, Task: "Make greet strip the name"}},
		"DONE fine", "DONE fine", "DONE fine")
	got := readTrace(t, out.res)
	if got.End == nil || got.End.StopReason != schemas.StopStuck || got.End.Stuck == nil || *got.End.Stuck != *out.res.End.Stuck {
		t.Fatalf("trace run_end %+v, want the run's %+v", got.End, out.res.End.Stuck)
	}
	if got.End.Stuck.Draft != "DONE fine" {
		t.Errorf("draft %q, want DONE fine", got.End.Stuck.Draft)
	}
}
