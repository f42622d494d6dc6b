package loop

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pyharness/pyharness/internal/gguf"
	"github.com/pyharness/pyharness/internal/procgroup"
)

// trainCommand is a parsed --train template.
type trainCommand struct {
	template string
	// program is the first word of the command line: what must be found
	// on PATH.
	program string
}

// parseTrain checks a train template: it must say where the data is and
// where the trained model goes ({out}, {adapter} or both), and start with
// a program.
func parseTrain(t string) (trainCommand, error) {
	if !strings.Contains(t, "{data}") {
		return trainCommand{}, fmt.Errorf("--train %q has no {data}: the command must read the exported data from {data}", t)
	}
	if !strings.Contains(t, "{out}") && !strings.Contains(t, "{adapter}") {
		return trainCommand{}, fmt.Errorf("--train %q has no {out} and no {adapter}: the command must write the trained model to {out}, or a LoRA adapter GGUF to {adapter}", t)
	}
	program := programOf(t)
	if program == "" {
		return trainCommand{}, fmt.Errorf("--train %q names no program", t)
	}
	return trainCommand{template: t, program: program}, nil
}

// programOf is the first word of a command line, after any leading
// VAR=value assignments (the environment, not the program): what must be
// found on PATH.
func programOf(line string) string {
	words := strings.Fields(line)
	i := 0
	for i < len(words) && strings.Contains(words[i], "=") && !strings.ContainsAny(words[i][:strings.Index(words[i], "=")], "/{") {
		i++
	}
	if i == len(words) {
		return ""
	}
	return strings.Trim(words[i], `"'`)
}

// writesAdapter reports whether the command writes a LoRA adapter GGUF
// to {adapter}.
func (c trainCommand) writesAdapter() bool { return strings.Contains(c.template, "{adapter}") }

// writesOut reports whether the command writes the trained model to {out}.
func (c trainCommand) writesOut() bool { return strings.Contains(c.template, "{out}") }

// isLlamaFinetune reports whether the command is llama.cpp's trainer,
// which trains F32 weights only.
func (c trainCommand) isLlamaFinetune() bool {
	return filepath.Base(c.program) == "llama-finetune"
}

// whatItNeeds says how a missing trainer is had, for the programs the
// docs name.
func whatItNeeds(program string) string {
	switch filepath.Base(program) {
	case "llama-finetune":
		return "llama.cpp's trainer (examples/training, built with examples on; docs/loop.md names the version whose trainer works)"
	case "mlx_lm.lora", "mlx_lm":
		return "mlx-lm, on Apple silicon (pip install mlx-lm)"
	case "axolotl":
		return "Axolotl, on an NVIDIA GPU (pip install axolotl)"
	case "python", "python3":
		return "a Python with your trainer installed (Unsloth and TRL: pip install unsloth)"
	}
	return "the program the --train command runs"
}

// expand fills the placeholders with shell-quoted paths.
func (c trainCommand) expand(data, base, out, adapter string) string {
	return strings.NewReplacer("{data}", shellQuote(data), "{base}", shellQuote(base), "{out}", shellQuote(out), "{adapter}", shellQuote(adapter)).Replace(c.template)
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == ':' || r == '+' || r == '=' || r == ',' ||
			('0' <= r && r <= '9') || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z'))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// checkF32 refuses a base that llama-finetune cannot train: every tensor
// must be F32.
func checkF32(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("llama-finetune needs the base as an F32 GGUF file (--base-file): %w", err)
	}
	defer f.Close()
	h, err := gguf.ReadHeader(f)
	if err != nil {
		return fmt.Errorf("llama-finetune needs the base as an F32 GGUF file; %s: %w", path, err)
	}
	types := h.TensorTypes()
	if len(types) == 0 {
		return fmt.Errorf("llama-finetune needs a model with its weights, and %s holds no tensors (a vocabulary only)", path)
	}
	if len(types) == 1 && types[gguf.TypeF32] > 0 {
		return nil
	}
	var found []string
	for t, n := range types {
		found = append(found, fmt.Sprintf("%d %s", n, t))
	}
	slices.Sort(found)
	return fmt.Errorf("llama-finetune trains F32 weights only, and %s holds %s tensors: give it the model in F32 (llama.cpp's convert_hf_to_gguf.py --outtype f32 from the original weights)", path, strings.Join(found, ", "))
}

func (o *Options) train(ctx context.Context) ([]string, error) {
	cmdT, err := parseTrain(o.Train)
	if err != nil {
		return nil, err
	}
	dir, err := o.fresh(trainDir)
	if err != nil {
		return nil, err
	}
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		return nil, err
	}
	abs := func(p string) string {
		if p == "" || !looksLikePath(p) {
			return p
		}
		a, err := filepath.Abs(p)
		if err != nil {
			return p
		}
		return a
	}
	// {out} does not exist yet, and the command runs in work: a relative
	// --out would name a path under work.
	out, err := filepath.Abs(filepath.Join(dir, trainOutput))
	if err != nil {
		return nil, err
	}
	adapter, err := filepath.Abs(filepath.Join(dir, trainAdapter))
	if err != nil {
		return nil, err
	}
	line := cmdT.expand(abs(o.dataPath()), abs(o.BaseFile), out, adapter)
	logf, err := os.Create(filepath.Join(dir, trainLog))
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	fmt.Fprintf(logf, "$ %s\n(in %s)\n", line, work)
	fmt.Fprintf(o.Log, "loop: train: %s\nloop: train: output in %s\n", line, filepath.Join(dir, trainLog))
	tail := &tailBuffer{max: 2000}
	cmd := exec.CommandContext(ctx, "sh", "-c", line)
	cmd.Dir = work
	cmd.Stdout = io.MultiWriter(logf, tail)
	cmd.Stderr = cmd.Stdout
	procgroup.Own(cmd)
	cmd.Cancel = func() error { return procgroup.Kill(cmd) }
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("the train command failed (%v); the end of %s:\n%s", err, filepath.Join(dir, trainLog), tail.String())
	}
	var notes []string
	if cmdT.writesOut() {
		fi, err := os.Stat(out)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return nil, fmt.Errorf("the train command ended without error but wrote nothing to {out} (%s); the end of its log:\n%s", out, tail.String())
		case err != nil:
			return nil, err
		case !fi.IsDir() && fi.Size() == 0:
			return nil, fmt.Errorf("the train command left {out} (%s) empty", out)
		}
		notes = append(notes, fmt.Sprintf("wrote %s", out))
	}
	if cmdT.writesAdapter() {
		if err := checkAdapter(adapter); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, fmt.Errorf("the train command ended without error but wrote nothing to {adapter} (%s); the end of its log:\n%s", adapter, tail.String())
			}
			return nil, fmt.Errorf("the train command's {adapter}: %w", err)
		}
		notes = append(notes, fmt.Sprintf("wrote the LoRA adapter %s", adapter))
	}
	return notes, nil
}

// checkAdapter checks that path is what Ollama's ADAPTER and
// llama-server's --lora load: a GGUF whose general.type is adapter, of
// adapter.type lora, holding tensors.
func checkAdapter(path string) error {
	h, err := readHeader(path)
	if errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err != nil {
		return fmt.Errorf("%s is not a GGUF file: %w", path, err)
	}
	if t, _ := h.String("general.type"); t != "adapter" {
		if t == "" {
			t = "none"
		}
		return fmt.Errorf("%s is a GGUF whose general.type is %s, not adapter: {adapter} takes a LoRA adapter (llama.cpp's layout: general.type adapter, adapter.type lora, adapter.lora.alpha); write a whole model to {out}", path, t)
	}
	if t, _ := h.String("adapter.type"); t != "lora" {
		return fmt.Errorf("%s is an adapter of type %q, not lora", path, t)
	}
	if len(h.Tensors) == 0 {
		return fmt.Errorf("%s holds no tensors", path)
	}
	return nil
}

// looksLikePath: a {base} that is a Hugging Face id (org/name) stays as
// it is; one that exists on disk is made absolute, since the command runs
// in its own directory.
func looksLikePath(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	buf bytes.Buffer
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.buf.Write(p)
	if extra := t.buf.Len() - t.max; extra > 0 {
		t.buf.Next(extra)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string { return strings.TrimRight(t.buf.String(), "\n") }

// checkAdapterBase checks the adapter's tensors against the base's as
// llama.cpp does when it applies a LoRA (llama_adapter_lora_init): every
// NAME.lora_a and NAME.lora_b pair must name a tensor NAME of the base,
// lora_a's first dimension must be NAME's first and lora_b's second its
// second (the token embeddings' pair the other way round). Ollama creates a model from an adapter that does not fit and
// fails at its first chat (500, "llama runner process has terminated",
// recorded as chat-adapter-mismatched-base); this says why first.
func checkAdapterBase(adapter string, bh *gguf.Header, base string) error {
	ah, err := readHeader(adapter)
	if err != nil {
		return err
	}
	dims := map[string][]uint64{}
	for _, t := range bh.Tensors {
		dims[t.Name] = t.Dims
	}
	pairs := map[string][2][]uint64{}
	var names []string
	for _, t := range ah.Tensors {
		for i, suffix := range []string{".lora_a", ".lora_b"} {
			if name, ok := strings.CutSuffix(t.Name, suffix); ok {
				p, seen := pairs[name]
				if !seen {
					names = append(names, name)
				}
				p[i] = t.Dims
				pairs[name] = p
			}
		}
	}
	slices.Sort(names)
	for _, name := range names {
		p := pairs[name]
		w, ok := dims[name]
		switch {
		case p[0] == nil || p[1] == nil:
			return fmt.Errorf("the adapter %s has only one of %s.lora_a and .lora_b", adapter, name)
		case !ok:
			return fmt.Errorf("the adapter %s is for a tensor %s the base %s does not have: it was trained on another model", adapter, name, base)
		case len(w) < 2 || len(p[0]) < 2 || len(p[1]) < 2:
			return fmt.Errorf("the adapter %s: %s is not a matrix in the base %s or the adapter", adapter, name, base)
		case name == "token_embd.weight" && (w[0] != p[1][1] || w[1] != p[0][1]),
			name != "token_embd.weight" && (w[0] != p[0][0] || w[1] != p[1][1]):
			return fmt.Errorf("the adapter %s does not fit the base %s: %s is %v there, and the adapter's lora_a is %v, lora_b %v (it was trained on another model; Ollama would create it and fail at the first chat, llama-server would refuse to start)", adapter, base, name, w, p[0], p[1])
		case name != "token_embd.weight" && p[0][1] != p[1][0]:
			return fmt.Errorf("the adapter %s: %s's lora_a is %v and lora_b %v: their ranks differ (llama.cpp: lora_a is not transposed)", adapter, name, p[0], p[1])
		}
	}
	return nil
}
