package loop

import (
	"bytes"
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pyharness/pyharness/internal/gguf"
)

func TestPlanStages(t *testing.T) {
	o := &Options{Base: "tiny", Student: "tiny-loop", Teacher: "t", Train: "x {data} {out}", Data: DataPlain}
	in := o.inputs()
	state := func(status map[string]string) *State {
		st := &State{Inputs: map[string]string{}, Stages: map[string]*StageState{}}
		for name, s := range status {
			st.Stages[name] = &StageState{Status: s}
			st.Inputs[name] = in[name]
		}
		return st
	}
	allDone := map[string]string{}
	for _, s := range stageOrder {
		allDone[s] = stageDone
	}
	with := func(name, status string) map[string]string {
		m := map[string]string{}
		for k, v := range allDone {
			m[k] = v
		}
		m[name] = status
		return m
	}
	for _, tt := range []struct {
		name  string
		st    *State
		edit  func(*State)
		wantR []string
		gone  string // a stage whose output is no longer there
	}{
		{"nothing done: every stage", state(nil), nil, stageOrder, ""},
		{"all done: only the comparison is printed again", state(allDone), nil, []string{stageCompare}, ""},
		{"killed in train: train and what reads it", state(with(stageTrain, stageRunning)), nil,
			[]string{stageTrain, stageImport, stageBenchTrained, stageCompare}, ""},
		{"failed import", state(with(stageImport, failed)), nil, []string{stageImport, stageBenchTrained, stageCompare}, ""},
		{"killed in the first bench: the base bench and the comparison", state(with(stageBenchBase, stageRunning)), nil,
			[]string{stageBenchBase, stageCompare}, ""},
		{"another train command: train onwards", state(allDone), func(st *State) { st.Inputs[stageTrain] = "train=other" },
			[]string{stageTrain, stageImport, stageBenchTrained, stageCompare}, ""},
		{"another teacher: export onwards, not the base bench", state(allDone), func(st *State) { st.Inputs[stageExport] = "teacher=other" },
			[]string{stageExport, stageTrain, stageImport, stageBenchTrained, stageCompare}, ""},
		{"the trained model deleted from Ollama: import onwards", state(allDone), nil,
			[]string{stageImport, stageBenchTrained, stageCompare}, stageImport},
		{"the base bench's directory removed: the base bench again", state(allDone), nil,
			[]string{stageBenchBase, stageCompare}, stageBenchBase},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.edit != nil {
				tt.edit(tt.st)
			}
			plan := planStages(tt.st, in, func(stage string) bool { return stage != tt.gone })
			var got []string
			for _, s := range stageOrder {
				if plan[s] {
					got = append(got, s)
				}
			}
			if !slices.Equal(got, tt.wantR) {
				t.Errorf("runs %v, want %v", got, tt.wantR)
			}
		})
	}
}

func TestParseTrain(t *testing.T) {
	for _, tt := range []struct {
		cmd, program, err string
	}{
		{"llama-finetune -m {base} -f {data} && mv finetuned-model.gguf {out}", "llama-finetune", ""},
		{"CUDA_VISIBLE_DEVICES=0 python3 train_unsloth.py {data} {out}", "python3", ""},
		{"/opt/llama/bin/llama-finetune -f {data} -m {base}; mv finetuned-model.gguf {out}", "/opt/llama/bin/llama-finetune", ""},
		{"mlx_lm.lora --data {data}", "", "has no {out} and no {adapter}"},
		{"python3 scripts/train_lora.py train --data {data} --out {adapter}", "python3", ""},
		{"axolotl train cfg.yml --out {out}", "", "has no {data}"},
		{"A=1 B=2 {data}{out}", "{data}{out}", ""},
	} {
		c, err := parseTrain(tt.cmd)
		switch {
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%q: err %v, want %q", tt.cmd, err, tt.err)
		case tt.err == "" && err != nil:
			t.Errorf("%q: %v", tt.cmd, err)
		case tt.err == "" && c.program != tt.program:
			t.Errorf("%q: program %q, want %q", tt.cmd, c.program, tt.program)
		}
	}
}

func TestExpandQuotesPaths(t *testing.T) {
	c, _ := parseTrain("trainer --data {data} --out {out} --base {base}")
	got := c.expand("/tmp/my data/train.txt", "org/model-1.5B", "/o/it's", "/a")
	want := `trainer --data '/tmp/my data/train.txt' --out '/o/it'\''s' --base org/model-1.5B`
	if got != want {
		t.Errorf("expand = %s\nwant     %s", got, want)
	}
}

// writeGGUF writes a model file with tensors of the given types and
// metadata, for the checks that read one.
func writeGGUF(t *testing.T, kv []gguf.KV, types ...gguf.TensorType) string {
	t.Helper()
	h := &gguf.Header{Version: 3, KV: kv}
	for i, ty := range types {
		h.Tensors = append(h.Tensors, gguf.TensorInfo{Name: "t" + string(rune('a'+i)), Dims: []uint64{8}, Type: ty, Offset: uint64(64 * i)})
	}
	var b bytes.Buffer
	if _, err := h.WriteHeader(&b); err != nil {
		t.Fatal(err)
	}
	b.Write(make([]byte, 64*len(types)))
	path := filepath.Join(t.TempDir(), "m.gguf")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// parityAdapter is a LoRA adapter GGUF scripts/train_lora.py wrote.
func parityAdapter(t *testing.T) string {
	p, err := filepath.Abs(filepath.Join("..", "..", "export", "sfttokens", "testdata", "parity", "adapter.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCheckAdapter(t *testing.T) {
	kv := func(typ, adapterType string) []gguf.KV {
		out := []gguf.KV{{Key: "general.architecture", Type: gguf.TypeString, Value: "llama"}}
		if typ != "" {
			out = append(out, gguf.KV{Key: "general.type", Type: gguf.TypeString, Value: typ})
		}
		if adapterType != "" {
			out = append(out, gguf.KV{Key: "adapter.type", Type: gguf.TypeString, Value: adapterType})
		}
		return out
	}
	for _, tt := range []struct {
		name string
		path string
		want string
	}{
		{"train_lora.py's adapter", parityAdapter(t), ""},
		{"a whole model", writeGGUF(t, kv("model", ""), gguf.TypeF32), "general.type is model, not adapter"},
		{"no general.type", writeGGUF(t, kv("", ""), gguf.TypeF32), "general.type is none, not adapter"},
		{"a control vector", writeGGUF(t, kv("adapter", "control_vector"), gguf.TypeF32), `type "control_vector", not lora`},
		{"no tensors", writeGGUF(t, kv("adapter", "lora")), "holds no tensors"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := checkAdapter(tt.path)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestCheckF32(t *testing.T) {
	arch := []gguf.KV{{Key: "general.architecture", Type: gguf.TypeString, Value: "llama"}}
	for _, tt := range []struct {
		name  string
		types []gguf.TensorType
		want  string
	}{
		{"all F32", []gguf.TensorType{gguf.TypeF32, gguf.TypeF32}, ""},
		{"quantized", []gguf.TensorType{gguf.TypeF32, 12, 12, gguf.TypeF16}, "holds 1 F16, 1 F32, 2 Q4_K tensors"},
		{"BF16", []gguf.TensorType{gguf.TypeBF16}, "holds 1 BF16 tensors"},
		{"no tensors", nil, "holds no tensors"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := checkF32(writeGGUF(t, arch, tt.types...))
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "F32") {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
	if err := checkF32(filepath.Join(t.TempDir(), "absent.gguf")); err == nil || !strings.Contains(err.Error(), "--base-file") {
		t.Errorf("absent file: %v", err)
	}
}

func TestMisreadKeys(t *testing.T) {
	kv := func(v any, typ gguf.ValueType) *gguf.Header {
		h := &gguf.Header{KV: []gguf.KV{{Key: "general.architecture", Type: gguf.TypeString, Value: "llama"}}}
		if v != nil {
			h.KV = append(h.KV, gguf.KV{Key: "llama.pooling_type", Type: typ, Value: v})
		}
		return h
	}
	for _, tt := range []struct {
		name         string
		h            *gguf.Header
		remove, keep int
	}{
		{"none (0): removed", kv(uint32(0), gguf.TypeUint32), 1, 0},
		{"unspecified (-1): removed", kv(int32(-1), gguf.TypeInt32), 1, 0},
		{"mean (1): a real embedding model, kept", kv(uint32(1), gguf.TypeUint32), 0, 1},
		{"absent", kv(nil, 0), 0, 0},
	} {
		r, k := misreadKeys(tt.h)
		if len(r) != tt.remove || len(k) != tt.keep {
			t.Errorf("%s: remove %v keep %v", tt.name, r, k)
		}
	}
}

func TestParseParameters(t *testing.T) {
	// /api/show's parameters as recorded from Ollama v0.17.4 (show-tiny),
	// with a number added as Ollama prints one.
	p := parseParameters("stop                           \"<|eot_id|>\"\nstop                           \"<|end_of_text|>\"\nnum_ctx                        4096")
	if s, _ := p["stop"].([]string); !slices.Equal(s, []string{"<|eot_id|>", "<|end_of_text|>"}) || p["num_ctx"] != "4096" {
		t.Errorf("parameters = %#v", p)
	}
}

func TestTrainStage(t *testing.T) {
	for _, tt := range []struct {
		name, cmd, want string
	}{
		{"writes its output", "test -d {data} && echo weights > {out} && echo trained", ""},
		{"fails", "echo 'out of memory' >&2; exit 3 # {data} {out}", "out of memory"},
		{"writes nothing", "echo done # {data} {out}", "wrote nothing to {out}"},
		{"writes its adapter", "test -d {data} && cp " + parityAdapter(t) + " {adapter} && echo trained", ""},
		{"writes a model where the adapter goes", "test -d {data} && echo weights > {adapter}", "is not a GGUF file"},
		{"writes {out} but not {adapter}", "echo w > {out} # {data} {adapter}", "wrote nothing to {adapter}"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := &Options{Out: t.TempDir(), Train: tt.cmd, Data: DataJSONL, Log: &bytes.Buffer{}}
			os.MkdirAll(o.path(exportDir), 0o755)
			_, err := o.train(context.Background())
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				log, _ := os.ReadFile(o.path(trainDir, trainLog))
				if !strings.Contains(string(log), "trained") {
					t.Errorf("train.log = %q, want the command's output", log)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

// The command runs in its own work directory, so every path it is given
// is absolute even when --out is relative (as `--out loop` is).
func TestTrainStageRelativeOut(t *testing.T) {
	t.Chdir(t.TempDir())
	o := &Options{Out: "loop", Train: "test -d {data} && echo weights > {out}", Data: DataJSONL, Log: &bytes.Buffer{}}
	os.MkdirAll(o.path(exportDir), 0o755)
	if _, err := o.train(context.Background()); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(o.path(trainDir, trainOutput)); err != nil || string(b) != "weights\n" {
		t.Errorf("output = %q, %v", b, err)
	}
}

// tensorsGGUF writes a GGUF header with the named tensors of the given
// dimensions (no data: the checks read headers only).
func tensorsGGUF(t *testing.T, tensors map[string][]uint64) string {
	t.Helper()
	h := &gguf.Header{Version: 3, KV: []gguf.KV{{Key: "general.architecture", Type: gguf.TypeString, Value: "llama"}}}
	for _, name := range slices.Sorted(maps.Keys(tensors)) {
		h.Tensors = append(h.Tensors, gguf.TensorInfo{Name: name, Dims: tensors[name], Type: gguf.TypeF32})
	}
	var b bytes.Buffer
	if _, err := h.WriteHeader(&b); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "t.gguf")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCheckAdapterBase(t *testing.T) {
	base := tensorsGGUF(t, map[string][]uint64{"blk.0.attn_q.weight": {64, 64}, "blk.0.attn_k.weight": {64, 32}, "token_embd.weight": {64, 300}})
	for _, tt := range []struct {
		name    string
		adapter map[string][]uint64
		want    string
	}{
		{"fits", map[string][]uint64{"blk.0.attn_k.weight.lora_a": {64, 4}, "blk.0.attn_k.weight.lora_b": {4, 32}}, ""},
		{"token embeddings the other way round", map[string][]uint64{"token_embd.weight.lora_a": {4, 300}, "token_embd.weight.lora_b": {4, 64}}, ""},
		{"ranks differ", map[string][]uint64{"blk.0.attn_k.weight.lora_a": {64, 4}, "blk.0.attn_k.weight.lora_b": {8, 32}}, "lora_a is [64 4] and lora_b [8 32]: their ranks differ"},
		{"another width", map[string][]uint64{"blk.0.attn_q.weight.lora_a": {128, 4}, "blk.0.attn_q.weight.lora_b": {4, 128}}, "blk.0.attn_q.weight is [64 64] there, and the adapter's lora_a is [128 4], lora_b [4 128]"},
		{"a tensor the base lacks", map[string][]uint64{"blk.1.attn_q.weight.lora_a": {64, 4}, "blk.1.attn_q.weight.lora_b": {4, 64}}, "is for a tensor blk.1.attn_q.weight the base"},
		{"half a pair", map[string][]uint64{"blk.0.attn_q.weight.lora_a": {64, 4}}, "has only one of blk.0.attn_q.weight.lora_a and .lora_b"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bh, err := readHeader(base)
			if err != nil {
				t.Fatal(err)
			}
			err = checkAdapterBase(tensorsGGUF(t, tt.adapter), bh, base)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}
