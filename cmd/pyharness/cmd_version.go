package main

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/pyharness/pyharness/internal/version"
	"github.com/pyharness/pyharness/schemas"
)

func newVersionCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit and trace schema of this build",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			h := version.Harness()
			dirty := ""
			if h.Dirty {
				dirty = " (dirty)"
			}
			fmt.Fprintf(a.stdout, "pyharness %s\ncommit %s%s\ntrace schema %s (minor %d)\n%s %s/%s\n",
				h.Version, h.Commit, dirty, schemas.Schema, schemas.SchemaMinor, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return nil
		},
	}
}
