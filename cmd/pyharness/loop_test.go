package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pyharness/pyharness/collect/loop"
	"github.com/pyharness/pyharness/internal/gguf"
	"github.com/pyharness/pyharness/internal/testkit/wiretest"
)

// standInTrain is the train command of the loop's tests, a trainer that
// does what llama-finetune does to a model file without learning
// anything: `stand-in-train BASE DATA OUT` reads the text it is given and
// writes a copy of BASE to OUT with llama.pooling_type added and
// llama.context_length set to its training window, as llama-finetune b5929
// leaves them. With STAND_IN_TRAIN_HANG=FILE it writes its pid to FILE and
// waits to be killed instead.
func standInTrain() int {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: stand-in-train BASE DATA OUT")
		return 2
	}
	base, data, out := os.Args[1], os.Args[2], os.Args[3]
	text, err := os.ReadFile(data)
	if err != nil || len(text) == 0 {
		fmt.Fprintf(os.Stderr, "stand-in-train: no training text in %s: %v\n", data, err)
		return 1
	}
	if hang := os.Getenv("STAND_IN_TRAIN_HANG"); hang != "" {
		os.WriteFile(hang, []byte(strconv.Itoa(os.Getpid())), 0o644)
		select {}
	}
	in, err := os.Open(base)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer in.Close()
	var b bytes.Buffer
	err = gguf.Edit(&b, in, func(h *gguf.Header) error {
		h.Set(gguf.KV{Key: "llama.pooling_type", Type: gguf.TypeUint32, Value: uint32(0)})
		h.Set(gguf.KV{Key: "llama.context_length", Type: gguf.TypeUint32, Value: uint32(256)})
		return nil
	})
	if err == nil {
		err = os.WriteFile(out, b.Bytes(), 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("stand-in-train: read %d bytes of training text, wrote %s\n", len(text), out)
	return 0
}

// tinyBase writes an F32 GGUF shaped like the recorded tiny model's
// header (llama, trained context 4096), with two small tensors, or with
// a quantized one when quantized.
func tinyBase(t *testing.T, dir string, quantized bool) string {
	t.Helper()
	h := &gguf.Header{Version: 3, KV: []gguf.KV{
		{Key: "general.architecture", Type: gguf.TypeString, Value: "llama"},
		{Key: "llama.context_length", Type: gguf.TypeUint32, Value: uint32(4096)},
		{Key: "llama.block_count", Type: gguf.TypeUint32, Value: uint32(1)},
	}}
	second := gguf.TypeF32
	if quantized {
		second = 12 // Q4_K
	}
	h.Tensors = []gguf.TensorInfo{
		{Name: "token_embd.weight", Dims: []uint64{8}, Type: gguf.TypeF32},
		{Name: "output.weight", Dims: []uint64{256}, Type: second, Offset: 32},
	}
	var b bytes.Buffer
	if _, err := h.WriteHeader(&b); err != nil {
		t.Fatal(err)
	}
	b.Write(make([]byte, 32+256*4))
	path := filepath.Join(dir, "base.gguf")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// loopFixture is what every loop test starts from: an Ollama server with
// the base model, which answers prose the parser cannot read, a teacher's
// trace directory (scripted runs of the case recorded as a teacher's), and
// an F32 base file.
type loopFixture struct {
	srv     *wiretest.Ollama
	dir     string
	teacher string
	base    string
}

func newLoopFixture(t *testing.T) *loopFixture {
	t.Helper()
	f := &loopFixture{srv: wiretest.NewOllama(t), dir: t.TempDir()}
	f.srv.Trained = wiretest.Trained4096
	f.srv.AnswerModel("tiny", wiretest.Text("I would start by looking at the code and then fix it."))
	f.teacher = filepath.Join(f.dir, "teacher")
	code, _, stderr := runCLI(t, "bench", "--model", "scripted", "--label", "openai:teacher", "--case", "initials", "--case", "env-flag", "--repeat", "3", "--out", f.teacher)
	if code != 0 {
		t.Fatalf("teacher bench: exit %d: %s", code, stderr)
	}
	f.base = tinyBase(t, f.dir, false)
	return f
}

func (f *loopFixture) args(out string, extra ...string) []string {
	return append([]string{"loop", "--out", out, "--base", "tiny", "--base-file", f.base, "--teacher", f.teacher,
		"--include-scripted", "--data", "plain", "--case", "initials", "--repeat", "2", "--steps", "6",
		"--base-url", f.srv.URL, "--train", "stand-in-train {base} {data} {out}"}, extra...)
}

// student queues the clean solver's drafts of initials, pass by pass, for
// the trained model: the stand-in learned nothing, so the server plays
// what a model that learned the protocol would write.
func (f *loopFixture) student(t *testing.T, passes int) {
	drafts := cleanDrafts(t, "initials")[0]
	for range passes {
		for _, d := range drafts {
			f.srv.PushModel("tiny-loop", wiretest.Text(d))
		}
	}
}

func readLoopState(t *testing.T, out string) *loop.State {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, "loop.json"))
	if err != nil {
		t.Fatal(err)
	}
	var st loop.State
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	return &st
}

// chatModels lists the model of every chat request, in order.
func chatModels(srv *wiretest.Ollama) []string {
	var out []string
	for _, r := range srv.ChatRequests() {
		m, _ := r.Lookup("model")
		out = append(out, fmt.Sprint(m))
	}
	return out
}

func TestLoopEndToEnd(t *testing.T) {
	f := newLoopFixture(t)
	f.student(t, 2)
	out := filepath.Join(f.dir, "loop")
	code, stdout, stderr := runCLI(t, f.args(out)...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	// The stages in order, each recorded done.
	st := readLoopState(t, out)
	var last time.Time
	for _, name := range []string{"bench-base", "export", "train", "import", "bench-trained", "compare"} {
		ss := st.Stages[name]
		if ss == nil || ss.Status != "done" {
			t.Fatalf("stage %s: %+v", name, ss)
		}
		if ss.Started.Before(last) {
			t.Errorf("stage %s started before the one before it ended", name)
		}
		last = ss.Ended
	}
	// The base was benched before the model was created, the student
	// after, and every request to the student came after its creation.
	models := chatModels(f.srv)
	firstStudent := strings.Index(strings.Join(models, ","), "tiny-loop")
	if firstStudent < 0 || strings.Contains(strings.Join(models, ",")[firstStudent:], "tiny,") {
		t.Errorf("chat order: %v", models)
	}
	if !f.srv.Created("tiny-loop") {
		t.Fatal("tiny-loop was not created")
	}
	// The trainer was given the rendered text: the base's Ollama template
	// around each row, each draft ended by the model's stop string.
	text, err := os.ReadFile(filepath.Join(out, "text", "plain", "train.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(text), "<|start_header_id|>system<|end_header_id|>\n\n") || !strings.Contains(string(text), "<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n") {
		t.Errorf("train.txt does not read as the tiny model's template: %.300q", text)
	}
	readme, _ := os.ReadFile(filepath.Join(out, "text", "README.md"))
	if !strings.Contains(string(readme), "Every token is trained") {
		t.Errorf("text README says nothing of what a raw-text trainer learns:\n%s", readme)
	}
	// The import removed the pooling key and restored the context, said
	// so, and the server (reading the file with Ollama's own decoder) took
	// a chat model: its chats were answered, not refused.
	for _, want := range []string{"removed llama.pooling_type = 0", "set llama.context_length back to the base's 4096 (the trainer wrote 256", "created tiny-loop in Ollama"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q", want)
		}
	}
	if log, _ := os.ReadFile(filepath.Join(out, "train", "train.log")); !strings.Contains(string(log), "stand-in-train: read ") {
		t.Errorf("train.log = %q", log)
	}
	// The comparison and the table: the base read no action, the student
	// read its drafts and worked.
	for _, want := range []string{"matched", "read as an action", "0 (0%)", "runs worked", "0 of 2", "2 of 2", "in canonical form",
		"First turns (same prompt on both sides) of 2 runs judged in both: read as an action 0 before, 2 after; 0 only before, 2 only after; exact McNemar p = 0.5."} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(out, "compare.txt")); string(b) != stdout {
		t.Error("compare.txt is not what was printed")
	}

	// Run again: nothing but the comparison runs, no model is asked.
	before := len(f.srv.ChatRequests())
	code, stdout2, stderr2 := runCLI(t, f.args(out)...)
	if code != 0 {
		t.Fatalf("again: exit %d\n%s", code, stderr2)
	}
	if n := len(f.srv.ChatRequests()); n != before {
		t.Errorf("the second run sent %d chat requests", n-before)
	}
	if stdout2 != stdout {
		t.Errorf("the second run printed\n%s\nthe first\n%s", stdout2, stdout)
	}
	for _, s := range []string{"bench-base", "export", "train", "import", "bench-trained"} {
		if !strings.Contains(stderr2, "loop: "+s+": done before") {
			t.Errorf("the second run did not skip %s:\n%s", s, stderr2)
		}
	}
}

// TestLoopResumesAfterKill kills the loop (SIGKILL, a pyharness process)
// in its train stage; run again, it keeps the base bench and the export
// and redoes the training and what follows.
func TestLoopResumesAfterKill(t *testing.T) {
	f := newLoopFixture(t)
	out := filepath.Join(f.dir, "loop")
	marker := filepath.Join(f.dir, "trainer.pid")
	cmd := exec.Command("pyharness", f.args(out)...)
	cmd.Env = append(os.Environ(), "STAND_IN_TRAIN_HANG="+marker)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	var pid int
	for pid == 0 {
		select {
		case <-ctx.Done():
			cmd.Process.Kill()
			t.Fatalf("the trainer never started:\n%s", stderr.String())
		case <-time.After(50 * time.Millisecond):
		}
		if b, err := os.ReadFile(marker); err == nil && len(b) > 0 {
			pid, _ = strconv.Atoi(string(b))
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	syscall.Kill(pid, syscall.SIGKILL) // the trainer is in its own process group
	st := readLoopState(t, out)
	if st.Stages["train"].Status != "running" || st.Stages["export"].Status != "done" {
		t.Fatalf("after the kill: train %+v, export %+v", st.Stages["train"], st.Stages["export"])
	}
	exportInfo, _ := os.Stat(filepath.Join(out, "export", "train.jsonl"))
	benched := len(f.srv.ChatRequests())

	f.student(t, 2)
	code, _, errOut := runCLI(t, f.args(out)...)
	if code != 0 {
		t.Fatalf("resume: exit %d\n%s", code, errOut)
	}
	for _, want := range []string{"loop: bench-base: done before", "loop: export: done before", "loop: train ...", "loop: import ...", "loop: bench-trained ..."} {
		if !strings.Contains(errOut, want) {
			t.Errorf("resume: stderr lacks %q", want)
		}
	}
	for _, m := range chatModels(f.srv)[benched:] {
		if m != "tiny-loop" {
			t.Errorf("resume benched %s again", m)
			break
		}
	}
	if again, _ := os.Stat(filepath.Join(out, "export", "train.jsonl")); exportInfo == nil || !again.ModTime().Equal(exportInfo.ModTime()) {
		t.Error("the export was written again")
	}
	if st := readLoopState(t, out); st.Stages["compare"].Status != "done" {
		t.Errorf("compare after resume: %+v", st.Stages["compare"])
	}
}

// TestLoopNamesWhatIsMissing: before any stage, the loop names each thing
// it needs and did not find, exits 4 and writes nothing.
func TestLoopNamesWhatIsMissing(t *testing.T) {
	f := newLoopFixture(t)
	down := wiretest.NewOllama(t)
	downURL := down.URL
	down.Close()
	quantized := tinyBase(t, t.TempDir(), true)
	for _, tt := range []struct {
		name string
		args []string
		want []string
	}{
		{"no trainer", []string{"--train", "no-such-trainer {data} {out}"},
			[]string{"no trainer: no-such-trainer is not found"}},
		{"llama-finetune not built", []string{"--train", "llama-finetune -m {base} -f {data} && mv finetuned-model.gguf {out}"},
			[]string{"no trainer: llama-finetune is not found", "llama.cpp's trainer"}},
		{"no Ollama", []string{"--base-url", downURL},
			[]string{"no Ollama: no server answers at " + downURL, "ollama serve"}},
		{"base not in Ollama", []string{"--base", "llama3.1:8b"},
			[]string{"the base model llama3.1:8b is not in Ollama", "ollama pull"}},
		{"not F32 for llama-finetune", []string{"--base-file", quantized, "--train", "llama-finetune -m {base} -f {data} && mv finetuned-model.gguf {out}"},
			[]string{"llama-finetune trains F32 weights only", "1 F32, 1 Q4_K tensors", "--outtype f32"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "loop")
			code, _, stderr := runCLI(t, f.args(out, tt.args...)...)
			if code != exitPreflight {
				t.Errorf("exit %d, want %d\n%s", code, exitPreflight, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("%s was written", out)
			}
		})
	}
}
