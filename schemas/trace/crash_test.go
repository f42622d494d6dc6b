package trace

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pyharness/pyharness/schemas"
)

// TestMain lets the test binary play the writer process of the crash test.
func TestMain(m *testing.M) {
	if dir := os.Getenv("PYHARNESS_CRASH_WRITER_DIR"); dir != "" {
		crashWriter(dir)
		return
	}
	os.Exit(m.Run())
}

// crashWriter writes records forever, printing how many are written after
// each Write returns, until it is killed.
func crashWriter(dir string) {
	w, err := Create(dir, "crash")
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	recs := sampleRun("crash")
	if err := w.Write(recs[0]); err != nil {
		os.Exit(2)
	}
	fmt.Println("wrote 1")
	pad := strings.Repeat("x", 4096) // big records make a kill mid-write likely
	for step := 1; ; step++ {
		t := *recs[1].Turn
		t.Step = step
		t.Reply.Content = pad
		if err := w.Write(schemas.Record{Turn: &t}); err != nil {
			os.Exit(2)
		}
		fmt.Printf("wrote %d\n", step+1)
	}
}

// A writer killed with SIGKILL between (or during) records loses nothing it
// had reported written: every acknowledged record is read back.
func TestKilledWriterLosesNoAcknowledgedRecord(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "PYHARNESS_CRASH_WRITER_DIR="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	acked := 0
	for sc.Scan() {
		n, err := strconv.Atoi(strings.TrimPrefix(sc.Text(), "wrote "))
		if err != nil {
			t.Fatalf("writer said %q", sc.Text())
		}
		acked = n
		if acked >= 50 {
			break
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// Drain what it printed before the kill landed.
	done := make(chan struct{})
	go func() {
		for sc.Scan() {
			if n, err := strconv.Atoi(strings.TrimPrefix(sc.Text(), "wrote ")); err == nil {
				acked = n
			}
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("writer output did not close after SIGKILL")
	}
	_ = cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("writer was not killed by SIGKILL: %v", cmd.ProcessState)
	}

	read, lastStep := 0, 0
	for rec, err := range ReadFile(dir + "/crash.jsonl") {
		if err != nil {
			if !IsWarning(err) {
				t.Fatalf("reading the killed writer's trace: %v", err)
			}
			continue
		}
		read++
		if rec.Turn != nil {
			if rec.Turn.Step != lastStep+1 {
				t.Fatalf("step %d after %d: a record was lost", rec.Turn.Step, lastStep)
			}
			lastStep = rec.Turn.Step
		}
	}
	if read < acked {
		t.Fatalf("writer acknowledged %d records before SIGKILL, %d read back", acked, read)
	}
	t.Logf("acknowledged %d, read back %d", acked, read)
}
