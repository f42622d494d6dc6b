package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/pyharness/pyharness/draft"
)

func newDraftCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "draft [FILE|-]",
		Short: "Show how the parser reads one model reply: its action, shape and repairs, or why it is refused",
		Long: `Reads one model reply (a draft) from FILE, or from standard input when FILE
is - or absent, and prints how the harness's parser reads it: the verb, path,
line window, path candidates, the sizes of a body or of FIND/REPLACE blocks or
diff hunks, the shape codes and repairs, and for a draft written in another
format the canonical form the model is shown ("read as"). Reasoning (a
<think> block, harmony's analysis channel, [THINK], <reasoning>) is printed
apart: no action is ever read from it. A draft that is not acted on prints
its code (parse-failed, shell-command, ambiguous-draft, reasoning-cut), the
reason and the message the model would be sent, and exits 1.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := "-"
			if len(args) == 1 {
				name = args[0]
			}
			return runDraft(a.stdin, a.stdout, name, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the reading as JSON")
	return cmd
}

func runDraft(stdin io.Reader, w io.Writer, name string, asJSON bool) error {
	var (
		b   []byte
		err error
	)
	if name == "-" {
		b, err = io.ReadAll(stdin)
	} else {
		b, err = os.ReadFile(name)
	}
	if err != nil {
		return fmt.Errorf("read draft: %w", err)
	}
	rd := draft.Read(string(b))
	if asJSON {
		err = writeJSON(w, rd)
	} else {
		err = rd.WriteText(w)
	}
	if err != nil {
		return fmt.Errorf("write reading: %w", err)
	}
	if rd.Refused != nil {
		return &exitError{code: 1}
	}
	return nil
}
