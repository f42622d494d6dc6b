package main

import (
	"context"
	"fmt"
	"io"

	"github.com/pyharness/pyharness/schemas"
	"github.com/spf13/cobra"
)

type doctorOptions struct {
	python string
	out    string
	model  modelFlags
}

func newDoctorCmd(a *app) *cobra.Command {
	opts := doctorOptions{}
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check the model server, the model, Python, git and disk before a long job",
		Long: `Checks that the model server answers and has the model (its digest, trained
context and template), which context window a run will have (requested with
--num-ctx, trained, in force on the server, and the effective one prompts are
budgeted against, with a warning where the one asked for will not apply), that
--num-ctx and --num-predict leave room for a prompt (the rule run refuses by),
which Python interpreters there are and which has pytest, that git is there,
and that the output directory's disk has room. Works with Ollama, Ollama's /v1
and llama-server (openai:NAME --base-url http://host:8080/v1). bench and
collect run the same checks first. A failed check exits with the pre-flight
code of run, bench and collect.` + exitCodesHelp(doctorExitCodes...),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDoctor(cmd.Context(), a, opts)
		},
	}
	cmd.Flags().StringVar(&opts.python, "python", "", "the Python interpreter to check")
	cmd.Flags().StringVar(&opts.out, "out", defaultOut, "output directory whose disk is checked")
	opts.model.register(cmd)
	opts.model.registerChatTemplate(cmd)
	return cmd
}

func runDoctor(ctx context.Context, a *app, o doctorOptions) error {
	spec, err := parseModelSpec(o.model.spec)
	if err != nil {
		return &exitError{code: exitUsage, msg: err.Error()}
	}
	if spec.backend == schemas.BackendScripted && spec.arg == "" {
		spec.arg = "each case's own scripts"
	}
	be := &backend{}
	if spec.backend == schemas.BackendOllama || spec.backend == schemas.BackendOpenAI {
		if be, err = openBackend(ctx, a, spec, &o.model); err != nil {
			return err
		}
	} else {
		be.info.Backend, be.info.Name = spec.backend, spec.arg
	}
	res := be.preflight(ctx, &o.model, o.python, o.out)
	res.Write(a.stdout)
	writeChatSyntax(a.stdout, be.info.ChatSyntax)
	if res.Failed() {
		return &exitError{code: exitPreflight, msg: "doctor: a check failed; fix it before a long job"}
	}
	return nil
}

// writeChatSyntax says which syntax replies are read with: the one
// learned from the model's chat template, or why there is none.
func writeChatSyntax(w io.Writer, cs *schemas.ChatSyntax) {
	if cs == nil {
		return
	}
	if cs.Template == "" {
		fmt.Fprintf(w, "chat syntax: none learned: %s\n", cs.None)
		return
	}
	fmt.Fprintf(w, "chat syntax: learned from the chat template of %s (%s)\n", cs.From, cs.Template)
	for _, l := range [][2]string{{"calls", cs.Calls}, {"reasoning", cs.Reasoning}, {"none", cs.None}} {
		if l[1] != "" {
			fmt.Fprintf(w, "  %-10s %s\n", l[0]+":", l[1])
		}
	}
}
