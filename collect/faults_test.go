package collect

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/pyharness/pyharness/datasets"
	"github.com/pyharness/pyharness/harness"
	"github.com/pyharness/pyharness/harness/model"
	"github.com/pyharness/pyharness/harness/model/ollama"
	"github.com/pyharness/pyharness/internal/testkit/wiretest"
	"github.com/pyharness/pyharness/schemas"
	"github.com/pyharness/pyharness/schemas/trace"
)

// Environment of the fault child: the test binary re-executed as a collect
// process that a test kills or starves of disk.
const (
	faultChildOut    = "PYHARNESS_FAULT_CHILD_OUT"    // OUT of the collection
	faultChildCases  = "PYHARNESS_FAULT_CHILD_CASES"  // comma-separated case ids
	faultChildJobs   = "PYHARNESS_FAULT_CHILD_JOBS"   // --jobs
	faultChildResume = "PYHARNESS_FAULT_CHILD_RESUME" // "1" for --resume
	faultChildFsize  = "PYHARNESS_FAULT_CHILD_FSIZE"  // RLIMIT_FSIZE in bytes: no file may grow past it
)

// faultChild collects the cases on their clean scripts, printing an event
// line at every model call and every finished run, so the parent can kill
// it at a chosen point; it prints "finished" or "error ..." at the end.
func faultChild(out string) {
	if s := os.Getenv(faultChildFsize); s != "" {
		n, _ := strconv.ParseUint(s, 10, 64)
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
			fmt.Println("error setrlimit:", err)
			os.Exit(2)
		}
	}
	jobs, _ := strconv.Atoi(os.Getenv(faultChildJobs))
	cases := casesByID(strings.Split(os.Getenv(faultChildCases), ","))
	o := Options{Cases: cases, Passes: 1, Jobs: max(jobs, 1), OutDir: out, Resume: os.Getenv(faultChildResume) == "1",
		Progress: func(t Tally) { fmt.Printf("event progress %d/%d\n", t.Done, t.Total) },
		Model: func(ctx context.Context, it Item, pass int, opts schemas.Options, slot int) (Backend, error) {
			be, err := caseScripts(ctx, it, pass, opts, slot)
			be.Chat = announceEvent{be.Chat, it.ID}
			return be, err
		}}
	if _, err := Run(context.Background(), o); err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println("finished")
	os.Exit(0)
}

type announceEvent struct {
	harness.Chatter
	id string
}

func (a announceEvent) Chat(ctx context.Context, req model.Request) (model.Reply, error) {
	fmt.Printf("event chat %s %d\n", a.id, len(req.Messages))
	return a.Chatter.Chat(ctx, req)
}

// casesByID returns the embedded cases with these ids, in plan order.
func casesByID(ids []string) []datasets.Case {
	all, _ := datasets.Cases()
	var out []datasets.Case
	for _, c := range all {
		for _, id := range ids {
			if c.ID == id {
				out = append(out, c)
			}
		}
	}
	return out
}

// startFaultChild starts the fault child on OUT with the given settings.
func startFaultChild(t *testing.T, out string, env ...string) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), faultChildOut+"="+out), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, bufio.NewScanner(stdout)
}

// checkTracesValid validates every trace file under OUT (every attempt):
// no errors, whatever warnings a cut-off attempt has.
func checkTracesValid(t *testing.T, out string) {
	t.Helper()
	v, err := trace.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	files, err := trace.ListFiles(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if rep := v.ValidateFile(f.Path); rep.Errors() > 0 {
			t.Errorf("%s: %+v", f.Path, rep.Problems)
		}
	}
}

// checkPlanFile reads OUT/collect.json and checks it lists every planned
// run as complete.
func checkPlanFile(t *testing.T, out string, plan []*Planned) {
	t.Helper()
	raw, err := os.ReadFile(planPath(out, 0, 0))
	if err != nil {
		t.Fatalf("read the plan file: %v", err)
	}
	var pf planFile
	if err := json.Unmarshal(raw, &pf); err != nil {
		t.Fatalf("the plan file is not JSON: %v", err)
	}
	status := map[string]RunStatus{}
	for _, p := range pf.Runs {
		status[p.RunID] = p.Status
	}
	for _, p := range plan {
		if status[p.RunID] != "complete" {
			t.Errorf("the plan file says run %s (%s) is %q", p.RunID, p.Item, status[p.RunID])
		}
	}
}

// The process row of the fault matrix: collect killed with SIGKILL at
// random points (seeded, so a failure replays), resumed — and killed again —
// then resumed to the end: every planned run is complete exactly once, every
// trace of every attempt is valid, and the plan file says so.
func TestRandomSIGKILLThenResume(t *testing.T) {
	const trials = 20
	seed := uint64(20240611)
	if s := os.Getenv("PYHARNESS_SIGKILL_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("seed %d (PYHARNESS_SIGKILL_SEED replays it)", seed)
	ids := []string{"initials", "fix-offbyone"}

	// Every trial's kill points are drawn first, so that running the trials
	// side by side keeps them what the seed says.
	type kill struct {
		events int           // event lines (model calls, finished runs) to wait for
		delay  time.Duration // then this long
	}
	type trialPlan struct {
		jobs  int
		kills []kill
	}
	rng := rand.New(rand.NewPCG(seed, seed))
	plans := make([]trialPlan, trials)
	for i := range plans {
		plans[i].jobs = 1 + rng.IntN(2)
		for k := 1 + rng.IntN(3); k > 0; k-- {
			plans[i].kills = append(plans[i].kills, kill{events: rng.IntN(12), delay: time.Duration(rng.IntN(300)) * time.Millisecond})
		}
	}

	var passed, midRun atomic.Int32
	t.Run("trials", func(t *testing.T) {
		for i, tp := range plans {
			t.Run(fmt.Sprintf("%02d", i+1), func(t *testing.T) {
				t.Parallel()
				out := t.TempDir()
				var points []string
				for k, kl := range tp.kills {
					env := []string{faultChildCases + "=" + strings.Join(ids, ","), faultChildJobs + "=" + strconv.Itoa(tp.jobs)}
					if k > 0 {
						env = append(env, faultChildResume+"=1")
					}
					cmd, sc := startFaultChild(t, out, env...)
					seen, finished := 0, false
					for seen < kl.events && sc.Scan() {
						line := sc.Text()
						if strings.HasPrefix(line, "event ") {
							seen++
						}
						if line == "finished" || strings.HasPrefix(line, "error") {
							finished = true
							break
						}
					}
					if !finished {
						time.Sleep(kl.delay)
						midRun.Add(1)
					}
					cmd.Process.Signal(syscall.SIGKILL)
					cmd.Wait()
					points = append(points, fmt.Sprintf("after %d events + %s", seen, kl.delay))
				}
				o := Options{Cases: casesByID(ids), Passes: 1, Jobs: tp.jobs, OutDir: out, Resume: true, Model: caseScripts}
				if _, err := Run(context.Background(), o); err != nil {
					t.Fatalf("resume after kills %v: %v", points, err)
				}
				plan, err := Plan(context.Background(), o)
				if err != nil {
					t.Fatal(err)
				}
				completeOnce(t, out, plan)
				checkTracesValid(t, out)
				checkPlanFile(t, out, plan)
				if t.Failed() {
					t.Logf("killed %v, jobs %d", points, tp.jobs)
				} else {
					passed.Add(1)
				}
			})
		}
	})
	kills := 0
	for _, tp := range plans {
		kills += len(tp.kills)
	}
	t.Logf("%d of %d trials passed; %d kills, %d of them before the collect had finished", passed.Load(), trials, kills, midRun.Load())
}

// The disk row of the fault matrix, for collect: the trace file cannot
// grow (RLIMIT_FSIZE: write fails with EFBIG, as a full disk fails with
// ENOSPC) in the middle of the first run. Collect stops with an error that
// says why, every record written before the failure reads back, and the
// next --resume, with room again, redoes the run.
func TestDiskFullThenResume(t *testing.T) {
	out := t.TempDir()
	ids := []string{"initials", "fix-offbyone"}
	// Room for git's templates and the first records of a run, not for a
	// whole run's trace.
	cmd, sc := startFaultChild(t, out, faultChildCases+"="+strings.Join(ids, ","), faultChildFsize+"=10000")
	var last string
	for sc.Scan() {
		if line := sc.Text(); !strings.HasPrefix(line, "event ") {
			last = line
		}
	}
	err := cmd.Wait()
	if err == nil || !strings.HasPrefix(last, "error") {
		t.Fatalf("collect went on with a full disk: exit %v, last line %q", err, last)
	}
	t.Logf("collect stopped: %s", last)
	if !strings.Contains(last, "file too large") || !strings.Contains(last, ".jsonl") {
		t.Errorf("the error does not say what could not be written: %s", last)
	}
	files, err := trace.ListFiles(out)
	if err != nil || len(files) == 0 {
		t.Fatalf("no trace was started: %v", err)
	}
	for _, f := range files {
		run, err := trace.ReadRun(f)
		if err != nil {
			t.Errorf("%s: the records written before the disk filled do not read back: %v", f.Path, err)
			continue
		}
		if run.Start == nil || run.End != nil {
			t.Errorf("%s: run_start %v, run_end %v; want a run cut off after its run_start", f.Path, run.Start != nil, run.End != nil)
		}
		t.Logf("%s kept run_start and %d turns (warnings %v)", filepath.Base(f.Path), len(run.Turns), run.Warnings)
	}
	checkTracesValid(t, out)

	o := Options{Cases: casesByID(ids), Passes: 1, Jobs: 1, OutDir: out, Resume: true, Model: caseScripts}
	sum, err := Run(context.Background(), o)
	if err != nil {
		t.Fatalf("resume with room again: %v", err)
	}
	if sum.Ran != 2 || sum.Worked != 2 {
		t.Errorf("resume: %+v, want both runs redone and worked", sum)
	}
	plan, _ := Plan(context.Background(), o)
	completeOnce(t, out, plan)
	checkTracesValid(t, out)
	if _, err := os.Stat(filepath.Join(files[0].Path)); err != nil {
		t.Errorf("the cut-off attempt was not kept: %v", err)
	}
}

// The model-server row, for collect: a run whose server fails on every
// attempt ends model-error, and collect goes on with the next run, which
// works; the failed run is the one --resume would redo.
func TestCollectGoesOnAfterAModelError(t *testing.T) {
	out := t.TempDir()
	ids := []string{"initials", "fix-offbyone"}
	broken, good := wiretest.NewOllama(t), wiretest.NewOllama(t)
	// Three different crashes: the same 500 twice at temperature 0 would
	// not be retried a third time (model.Retry), and this is about the bound.
	for _, how := range []string{"signal: killed", "exit status 2", "signal: segmentation fault"} {
		broken.Push(wiretest.Fail(500, "llama runner process has terminated: "+how))
	}
	for _, c := range casesByID(ids[1:]) {
		drafts, err := c.Drafts("clean")
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range drafts {
			good.Push(wiretest.Text(d))
		}
	}
	o := Options{Cases: casesByID(ids), Passes: 1, Jobs: 1, OutDir: out,
		Model: func(ctx context.Context, it Item, pass int, opts schemas.Options, slot int) (Backend, error) {
			host := good.URL
			if it.ID == ids[0] {
				host = broken.URL
			}
			c, err := ollama.New(ollama.Config{Host: host, Model: "tiny", Retry: model.Retry{Max: 2, Sleep: model.NoSleep}, IdleTimeout: 10 * time.Second})
			return Backend{Chat: c, Model: schemas.Model{Backend: "ollama", Name: "tiny", Options: opts}}, err
		}}
	sum, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Ran != 2 || sum.Errors != 1 || sum.Worked != 1 {
		t.Errorf("summary %+v: want one model error and one run that worked", sum)
	}
	plan, _ := Plan(context.Background(), o)
	if err := readStatus(t.Context(), out, plan); err != nil {
		t.Fatal(err)
	}
	for _, p := range plan {
		want := RunStatus("complete")
		if p.Item == ids[0] {
			want = "incomplete"
		}
		if p.Status != want {
			t.Errorf("%s: status %s (stop %s), want %s", p.Item, p.Status, p.Stop, want)
		}
	}
	checkTracesValid(t, out)
	if n := len(broken.ChatRequests()); n != 3 {
		t.Errorf("the failing server was asked %d times, want 3 (bounded retries)", n)
	}
}
