package loop

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/parser"

	"github.com/pyharness/pyharness/internal/gguf"
)

// misreadKey says which keys of a trained GGUF Ollama misreads: it takes
// any ARCH.pooling_type for an embedding model's and then refuses to chat
// with the model ("does not support chat", Ollama v0.17.4's
// server/images.go), and llama-finetune writes the key into every model it
// saves. A value that names no pooling (llama.cpp's NONE 0 and
// UNSPECIFIED −1) says nothing a chat model needs.
func misreadKeys(h *gguf.Header) (remove []string, keep []string) {
	arch, _ := h.String("general.architecture")
	kv, ok := h.Get(arch + ".pooling_type")
	if !ok {
		return nil, nil
	}
	switch v := kv.Value.(type) {
	case uint32:
		if v == 0 || v == 0xffffffff {
			return []string{kv.Key}, nil
		}
	case int32:
		if v == 0 || v == -1 {
			return []string{kv.Key}, nil
		}
	}
	return nil, []string{fmt.Sprintf("%s = %s", kv.Key, gguf.FormatValue(kv))}
}

// importModel brings the train command's output into Ollama as the
// student: a GGUF model with the base's template and parameters, or an
// adapter (a GGUF whose general.type is adapter, or a directory of
// Safetensors) on the base. It writes the Modelfile it used, so the user
// can run `ollama create` with it by hand.
func (o *Options) importModel(ctx context.Context, ss *StageState) ([]string, error) {
	dir, err := o.fresh(importDir)
	if err != nil {
		return nil, err
	}
	// Every path the Modelfile names is absolute: Ollama's parser reads a
	// relative one against the Modelfile's directory, import/.
	if dir, err = filepath.Abs(dir); err != nil {
		return nil, err
	}
	if o.Import == importLlamaServer {
		return o.importLlamaServer(ctx, ss)
	}
	if c, err := parseTrain(o.Train); err == nil && c.writesAdapter() {
		return o.importAdapter(ctx, ss, dir)
	}
	// Absolute, as the Modelfile's paths are read relative to its own
	// directory.
	src, err := filepath.Abs(o.path(trainDir, trainOutput))
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(src)
	if err != nil {
		return nil, fmt.Errorf("the train stage's output: %w", err)
	}
	show, err := o.Ollama.Show(ctx, &api.ShowRequest{Model: o.Base})
	if err != nil {
		return nil, fmt.Errorf("ask Ollama for %s's template and parameters: %w", o.Base, err)
	}
	var notes []string
	// The Modelfile is written by Ollama's own writer, so that its
	// quoting is what its parser reads back.
	var mf parser.Modelfile
	add := func(name, args string) { mf.Commands = append(mf.Commands, parser.Command{Name: name, Args: args}) }
	switch {
	case fi.IsDir():
		add("model", o.Base)
		add("adapter", src)
		notes = append(notes, fmt.Sprintf("an adapter directory, on %s", o.Base))
		ss.Served = fmt.Sprintf("Ollama: FROM %s + ADAPTER %s", o.Base, filepath.Base(src))
	default:
		h, err := readHeader(src)
		if err != nil {
			return nil, fmt.Errorf("the train stage's output %s is neither a directory nor a GGUF file Ollama imports: %w", src, err)
		}
		if t, _ := h.String("general.type"); t == "adapter" {
			add("model", o.Base)
			add("adapter", src)
			notes = append(notes, fmt.Sprintf("a GGUF adapter, on %s", o.Base))
			ss.Served = fmt.Sprintf("Ollama: FROM %s + ADAPTER %s", o.Base, filepath.Base(src))
			break
		}
		model := src
		fixes, fixNotes := o.modelFixes(h)
		for _, k := range fixNotes.kept {
			notes = append(notes, fmt.Sprintf("kept %s: a real pooling type, so Ollama will serve the model for embeddings, not chat", k))
		}
		if len(fixes) > 0 {
			model = filepath.Join(dir, "model.gguf")
			if err := editGGUF(src, model, fixes); err != nil {
				return nil, err
			}
			for _, n := range fixNotes.changed {
				notes = append(notes, n+" (the copy Ollama imports: "+model+")")
			}
		}
		add("model", model)
		if show.Template != "" {
			add("template", show.Template)
		}
		params := parseParameters(show.Parameters)
		for _, k := range sortedKeys(params) {
			switch v := params[k].(type) {
			case []string:
				for _, s := range v {
					add(k, s)
				}
			default:
				add(k, fmt.Sprint(v))
			}
		}
		notes = append(notes, fmt.Sprintf("a whole model, with %s's template and parameters", o.Base))
		ss.Served = fmt.Sprintf("Ollama: FROM %s (a whole model)", filepath.Base(model))
	}
	mfPath := filepath.Join(dir, "Modelfile")
	if err := os.WriteFile(mfPath, []byte(mf.String()), 0o644); err != nil {
		return nil, err
	}
	if err := o.create(ctx, mfPath); err != nil {
		return nil, fmt.Errorf("create %s in Ollama at %s from %s: %w", o.Student, o.Host, mfPath, err)
	}
	notes = append(notes, fmt.Sprintf("created %s in Ollama from %s (by hand: ollama create %s -f %s)", o.Student, mfPath, o.Student, mfPath))
	return notes, nil
}

// trainedAdapter is the absolute path of the adapter the train stage
// wrote, once it is a LoRA adapter that fits --base-file. Absolute, since
// a Modelfile's paths are read relative to its own directory and a
// relative --out would name a file under import/.
func (o *Options) trainedAdapter() (string, error) {
	path, err := filepath.Abs(o.path(trainDir, trainAdapter))
	if err != nil {
		return "", err
	}
	if err := checkAdapter(path); err != nil {
		return "", fmt.Errorf("the train stage's adapter: %w", err)
	}
	if err := o.checkAdapterFits(path); err != nil {
		return "", err
	}
	return path, nil
}

// importAdapter creates the student in Ollama as the base with the LoRA
// adapter the train command wrote to {adapter}: FROM BASE, ADAPTER FILE.
// Ollama keeps the base's template and parameters.
func (o *Options) importAdapter(ctx context.Context, ss *StageState, dir string) ([]string, error) {
	src, err := o.trainedAdapter()
	if err != nil {
		return nil, err
	}
	var mf parser.Modelfile
	mf.Commands = []parser.Command{{Name: "model", Args: o.Base}, {Name: "adapter", Args: src}}
	mfPath := filepath.Join(dir, "Modelfile")
	if err := os.WriteFile(mfPath, []byte(mf.String()), 0o644); err != nil {
		return nil, err
	}
	if err := o.create(ctx, mfPath); err != nil {
		return nil, fmt.Errorf("create %s in Ollama at %s from %s: %w", o.Student, o.Host, mfPath, err)
	}
	ss.Served = fmt.Sprintf("Ollama: FROM %s + ADAPTER %s", o.Base, trainAdapter)
	return []string{
		fmt.Sprintf("the LoRA adapter %s, on %s (Ollama's ADAPTER)", src, o.Base),
		fmt.Sprintf("created %s in Ollama from %s (by hand: ollama create %s -f %s)", o.Student, mfPath, o.Student, mfPath),
	}, nil
}

// checkAdapterFits holds the adapter against --base-file, when that is a
// GGUF (the base the trainer read); a base given by another name (a
// Hugging Face id) is not checked.
func (o *Options) checkAdapterFits(adapter string) error {
	if o.BaseFile == "" {
		return nil
	}
	bh, err := readHeader(o.BaseFile)
	if err != nil {
		return nil
	}
	return checkAdapterBase(adapter, bh, o.BaseFile)
}

func readHeader(path string) (*gguf.Header, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return gguf.ReadHeader(f)
}

type fixNotes struct{ changed, kept []string }

// modelFixes are the edits a trained GGUF needs before Ollama serves it
// as the base was served: the keys it misreads removed, and the trained
// context restored where the trainer wrote its training window instead
// (llama-finetune sets ARCH.context_length to its -c, and Ollama caps
// every request's num_ctx to it).
func (o *Options) modelFixes(h *gguf.Header) ([]func(*gguf.Header), fixNotes) {
	var fixes []func(*gguf.Header)
	var n fixNotes
	remove, keep := misreadKeys(h)
	n.kept = keep
	for _, key := range remove {
		kv, _ := h.Get(key)
		n.changed = append(n.changed, fmt.Sprintf("removed %s = %s from the trained GGUF: Ollama takes any pooling key for an embedding model's and will not chat with it", key, gguf.FormatValue(kv)))
		fixes = append(fixes, func(h *gguf.Header) { h.Remove(key) })
	}
	arch, _ := h.String("general.architecture")
	key := arch + ".context_length"
	trained, ok := h.Get(key)
	if !ok || o.BaseFile == "" {
		return fixes, n
	}
	base, err := readHeader(o.BaseFile)
	if err != nil {
		return fixes, n
	}
	if was, ok := base.Get(key); ok && was.Type == trained.Type && was.Value != trained.Value {
		n.changed = append(n.changed, fmt.Sprintf("set %s back to the base's %s (the trainer wrote %s, its training window; Ollama would cap every prompt to it)", key, gguf.FormatValue(was), gguf.FormatValue(trained)))
		fixes = append(fixes, func(h *gguf.Header) { h.Set(was) })
	}
	return fixes, n
}

func editGGUF(src, dst string, fixes []func(*gguf.Header)) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	err = gguf.Edit(out, in, func(h *gguf.Header) error {
		for _, f := range fixes {
			f(h)
		}
		return nil
	})
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(dst)
		return fmt.Errorf("write %s: %w", dst, err)
	}
	return nil
}

// create does what `ollama create NAME -f Modelfile` does: it reads the
// Modelfile with Ollama's own parser, sends each file it names as a blob,
// and asks the server to create the model from them.
func (o *Options) create(ctx context.Context, modelfile string) error {
	f, err := os.Open(modelfile)
	if err != nil {
		return err
	}
	mf, err := parser.ParseFile(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("parse %s: %w", modelfile, err)
	}
	req, err := mf.CreateRequest(filepath.Dir(modelfile))
	if err != nil {
		return err
	}
	req.Model = o.Student
	upload := func(files map[string]string) (map[string]string, error) {
		if len(files) == 0 {
			return nil, nil
		}
		named := map[string]string{}
		for path, digest := range files {
			if err := o.sendBlob(ctx, path, digest); err != nil {
				return nil, err
			}
			// As the CLI does: the server knows a file by its base name.
			named[filepath.Base(path)] = digest
		}
		return named, nil
	}
	if req.Files, err = upload(req.Files); err != nil {
		return err
	}
	if req.Adapters, err = upload(req.Adapters); err != nil {
		return err
	}
	var last string
	err = o.Ollama.Create(ctx, req, func(p api.ProgressResponse) error {
		if p.Status != last {
			fmt.Fprintf(o.Log, "loop: import: %s\n", p.Status)
			last = p.Status
		}
		return nil
	})
	if err != nil {
		return err
	}
	if last != "success" {
		return fmt.Errorf("the server's last word was %q, not success", last)
	}
	return nil
}

func (o *Options) sendBlob(ctx context.Context, path, digest string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return err
	}
	if got := fmt.Sprintf("sha256:%x", h.Sum(nil)); got != digest {
		return fmt.Errorf("%s changed while it was read (%s, then %s)", path, digest, got)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if err := o.Ollama.CreateBlob(ctx, digest, f); err != nil {
		return fmt.Errorf("send %s: %w", path, err)
	}
	return nil
}

// parseParameters reads /api/show's "parameters" (a line per value, the
// key then the value, strings quoted) into the map a create request
// takes; stop strings gather into a list.
func parseParameters(s string) map[string]any {
	out := map[string]any{}
	for _, line := range strings.Split(s, "\n") {
		key, val, ok := strings.Cut(strings.TrimSpace(line), " ")
		if !ok {
			continue
		}
		val = strings.TrimSpace(val)
		if u, err := strconv.Unquote(val); err == nil {
			val = u
		}
		if key == "stop" {
			list, _ := out[key].([]string)
			out[key] = append(list, val)
			continue
		}
		out[key] = val
	}
	return out
}
