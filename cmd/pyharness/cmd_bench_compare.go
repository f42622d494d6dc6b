package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/pyharness/pyharness/collect/bench"
	"github.com/pyharness/pyharness/collect/loop"
)

func newBenchCompareCmd(a *app) *cobra.Command {
	var asJSON bool
	var alpha float64
	var teacher string
	cmd := &cobra.Command{
		Use:   "compare OUT_A OUT_B",
		Short: "Put two recorded benchmarks side by side and say whether the difference is resolved",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBenchCompare(cmd.Context(), a, args[0], args[1], alpha, asJSON, teacher)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the comparison as JSON")
	cmd.Flags().Float64Var(&alpha, "alpha", 0.05, "significance level of the paired test")
	cmd.Flags().StringVar(&teacher, "teacher", "", "a teacher's trace directory: also print the loop's before/after table, with the turns taking the teacher's action at that step")
	return cmd
}

func runBenchCompare(ctx context.Context, a *app, dirA, dirB string, alpha float64, asJSON bool, teacher string) error {
	for _, d := range []string{dirA, dirB} {
		if _, err := readInput("bench compare", "", d, false); err != nil {
			return err
		}
	}
	oa, err := bench.ReadOutcomes(ctx, dirA)
	if err != nil {
		return err
	}
	ob, err := bench.ReadOutcomes(ctx, dirB)
	if err != nil {
		return err
	}
	c := bench.Compare(dirA, oa, dirB, ob, alpha)
	if asJSON {
		return writeJSON(a.stdout, c)
	}
	c.WriteText(a.stdout)
	if teacher == "" {
		return nil
	}
	if _, err := readInput("bench compare", "--teacher", teacher, false); err != nil {
		return err
	}
	fmt.Fprintln(a.stdout)
	return loop.Table(ctx, a.stdout, dirA, dirA, dirB, dirB, teacher)
}
