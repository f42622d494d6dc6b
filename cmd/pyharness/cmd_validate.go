package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/pyharness/pyharness/schemas/trace"
)

func newValidateCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "validate PATH...",
		Short: "Check trace files or directories against the trace schema and the run invariants",
		Long: `Reads trace files, or directories of them (DIR/runs/*.jsonl or DIR/*.jsonl),
checks every record against schemas/trace.v1.schema.json and the run invariants
(run_start first, steps counting up from 1, at most one run_end and nothing
after it, every record's run_id the file's), and prints per file the records
read, whether the run is complete, and every problem as file:line.
Exits 1 when any file has an error; warnings (a torn last line, an incomplete
run) do not fail it.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runValidate(cmd.Context(), a.stdout, args)
		},
	}
}

func runValidate(ctx context.Context, w io.Writer, paths []string) error {
	v, err := trace.NewValidator()
	if err != nil {
		return err
	}
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return &exitError{code: exitUsage, msg: fmt.Sprintf("validate: %v", err)}
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		list, err := trace.ListFiles(p)
		if err != nil {
			return fmt.Errorf("validate: %w", err)
		}
		if len(list) == 0 {
			return &exitError{code: exitUsage, msg: fmt.Sprintf("validate: no trace files (*.jsonl) in %s or %s/runs%s", p, p, whereRunsAre("validate", p))}
		}
		for _, f := range list {
			files = append(files, f.Path)
		}
	}
	var records, bad, incomplete, warnings int
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		rep := v.ValidateFile(f)
		records += rep.Records
		status := "ok"
		switch {
		case rep.Errors() > 0:
			status = fmt.Sprintf("%d error(s)", rep.Errors())
			bad++
		case !rep.Complete:
			status = "incomplete"
		}
		if !rep.Complete {
			incomplete++
		}
		if rep.Records == 0 && rep.Errors() == 0 {
			// Torn at its first line: no record of the run was read.
			status = "no record read: an error"
			bad++
		}
		fmt.Fprintf(w, "%s: %d records (%d turns), %s\n", f, rep.Records, rep.Turns, status)
		for _, p := range rep.Problems {
			if p.Severity == trace.SeverityWarning {
				warnings++
			}
			loc := f
			if p.Line > 0 {
				loc = fmt.Sprintf("%s:%d", f, p.Line)
			}
			fmt.Fprintf(w, "  %s: %s: %s\n", loc, p.Severity, p.Message)
		}
	}
	fmt.Fprintf(w, "%d file(s), %d records, %d with errors, %d incomplete run(s), %d warning(s)\n",
		len(files), records, bad, incomplete, warnings)
	if bad > 0 {
		return &exitError{code: exitFailure}
	}
	return nil
}
