package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pyharness/pyharness/harness"
	"github.com/pyharness/pyharness/harness/draft"
	"github.com/pyharness/pyharness/harness/draft/learn"
	"github.com/pyharness/pyharness/schemas"
)

func newDraftCmd(a *app) *cobra.Command {
	var asJSON bool
	var chatTemplate string
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
its code (parse-failed, or the refusal's: shell-command, ambiguous-draft,
reasoning-cut, plan-not-action, …), the reason and the message the model
would be sent, and exits 1.

With --chat-template FILE (a .jinja file, a tokenizer_config.json or a
GGUF), the syntax learned from the model's own template is printed first,
and the reply is read with it before the general readers: a call written
the way the template writes calls is read exactly, and reasoning under the
template's marks is kept apart (a reply cut inside it is refused).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := "-"
			if len(args) == 1 {
				name = args[0]
			}
			return runDraft(a.stdin, a.stdout, name, chatTemplate, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the reading as JSON")
	cmd.Flags().StringVar(&chatTemplate, "chat-template", "", "read the reply with the syntax learned from this chat template (.jinja, tokenizer_config.json or GGUF)")
	return cmd
}

func runDraft(stdin io.Reader, w io.Writer, name, chatTemplate string, asJSON bool) error {
	var (
		b   []byte
		err error
		syn *draft.Syntax
	)
	if chatTemplate != "" {
		if syn, err = loadChatTemplate(chatTemplate); err != nil {
			return &exitError{code: exitUsage, msg: "draft: " + err.Error()}
		}
	}
	if name == "-" {
		b, err = io.ReadAll(stdin)
	} else {
		b, err = os.ReadFile(name)
	}
	if err != nil {
		return &exitError{code: exitUsage, msg: fmt.Sprintf("draft: %v", err)}
	}
	rd := draft.ReadWith(syn, string(b))
	if strings.TrimSpace(string(b)) == "" {
		// The harness refuses an empty reply before the parser sees it.
		rd = draft.Reading{Refused: &draft.Refusal{Code: schemas.CodeEmptyReply, Reason: "the reply is empty",
			Shape: "none", Via: "text", Message: harness.EmptyReplyMessage(false)}}
	}
	switch {
	case asJSON && syn != nil:
		err = writeJSON(w, struct {
			Syntax  *draft.Syntax `json:"syntax"`
			Reading draft.Reading `json:"reading"`
		}{syn, rd})
	case asJSON:
		err = writeJSON(w, rd)
	default:
		if syn != nil {
			if _, err = io.WriteString(w, "learned from the chat template:\n"); err == nil {
				if _, err = io.WriteString(indent(w), learn.Describe(syn)); err == nil {
					_, err = io.WriteString(w, "\n")
				}
			}
			if err != nil {
				break
			}
		}
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
