package collect

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/pyharness/pyharness/datasets"
	"github.com/pyharness/pyharness/harness"
	"github.com/pyharness/pyharness/harness/model"
	"github.com/pyharness/pyharness/harness/model/ollama"
	"github.com/pyharness/pyharness/harness/model/scripted"
	"github.com/pyharness/pyharness/internal/testkit/wiretest"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

// caseScripts plays each case's clean script.
func caseScripts(ctx context.Context, it Item, pass int, opts schemas.Options, slot int) (Backend, error) {
	raw, err := it.Case.Script("clean")
	if err != nil {
		return Backend{}, err
	}
	m, err := scripted.NewFromReader(bytes.NewReader(raw), "clean")
	return Backend{Chat: m, Model: schemas.Model{Backend: "scripted", Name: it.Case.ID + "/clean", Options: opts}}, err
}

func someCases(t *testing.T, ids ...string) []datasets.Case {
	t.Helper()
	all, err := datasets.Cases()
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) == 0 {
		return all
	}
	var out []datasets.Case
	for _, c := range all {
		if slices.Contains(ids, c.ID) {
			out = append(out, c)
		}
	}
	return out
}

func TestShardsPartitionThePlan(t *testing.T) {
	o := Options{Cases: someCases(t), Passes: 4, Model: caseScripts}
	whole, err := Plan(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(whole) != 60 {
		t.Fatalf("plan of 15 cases × 4 passes has %d runs", len(whole))
	}
	seen := map[string]int{}
	for k := 1; k <= 3; k++ {
		o.ShardK, o.ShardN = k, 3
		part, err := Plan(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if len(part) == 0 {
			t.Errorf("shard %d/3 is empty", k)
		}
		for _, p := range part {
			seen[p.RunID]++
		}
	}
	for _, p := range whole {
		if seen[p.RunID] != 1 {
			t.Errorf("run %s is in %d shards", p.RunID, seen[p.RunID])
		}
	}
	if len(seen) != len(whole) {
		t.Errorf("shards hold %d runs, the plan %d", len(seen), len(whole))
	}
	again, _ := Plan(context.Background(), Options{Cases: someCases(t), Passes: 4, Model: caseScripts})
	for i := range whole {
		if again[i].RunID != whole[i].RunID {
			t.Fatal("the same plan gave other run ids")
		}
	}
}

// completeOnce checks every planned run has exactly one complete attempt,
// its last.
func completeOnce(t *testing.T, out string, plan []*Planned) {
	t.Helper()
	if err := readStatus(t.Context(), out, plan); err != nil {
		t.Fatal(err)
	}
	files, _ := trace.ListFiles(out)
	complete := map[string]int{}
	for _, f := range files {
		run, _ := trace.ReadRun(f)
		if run != nil && run.End != nil && run.End.StopReason != schemas.StopCancelled && run.End.StopReason != schemas.StopModelError {
			complete[f.RunID]++
		}
	}
	for _, p := range plan {
		if p.Status != "complete" || complete[p.RunID] != 1 {
			t.Errorf("run %s (%s pass %d): status %s, %d complete attempt(s) of %d", p.RunID, p.Item, p.Pass, p.Status, complete[p.RunID], p.Attempts)
		}
	}
	if len(complete) != len(plan) {
		t.Errorf("%d complete run ids on disk, %d planned", len(complete), len(plan))
	}
}

func TestMain(m *testing.M) {
	if out := os.Getenv(faultChildOut); out != "" {
		faultChild(out)
		return
	}
	if out := os.Getenv("PYHARNESS_COLLECT_CHILD_OUT"); out != "" {
		collectChild(out)
		return
	}
	os.Exit(m.Run())
}

var killCases = []string{"initials", "fix-offbyone", "parse-duration"}

// collectChild is the collect process the SIGKILL test kills. Its model
// says on stdout when a run's second draft is asked for, so the parent can
// kill it mid-run.
func collectChild(out string) {
	cases, _ := datasets.Cases()
	var some []datasets.Case
	for _, c := range cases {
		if slices.Contains(killCases, c.ID) {
			some = append(some, c)
		}
	}
	o := Options{Cases: some, Passes: 1, Jobs: 1, OutDir: out, Model: func(ctx context.Context, it Item, pass int, opts schemas.Options, slot int) (Backend, error) {
		be, err := caseScripts(ctx, it, pass, opts, slot)
		be.Chat = announce{be.Chat, it.ID}
		return be, err
	}}
	if _, err := Run(context.Background(), o); err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println("finished")
}

type announce struct {
	harness.Chatter
	id string
}

func (a announce) Chat(ctx context.Context, req model.Request) (model.Reply, error) {
	fmt.Printf("chat %s %d\n", a.id, len(req.Messages))
	return a.Chatter.Chat(ctx, req)
}

// Killing collect mid-way (SIGKILL), then --resume: every run complete
// exactly once, no duplicates, no missing ids, the cut-off attempt kept.
func TestResumeAfterSIGKILL(t *testing.T) {
	out := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "PYHARNESS_COLLECT_CHILD_OUT="+out)
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	chats := 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "chat "+killCases[1]) || strings.HasPrefix(line, "chat fix-offbyone") {
			chats++
			if chats == 2 { // the second case is mid-run
				break
			}
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()

	o := Options{Cases: someCases(t, killCases...), Passes: 1, Jobs: 1, OutDir: out, Model: caseScripts}
	plan, _ := Plan(context.Background(), o)
	readStatus(t.Context(), out, plan)
	var cut []string
	for _, p := range plan {
		if p.Status != "complete" {
			cut = append(cut, p.Item)
		}
	}
	if len(cut) == 0 {
		t.Fatal("the kill came too late: every run was complete")
	}
	o.Resume = true
	sum, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Ran != len(cut) {
		t.Errorf("resume ran %d runs, want the %d not complete (%v)", sum.Ran, len(cut), cut)
	}
	completeOnce(t, out, plan)
}

// cancelling wraps a backend and cancels the run's context at a step.
type cancelling struct {
	harness.Chatter
	cancel func()
	at     int32
	n      atomic.Int32
}

func (c *cancelling) Chat(ctx context.Context, req model.Request) (model.Reply, error) {
	if c.n.Add(1) == c.at {
		c.cancel()
		<-ctx.Done()
		return model.Reply{}, &model.Error{Code: model.CodeCancelled, Err: ctx.Err()}
	}
	return c.Chatter.Chat(ctx, req)
}

func TestCtrlCThenResume(t *testing.T) {
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	var calls atomic.Int32
	var tallies []Tally
	o := Options{Cases: someCases(t, "initials", "fix-offbyone"), Passes: 1, Jobs: 1, OutDir: out,
		Progress: func(t Tally) { tallies = append(tallies, t) },
		Model: func(ctx context.Context, it Item, pass int, opts schemas.Options, slot int) (Backend, error) {
			be, err := caseScripts(ctx, it, pass, opts, slot)
			if calls.Add(1) > 2 && it.ID == "initials" { // after planning, while running
				be.Chat = &cancelling{Chatter: be.Chat, cancel: cancel, at: 2}
			}
			return be, err
		}}
	sum, err := Run(ctx, o)
	if err == nil || sum.Cancelled != 1 {
		t.Fatalf("err %v, summary %+v: want one run cancelled", err, sum)
	}
	// The progress counts the cancelled run apart, not as done.
	if len(tallies) == 0 {
		t.Fatal("no progress was reported")
	}
	if last := tallies[len(tallies)-1]; last.Cancelled != 1 || last.Done != sum.Ran-1 || last.Total != 2 {
		t.Errorf("the last progress is %+v, want 1 cancelled apart from the %d done of 2", last, sum.Ran-1)
	}
	plan, _ := Plan(context.Background(), Options{Cases: o.Cases, Passes: 1, Model: caseScripts})
	readStatus(t.Context(), out, plan)
	var cancelled *Planned
	for _, p := range plan {
		if p.Stop == schemas.StopCancelled {
			cancelled = p
		}
	}
	if cancelled == nil {
		t.Fatal("no run was recorded as cancelled")
	}
	o2 := Options{Cases: o.Cases, Passes: 1, Jobs: 1, OutDir: out, Resume: true, Model: caseScripts}
	if _, err := Run(context.Background(), o2); err != nil {
		t.Fatal(err)
	}
	completeOnce(t, out, plan)
	if _, err := os.Stat(filepath.Join(out, "runs", cancelled.RunID+".jsonl")); err != nil {
		t.Errorf("the cancelled attempt was not kept: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "runs", cancelled.RunID+".attempt-2.jsonl")); err != nil {
		t.Errorf("the redo was not a second attempt: %v", err)
	}
}

// A collect whose model server was down ends every run model-error; with
// the server back, --resume redoes exactly those runs and keeps the
// earlier attempts on disk.
func TestServerDownThenResume(t *testing.T) {
	out := t.TempDir()
	cases := someCases(t, "initials", "fix-offbyone")
	noWait := model.Retry{Max: 1, Sleep: model.NoSleep}
	backendAt := func(host string) Model {
		return func(ctx context.Context, it Item, pass int, opts schemas.Options, slot int) (Backend, error) {
			c, err := ollama.New(ollama.Config{Host: host, Model: "tiny", Retry: noWait, IdleTimeout: 10 * time.Second})
			return Backend{Chat: c, Model: schemas.Model{Backend: "ollama", Name: "tiny", Host: host, Options: opts}}, err
		}
	}
	sum, err := Run(context.Background(), Options{Cases: cases, Passes: 1, OutDir: out, Model: backendAt("http://127.0.0.1:1")})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Errors != 2 || sum.Worked+sum.Failed != 0 || sum.Incomplete != 2 {
		t.Fatalf("server down: %+v, want every run model-error and incomplete", sum)
	}
	srv := wiretest.NewOllama(t)
	for _, c := range cases {
		drafts, err := c.Drafts("clean")
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range drafts {
			srv.Push(wiretest.Text(d))
		}
	}
	sum, err = Run(context.Background(), Options{Cases: cases, Passes: 1, Jobs: 1, OutDir: out, Resume: true, Model: backendAt(srv.URL)})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Ran != 2 || sum.Skipped != 0 || sum.Worked != 2 || sum.Incomplete != 0 {
		t.Errorf("resume: %+v, want the 2 failed runs redone and worked, none incomplete", sum)
	}
	plan, _ := Plan(context.Background(), Options{Cases: cases, Passes: 1, Model: backendAt("")})
	completeOnce(t, out, plan)
	files, _ := trace.ListFiles(out)
	if len(files) != 4 {
		t.Errorf("%d trace files, want 4 (the model-error attempts kept)", len(files))
	}
}
