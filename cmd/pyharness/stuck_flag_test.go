package main

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/pyharness/pyharness/harness"
	"github.com/pyharness/pyharness/internal/testkit/wiretest"
	"github.com/pyharness/pyharness/schemas"
)

// run's --stuck-after reaches the harness as a limit it applies: 0 turns
// the rule off (a negative config, since the zero config is the default),
// any other value is the limit itself.
func TestStuckAfterFlagReachesTheHarness(t *testing.T) {
	for _, tt := range []struct{ flag, want int }{
		{0, -1},
		{1, 1},
		{harness.DefaultStuckAfter, harness.DefaultStuckAfter},
		{7, 7},
	} {
		if got := stuckLimit(tt.flag); got != tt.want {
			t.Errorf("--stuck-after %d gives the harness %d, want %d", tt.flag, got, tt.want)
		}
	}
}

// bench, collect and loop pass --stuck-after to every run they make: a
// model that answers the same prose to every request (refused
// parse-failed each time) is asked as many times as the limit, its run
// stopped stuck; with 0 it is asked until the step budget ends the run;
// without the flag, the default limit applies.
func TestStuckAfterOnBenchCollectAndLoop(t *testing.T) {
	const steps = 6
	prose := wiretest.Text("I would start by looking at the code and then fix it.")
	commands := map[string]func(srv *wiretest.Ollama, out string) []string{
		"bench": func(srv *wiretest.Ollama, out string) []string {
			return []string{"bench", "--model", "ollama:tiny", "--base-url", srv.URL, "--case", "initials", "--repeat", "1", "--steps", strconv.Itoa(steps), "--out", out}
		},
		"collect": func(srv *wiretest.Ollama, out string) []string {
			return []string{"collect", "--model", "ollama:tiny", "--base-url", srv.URL, "--case", "initials", "--passes", "1", "--steps", strconv.Itoa(steps), "--out", out}
		},
		// The loop benches the base first; its trainer fails, so the loop
		// stops after the base's bench and the export.
		"loop": func(srv *wiretest.Ollama, out string) []string {
			return []string{"loop", "--out", out, "--base", "tiny", "--base-file", filepath.Join(out, "no.gguf"), "--teacher", out,
				"--include-scripted", "--data", "jsonl", "--case", "initials", "--repeat", "1", "--steps", strconv.Itoa(steps),
				"--base-url", srv.URL, "--train", "false {data} {base} {out}"}
		},
	}
	for _, name := range []string{"bench", "collect", "loop"} {
		for _, tt := range []struct {
			flag      []string
			calls     int
			stop      schemas.StopReason
			stuckFrom int
		}{
			{nil, harness.DefaultStuckAfter, schemas.StopStuck, 1},
			{[]string{"--stuck-after", "2"}, 2, schemas.StopStuck, 1},
			{[]string{"--stuck-after", "0"}, steps, schemas.StopBudget, 0},
		} {
			t.Run(name+" "+strconv.Quote(flagText(tt.flag)), func(t *testing.T) {
				srv := wiretest.NewOllama(t)
				srv.Trained = wiretest.Trained4096
				srv.AnswerModel("tiny", prose)
				out := filepath.Join(t.TempDir(), "out")
				runOut := out
				if name == "loop" {
					runOut = filepath.Join(out, "bench-base")
				}
				code, stdout, stderr := runCLI(t, append(commands[name](srv, out), tt.flag...)...)
				if name != "loop" && code != 0 {
					t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
				}
				if n := len(srv.ChatRequests()); n != tt.calls {
					t.Errorf("the model was asked %d times, want %d\n%s", n, tt.calls, stderr)
				}
				e := runEnd(t, runOut)
				if e.StopReason != tt.stop || e.ModelSteps != tt.calls {
					t.Fatalf("run stopped %s after %d model steps, want %s after %d", e.StopReason, e.ModelSteps, tt.stop, tt.calls)
				}
				if tt.stop == schemas.StopStuck && (e.Stuck == nil || e.Stuck.Code != schemas.CodeParseFailed || e.Stuck.Times != tt.calls || e.Stuck.FromStep != tt.stuckFrom) {
					t.Errorf("run_end stuck = %+v, want parse-failed %d times from step %d", e.Stuck, tt.calls, tt.stuckFrom)
				}
			})
		}
	}
}

func flagText(f []string) string {
	if len(f) == 0 {
		return "default"
	}
	return f[0] + " " + f[1]
}
