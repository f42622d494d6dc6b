package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// defaultOut is where every command writes and reads unless told otherwise.
const defaultOut = "pyharness-out"

func newRootCmd(a *app) *cobra.Command {
	root := &cobra.Command{
		Use:           "pyharness",
		Short:         "A coding-agent harness for local language models, and the pipeline from its traces to fine-tuning data",
		SilenceUsage:  true,
		SilenceErrors: true,
		// An unknown command is a usage error (cobra's own check of the
		// root's arguments cannot be given an exit code).
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return unknownCommand(cmd, args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
		// A mistyped command within two edits of one is suggested.
		SuggestionsMinimumDistance: 2,
	}
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.SetIn(a.stdin)
	root.AddCommand(
		newVersionCmd(a),
		newValidateCmd(a),
		newDraftCmd(a),
		newDemoCmd(a),
		newRunCmd(a),
		newDoctorCmd(a),
		newBenchCmd(a),
		newDedupeCmd(a),
		newExportCmd(a),
		newCollectCmd(a),
		newTasksCmd(a),
		newClassifyCmd(a),
		newStatsCmd(a),
		newReportCmd(a),
		newShowCmd(a),
		newGenCorpusCmd(a),
		newLoopCmd(a),
		newGenModelCmd(a),
		newTokenizeCmd(a),
	)
	usageErrors(root)
	return root
}

// checkCommand refuses a command line whose first word is no command,
// before any flag is read: "colect --passes 2" is a mistyped command, not
// an unknown flag of the root.
func checkCommand(root *cobra.Command, args []string) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return nil
	}
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == args[0] || c.HasAlias(args[0]) {
			return nil
		}
	}
	return &exitError{code: exitUsage, msg: unknownCommand(root, args[0]).Error()}
}

// unknownCommand says a word is no command of root, and which it may have
// meant (cobra's suggestions: a prefix of one, or within two edits).
func unknownCommand(root *cobra.Command, word string) error {
	msg := fmt.Sprintf("unknown command %q for %q", word, root.CommandPath())
	if near := root.SuggestionsFor(word); len(near) > 0 {
		msg += "; did you mean " + strings.Join(near, " or ") + "?"
	}
	return errors.New(msg)
}

// usageErrors makes cobra's own refusals of a command line (an unknown
// flag, a bad flag value, an argument where none is taken) exit with
// exitUsage, as the commands' own checks of their flags do.
func usageErrors(c *cobra.Command) {
	c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &exitError{code: exitUsage, msg: err.Error()}
	})
	if args := c.Args; args != nil {
		c.Args = func(cmd *cobra.Command, a []string) error {
			if err := args(cmd, a); err != nil {
				if !cmd.HasParent() {
					return &exitError{code: exitUsage, msg: err.Error()}
				}
				// cobra says only how many arguments it wanted; the
				// command's use line says what they are.
				return &exitError{code: exitUsage, msg: fmt.Sprintf("%s: %v\nusage: %s", cmd.CommandPath(), err, cmd.UseLine())}
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		usageErrors(sub)
	}
}
