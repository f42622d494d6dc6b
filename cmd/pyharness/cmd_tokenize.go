package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/pyharness/pyharness/export/sfttokens"
	"github.com/pyharness/pyharness/harness/chattemplate"
	"github.com/pyharness/pyharness/internal/gguf"
)

type tokenizeOptions struct {
	model, in, out, mode string
}

func newTokenizeCmd(a *app) *cobra.Command {
	var o tokenizeOptions
	cmd := &cobra.Command{
		Use:   "tokenize --model MODEL.gguf --in EXPORT --out DIR",
		Short: "Turn an export's rows into the token ids a trainer trains, with the spans it trains",
		Long: `Renders each row of EXPORT/train.jsonl and valid.jsonl (the prompt-completion
or messages layout) through MODEL's chat template, tokenizes it with MODEL's
tokenizer, and writes DIR/train.jsonl and valid.jsonl: {"ids": [...],
"trained": [[start, end], ...]} a row, the ranges of the ids that are trained.

--mode completion trains what TRL trains: the completion, or the messages of
weight 1. --mode assistant trains every assistant message, as an
assistant-only trainer does. scripts/train_lora.py reads what this writes.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTokenize(cmd.Context(), a, o)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.model, "model", "", "the GGUF model whose chat template and tokenizer are used")
	fs.StringVar(&o.in, "in", "", "an export's directory (train.jsonl, valid.jsonl)")
	fs.StringVar(&o.out, "out", "", "the directory to write")
	fs.StringVar(&o.mode, "mode", string(sfttokens.Completion), "which messages are trained: completion or assistant")
	for _, f := range []string{"model", "in", "out"} {
		_ = cmd.MarkFlagRequired(f)
	}
	return cmd
}

func runTokenize(ctx context.Context, a *app, o tokenizeOptions) error {
	mode, err := sfttokens.ParseMode(o.mode)
	if err != nil {
		return &exitError{code: exitUsage, msg: "tokenize: --" + err.Error()}
	}
	tpl, err := chattemplate.Load(o.model)
	if err != nil {
		return fmt.Errorf("tokenize: %w", err)
	}
	f, err := os.Open(o.model)
	if err != nil {
		return fmt.Errorf("tokenize: %w", err)
	}
	h, err := gguf.ReadHeader(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("tokenize: read %s: %w", o.model, err)
	}
	tok, err := sfttokens.NewTokenizer(h)
	if err != nil {
		return fmt.Errorf("tokenize: the tokenizer of %s: %w", o.model, err)
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return fmt.Errorf("tokenize: %w", err)
	}
	wrote := 0
	for _, split := range []string{"train.jsonl", "valid.jsonl"} {
		in, err := os.Open(filepath.Join(o.in, split))
		if errors.Is(err, os.ErrNotExist) && split != "train.jsonl" {
			continue
		}
		if err != nil {
			return fmt.Errorf("tokenize: %w", err)
		}
		out, err := os.Create(filepath.Join(o.out, split))
		if err != nil {
			in.Close()
			return fmt.Errorf("tokenize: %w", err)
		}
		st, err := sfttokens.Write(ctx, out, in, in.Name(), tpl, tok, mode)
		in.Close()
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("tokenize: %w", err)
		}
		fmt.Fprintf(a.stdout, "%s: %d rows, %d tokens (longest %d), %d trained\n", filepath.Join(o.out, split), st.Rows, st.Tokens, st.Longest, st.Trained)
		wrote++
	}
	return nil
}
