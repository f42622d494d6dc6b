package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/pyharness/pyharness/collect/loop/randmodel"
	"github.com/pyharness/pyharness/internal/gguf"
)

type genModelOptions struct {
	randmodel.Config
	vocab        string
	chatTemplate string
	out          string
}

func newGenModelCmd(a *app) *cobra.Command {
	o := genModelOptions{Config: randmodel.Default()}
	cmd := &cobra.Command{
		Use:   "gen-model --vocab VOCAB.gguf --out MODEL.gguf",
		Short: "Write a tiny random-weight llama GGUF with the tokenizer and chat template of a GGUF you name",
		Long: `Writes a llama-architecture model with random F32 weights: the base that
the loop on a CPU trains in minutes and that llama.cpp's server and Ollama
serve like any model. The tokenizer (every tokenizer.* key) and the chat
template are those of --vocab (llama.cpp's models/ggml-vocab-*.gguf files
serve, or any GGUF model); --chat-template FILE (Jinja source) replaces or
supplies the template. The same --seed and flags give the same bytes.

The default init is the one that trains: embeddings at std 1, the layers'
projections at 1/sqrt(fan-in) (--layer-std 0), the output layer at 0.02.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runGenModel(cmd.Context(), a, o)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.vocab, "vocab", "", "a GGUF whose tokenizer (and chat template) the model takes")
	fs.StringVar(&o.chatTemplate, "chat-template", "", "a Jinja chat template file that replaces the vocabulary's")
	fs.StringVar(&o.out, "out", "", "the GGUF file to write")
	fs.StringVar(&o.Name, "name", o.Name, "general.name of the model")
	fs.Uint64Var(&o.Seed, "seed", o.Seed, "the seed of every weight")
	fs.IntVar(&o.Layers, "layers", o.Layers, "transformer blocks")
	fs.IntVar(&o.Embd, "embd", o.Embd, "hidden size")
	fs.IntVar(&o.FF, "ff", o.FF, "feed-forward size")
	fs.IntVar(&o.Heads, "heads", o.Heads, "attention heads")
	fs.IntVar(&o.KVHeads, "kv-heads", o.KVHeads, "key/value heads")
	fs.IntVar(&o.Context, "ctx", o.Context, "the trained context length the file declares")
	fs.Float64Var(&o.EmbedStd, "embed-std", o.EmbedStd, "std of the token embeddings")
	fs.Float64Var(&o.LayerStd, "layer-std", o.LayerStd, "std of the layers' projections; 0 is 1/sqrt(fan-in)")
	fs.Float64Var(&o.OutputStd, "output-std", o.OutputStd, "std of the output layer")
	_ = cmd.MarkFlagRequired("vocab")
	_ = cmd.MarkFlagRequired("out")
	return cmd
}

func runGenModel(ctx context.Context, a *app, o genModelOptions) error {
	if err := o.Validate(); err != nil {
		return &exitError{code: exitUsage, msg: "gen-model: " + err.Error()}
	}
	vf, err := os.Open(o.vocab)
	if err != nil {
		return fmt.Errorf("gen-model: open the vocabulary: %w", err)
	}
	defer vf.Close()
	vocab, err := gguf.ReadHeader(vf)
	if err != nil {
		return fmt.Errorf("gen-model: read the vocabulary %s: %w", o.vocab, err)
	}
	if o.chatTemplate != "" {
		src, err := os.ReadFile(o.chatTemplate)
		if err != nil {
			return fmt.Errorf("gen-model: read the chat template: %w", err)
		}
		o.ChatTemplate = string(src)
	}
	// Written beside the destination and renamed, so that a failed run
	// never leaves a half-written model under the name.
	tmp, err := os.CreateTemp(filepath.Dir(o.out), filepath.Base(o.out)+".tmp*")
	if err != nil {
		return fmt.Errorf("gen-model: %w", err)
	}
	err = randmodel.Write(ctx, tmp, vocab, o.Config)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), o.out)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("gen-model: write %s: %w", o.out, err)
	}
	fi, err := os.Stat(o.out)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "wrote %s (%d bytes): llama, %d layers, width %d, seed %d, tokenizer of %s\n",
		o.out, fi.Size(), o.Layers, o.Embd, o.Seed, o.vocab)
	return nil
}
