package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/pyharness/pyharness/datasets"
	"github.com/pyharness/pyharness/harness/model"
	"github.com/pyharness/pyharness/internal/testkit/wiretest"
)

// runCLIExit runs the command line in-process under ctx, with backends that
// retry a transport fault once and without sleeping, so a server that is
// down costs no backoff.
func runCLIExit(t *testing.T, ctx context.Context, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	a := &app{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, now: time.Now,
		getenv: func(string) string { return "" }, retry: model.Retry{Max: 1, Sleep: model.NoSleep}}
	code := run(ctx, a, args)
	return code, out.String(), errb.String()
}

// cleanDrafts returns the drafts of each case's clean script, in order.
func cleanDrafts(t *testing.T, ids ...string) [][]string {
	t.Helper()
	cases, err := datasets.Cases()
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	for _, id := range ids {
		for _, c := range cases {
			if c.ID == id {
				d, err := c.Drafts("clean")
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, d)
			}
		}
	}
	if len(out) != len(ids) {
		t.Fatalf("cases %v: found %d", ids, len(out))
	}
	return out
}

// Each command's exit code for each row of the table it can reach. The
// servers: one that answers (dropping), but whose every chat dies
// unanswered after the pre-flight, and an address where nothing listens.
func TestExitCodes(t *testing.T) {
	// The model of trained context 4096: the first recorded one's 512
	// leaves no room for --num-predict 1024, and the pre-flight says so.
	dropping := wiretest.NewOllama(t)
	dropping.Trained = wiretest.Trained4096
	dropping.DropChats(true)
	closed := wiretest.NewOllama(t)
	closed.Close()
	up := wiretest.NewOllama(t)
	up.Trained = wiretest.Trained4096

	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	writeFiles(t, repo, map[string]string{
		"greet.py":            "def greet(name):\n    return \"Hello, \" + name\n",
		"tests/__init__.py":   "",
		"tests/test_greet.py": greetTest,
	})
	writeFiles(t, dir, map[string]string{
		"solve.jsonl": `{"content": "WRITE initials.py\n` + "```python\\ndef initials(name):\\n    return \\\" \\\".join(p[0] + \\\".\\\" for p in name.split())\\n```" + `"}` + "\n" +
			`{"content": "RUN tests"}` + "\n" + `{"content": "DONE initials added"}` + "\n",
		"giveup.jsonl": `{"content": "RUN tests"}` + "\n",
		"bad.yaml":     "entries:\n  - id: x\n    repo: .\n    task: t\n    colour: blue\n",
		"a-file":       "not a directory\n",
	})
	runTask := func(more ...string) []string {
		return append([]string{"run", "--repo", repo, "--task", "Add initials(name) to initials.py", "--target", "initials.py", "--name", "initials"}, more...)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	out := func() string { return filepath.Join(t.TempDir(), "out") }

	tests := []struct {
		name   string
		ctx    context.Context
		args   []string
		code   int
		stdout string // in stdout, when set
		stderr string // in stderr, when set
	}{
		{name: "run worked", args: runTask("--model", "scripted:"+filepath.Join(dir, "solve.jsonl")), code: exitOK, stdout: "verdict:  worked"},
		{name: "run failed is a run that ended", args: runTask("--steps", "1", "--model", "scripted:"+filepath.Join(dir, "giveup.jsonl")), code: exitOK, stdout: "verdict:  failed"},
		{name: "run without --repo", args: []string{"run", "--task", "x"}, code: exitUsage, stderr: "--repo is required"},
		{name: "run with an unknown flag", args: []string{"run", "--no-such-flag"}, code: exitUsage, stderr: "unknown flag"},
		{name: "run whose server dies", args: runTask("--model", "ollama:tiny", "--base-url", dropping.URL), code: exitIncomplete},
		{name: "run interrupted", ctx: cancelled, args: runTask("--model", "scripted:"+filepath.Join(dir, "solve.jsonl")), code: exitInterrupted},

		{name: "bench worked", args: []string{"bench", "--model", "scripted", "--case", "initials", "--repeat", "1"}, code: exitOK},
		{name: "bench with no such case", args: []string{"bench", "--model", "scripted", "--case", "nope"}, code: exitUsage, stderr: `no case "nope"`},
		{name: "bench whose server dies", args: []string{"bench", "--model", "ollama:tiny", "--base-url", dropping.URL, "--case", "initials", "--repeat", "1"},
			code: exitIncomplete, stderr: "1 of 1 run(s) ended in a model error"},
		{name: "bench with the server down", args: []string{"bench", "--model", "ollama:tiny", "--base-url", closed.URL, "--case", "initials"},
			code: exitPreflight, stderr: "pre-flight failed"},
		{name: "bench interrupted", ctx: cancelled, args: []string{"bench", "--model", "scripted", "--case", "initials", "--repeat", "1"}, code: exitInterrupted},

		{name: "collect worked", args: []string{"collect", "--model", "scripted", "--case", "initials", "--passes", "1"}, code: exitOK},
		{name: "collect with a bad shard", args: []string{"collect", "--model", "scripted", "--shard", "3/2"}, code: exitUsage, stderr: "want k/n"},
		{name: "collect with a bad manifest", args: []string{"collect", "--model", "scripted", "--manifest", filepath.Join(dir, "bad.yaml")},
			code: exitUsage, stderr: "colour"},
		{name: "collect with no manifest file", args: []string{"collect", "--model", "scripted", "--manifest", filepath.Join(dir, "nowhere.yaml")},
			code: exitUsage, stderr: "read manifest"},
		{name: "collect whose server dies", args: []string{"collect", "--model", "ollama:tiny", "--base-url", dropping.URL, "--case", "initials", "--passes", "1"},
			code: exitIncomplete, stderr: "1 of 1 planned run(s) are not complete; run the same command with --resume"},
		{name: "collect with the server down", args: []string{"collect", "--model", "ollama:tiny", "--base-url", closed.URL, "--case", "initials"},
			code: exitPreflight, stderr: "pre-flight failed"},
		{name: "collect interrupted", ctx: cancelled, args: []string{"collect", "--model", "scripted", "--case", "initials", "--passes", "1"},
			code: exitInterrupted, stderr: "interrupted before any run started; nothing was recorded"},
		{name: "collect into a file", args: []string{"collect", "--model", "scripted", "--case", "initials", "--passes", "1", "--out", filepath.Join(dir, "a-file", "out")},
			code: exitFailure},

		{name: "doctor all well", args: []string{"doctor", "--model", "ollama:tiny", "--base-url", up.URL}, code: exitOK},
		{name: "doctor with a bad model spec", args: []string{"doctor", "--model", "ollama:"}, code: exitUsage},
		{name: "doctor with the server down", args: []string{"doctor", "--model", "ollama:tiny", "--base-url", closed.URL}, code: exitPreflight},

		{name: "an unknown command", args: []string{"no-such-command"}, code: exitUsage, stderr: "unknown command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := tt.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			args := tt.args
			if !strings.Contains(strings.Join(args, " "), "--out") && args[0] != "no-such-command" {
				args = append(args, "--out", out())
			}
			code, stdout, stderr := runCLIExit(t, ctx, args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			if !strings.Contains(stdout, tt.stdout) {
				t.Errorf("stdout lacks %q:\n%s", tt.stdout, stdout)
			}
			if !strings.Contains(stderr, tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, stderr)
			}
		})
	}
}

// The table is in the --help of every command that uses it, with the rows
// the command can end with: doctor runs nothing, so it has no incomplete or
// interrupted runs.
func TestExitCodesInHelp(t *testing.T) {
	all := []int{exitOK, exitFailure, exitUsage, exitIncomplete, exitPreflight, exitInterrupted}
	for _, tt := range []struct {
		cmd   string
		codes []int
	}{{"run", all}, {"bench", all}, {"collect", all}, {"doctor", []int{exitOK, exitFailure, exitUsage, exitPreflight}}} {
		t.Run(tt.cmd, func(t *testing.T) {
			code, stdout, _ := runCLI(t, tt.cmd, "--help")
			if code != exitOK {
				t.Fatalf("exit %d", code)
			}
			if !strings.Contains(stdout, "Exit status:") {
				t.Fatalf("no exit status in the help:\n%s", stdout)
			}
			for _, r := range exitCodeRows {
				first, _, _ := strings.Cut(r.what, " ")
				row := fmt.Sprintf("  %3d  %s", r.code, first)
				if want := slices.Contains(tt.codes, r.code); strings.Contains(stdout, row) != want {
					t.Errorf("the help has the row %q: %v, want %v", row, !want, want)
				}
			}
		})
	}
}

// A scheduled collect's story: a collect whose server is down runs nothing
// (pre-flight); one whose server dies after the pre-flight ends with runs
// incomplete; with the server back, --resume finishes the plan and exits
// 0, and a later --resume has nothing to do. Running over the finished
// plan without --resume is a configuration error.
func TestCollectServerDownThenResume(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	plan := []string{"collect", "--model", "ollama:tiny", "--case", "initials", "--case", "fix-offbyone", "--passes", "1", "--out", out}

	closed := wiretest.NewOllama(t)
	closed.Close()
	code, stdout, stderr := runCLIExit(t, context.Background(), append(plan, "--base-url", closed.URL)...)
	if code != exitPreflight || !strings.Contains(stderr, "FAIL  server") {
		t.Fatalf("server down: exit %d, want %d\n%s\n%s", code, exitPreflight, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "runs")); !os.IsNotExist(err) {
		t.Fatalf("a failed pre-flight ran something: %v", err)
	}

	srv := wiretest.NewOllama(t)
	srv.Trained = wiretest.Trained4096
	srv.DropChats(true)
	code, stdout, stderr = runCLIExit(t, context.Background(), append(plan, "--base-url", srv.URL)...)
	if code != exitIncomplete {
		t.Fatalf("server dying: exit %d, want %d\n%s\n%s", code, exitIncomplete, stdout, stderr)
	}
	if !strings.Contains(stdout, "2 run: 0 worked, 0 failed, 2 error") || !strings.Contains(stdout, "2 run(s) are not complete") {
		t.Errorf("summary:\n%s", stdout)
	}

	srv.DropChats(false)
	for _, drafts := range cleanDrafts(t, "initials", "fix-offbyone") { // the plan's order, one job
		for _, d := range drafts {
			srv.Push(wiretest.Text(d))
		}
	}
	code, stdout, stderr = runCLIExit(t, context.Background(), append(plan, "--base-url", srv.URL, "--resume")...)
	if code != exitOK || !strings.Contains(stdout, "2 run: 2 worked") {
		t.Fatalf("server back, --resume: exit %d, want 0\n%s\n%s", code, stdout, stderr)
	}
	if srv.Pending() != 0 {
		t.Errorf("%d drafts unused", srv.Pending())
	}

	code, stdout, _ = runCLIExit(t, context.Background(), append(plan, "--base-url", srv.URL, "--resume")...)
	if code != exitOK || !strings.Contains(stdout, "Nothing to do") {
		t.Errorf("--resume again: exit %d\n%s", code, stdout)
	}
	code, stdout, stderr = runCLIExit(t, context.Background(), append(plan, "--base-url", srv.URL)...)
	if code != exitUsage || !strings.Contains(stderr, "already holds all 2 runs of this plan: nothing to do") || strings.Contains(stdout, "Nothing to do") {
		t.Errorf("again without --resume: exit %d, want %d\n%s", code, exitUsage, stderr)
	}
}

// Every command's configuration errors exit with exitUsage, as the table
// says (2: usage or configuration error, nothing was run), and say what
// was wrong; the table of cases names every command of the root.
func TestConfigurationErrorsExitUsage(t *testing.T) {
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	writeFiles(t, repo, map[string]string{"greet.py": "def greet(name):\n    return name\n"})
	writeFiles(t, dir, map[string]string{
		"drafts.jsonl":  `{"content": "DONE nothing"}` + "\n",
		"torn.jsonl":    `{"content": `,
		"broken.yaml":   "entries: [\n",
		"noscript.yaml": "entries:\n  - id: x\n    repo: repo\n    task: t\n",
		"colour.yaml":   "entries:\n  - id: x\n    repo: repo\n    task: t\n    colour: blue\n",
		"empty/README":  "no runs here\n",
		"notes/a.jsonl": "",
	})
	at := func(name string) string { return filepath.Join(dir, name) }
	nowhere := at("nowhere")
	runArgs := func(more ...string) []string {
		return append([]string{"run", "--repo", repo, "--task", "t", "--out", at("out-run")}, more...)
	}
	tests := []struct {
		cmd    string // the command the case is about, as the root names it
		args   []string
		stderr string
	}{
		{"run", []string{"run", "--task", "t"}, "--repo is required"},
		{"run", []string{"run", "--repo", nowhere, "--task", "t", "--model", "scripted:" + at("drafts.jsonl")}, "--repo " + nowhere + ": not a directory"},
		{"run", runArgs("--model", "scripted:"+at("missing.jsonl")), "missing.jsonl"},
		{"run", runArgs("--model", "scripted:"+at("torn.jsonl")), "torn.jsonl:1"},
		{"run", runArgs("--model", "scriptd:"+at("drafts.jsonl")), `unknown backend "scriptd"`},
		{"run", runArgs("--model", "olama:foo"), "the backends are ollama:NAME, openai:NAME, scripted:FILE and replay:TRACE"},
		{"run", runArgs("--model", "openai:gpt"), "needs --base-url"},
		{"run", runArgs("--steps", "0"), "--steps must be at least 1"},
		{"bench", []string{"bench", "--repeat", "0"}, "--repeat must be at least 1"},
		{"bench", []string{"bench", "--model", "scripted", "--case", "nope"}, `no case "nope"`},
		{"bench", []string{"bench", "--model", "replya:x"}, "unknown backend"},
		{"compare", []string{"bench", "compare", at("empty")}, "usage: pyharness bench compare OUT_A OUT_B"},
		{"compare", []string{"bench", "compare", nowhere, at("empty")}, nowhere + ": no such directory"},
		{"collect", []string{"collect", "--model", "scripted", "--manifest", at("broken.yaml"), "--out", at("out-c1")}, "broken.yaml"},
		{"collect", []string{"collect", "--model", "scripted", "--manifest", at("noscript.yaml"), "--out", at("out-c2")}, "no script: with --model scripted every entry needs script:"},
		{"collect", []string{"collect", "--model", "scripted", "--manifest", at("colour.yaml"), "--out", at("out-c3")}, "colour"},
		{"collect", []string{"collect", "--model", "scripted", "--manifest", nowhere}, "read manifest"},
		{"collect", []string{"collect", "--shard", "0/2"}, "want k/n"},
		{"doctor", []string{"doctor", "--model", "ollama:"}, "needs a model name"},
		{"doctor", []string{"doctor", "--model", "opanai:x"}, "unknown backend"},
		{"demo", []string{"demo", "--passes", "0", "--out", at("out-demo")}, "--passes must be at least 1"},
		{"classify", []string{"classify", "--in", nowhere}, "classify: --in " + nowhere + ": no such directory"},
		{"classify", []string{"classify", "--in", at("empty")}, "no trace files"},
		{"stats", []string{"stats", "--in", nowhere}, "stats: --in " + nowhere},
		{"stats", []string{"stats", "--in", at("empty"), "--by", "colour"}, "--by"},
		{"report", []string{"report", "--in", nowhere}, "report: --in " + nowhere},
		{"report", []string{"report", "--in", at("empty"), "--by", "colour"}, "--by"},
		{"show", []string{"show", "--in", nowhere, "abc"}, "show: --in " + nowhere},
		{"show", []string{"show", "--in", at("empty")}, "name a run"},
		{"dedupe", []string{"dedupe", "--in", nowhere}, "dedupe: --in " + nowhere},
		{"export", []string{"export", "--in", at("empty"), "--format", "jsnl"}, `format "jsnl": want jsonl, parquet, dpo or text`},
		{"export", []string{"export", "--in", nowhere}, "export: --in " + nowhere},
		{"gen-corpus", []string{"gen-corpus", "--turns", "0", "--out", at("out-gen")}, "gen-corpus"},
		{"gen-model", []string{"gen-model", "--vocab", nowhere, "--out", at("m.gguf"), "--layers", "0"}, "layers is 0"},
		{"gen-model", []string{"gen-model", "--vocab", nowhere, "--out", at("m.gguf"), "--embd", "64", "--heads", "5"}, "not a multiple of the 5 heads"},
		{"tokenize", []string{"tokenize", "--model", nowhere, "--in", nowhere, "--out", at("tok"), "--mode", "every"}, `mode "every": want completion or assistant`},
		{"draft", []string{"draft", nowhere}, "draft: open " + nowhere},
		{"validate", []string{"validate", nowhere}, "validate: stat " + nowhere},
		{"validate", []string{"validate", at("empty")}, "no trace files"},
		{"loop", []string{"loop"}, "--base is required"},
		{"loop", []string{"loop", "--base", "tiny", "--teacher", nowhere, "--student", "s", "--train", "train {data} {base} {out}"}, "--base-file must say what it is"},
		{"tasks", []string{"tasks", "--repo", nowhere, "--out", at("tasks")}, "tasks: --repo " + nowhere + " is not a directory"},
		{"tasks", []string{"tasks", "--repo", at("empty"), "--out", at("tasks"), "--kinds", "flip"}, `unknown kind "flip"`},
		{"version", []string{"version", "extra"}, "unknown command"},
		// A mistyped command is named before its flags are read.
		{"pyharness", []string{"colect", "--passes", "2"}, `unknown command "colect" for "pyharness"; did you mean collect?`},
		{"pyharness", []string{"exprt", "--in", nowhere}, "did you mean export?"},
		{"pyharness", []string{"frobnicate", "--x"}, `unknown command "frobnicate" for "pyharness"`},
		{"run", runArgs("--model", "olama:llama3.1:8b"), "(did you mean ollama:llama3.1:8b?)"},
	}
	covered := map[string]bool{}
	for _, tt := range tests {
		covered[tt.cmd] = true
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCLIExit(t, context.Background(), tt.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d (usage or configuration)\nstdout:\n%s\nstderr:\n%s", code, exitUsage, stdout, stderr)
			}
			if !strings.Contains(stderr, tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, stderr)
			}
		})
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Name() == "help" || sub.Name() == "completion" {
				continue
			}
			if !covered[sub.Name()] {
				t.Errorf("no configuration error of %q is checked", sub.CommandPath())
			}
			walk(sub)
		}
	}
	walk(newRootCmd(&app{stdout: io.Discard, stderr: io.Discard}))
}
