package main

import (
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
	}
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.SetIn(a.stdin)
	root.AddCommand(
		newVersionCmd(a),
		newValidateCmd(a),
		newDemoCmd(a),
		newRunCmd(a),
		newDoctorCmd(a),
		newBenchCmd(a),
		newDedupeCmd(a),
		newExportCmd(a),
		newCollectCmd(a),
		newClassifyCmd(a),
		newStatsCmd(a),
		newReportCmd(a),
		newShowCmd(a),
		newGenCorpusCmd(a),
	)
	return root
}
