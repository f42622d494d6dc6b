package main

import (
	"fmt"
	"slices"
	"strings"
)

// The exit codes of run, bench and collect (and doctor's pre-flight), in
// one table. A scheduler decides from them whether to retry: a usage or
// configuration error fails the same way every time, so it is never worth
// a retry; incomplete runs and a failed pre-flight may well pass the next
// time, and --resume finishes a collection where the last attempt stopped.
// deploy/k8s's podFailurePolicy names these numbers, and a test there
// keeps them equal.
const (
	exitOK         = 0
	exitFailure    = 1
	exitUsage      = 2
	exitIncomplete = 3
	exitPreflight  = 4
	// exitInterrupted is the shell's 128+SIGINT; a SIGTERM gets it too.
	exitInterrupted = 130
)

// exitCodeRows are the table as the docs and --help show it.
var exitCodeRows = []struct {
	code int
	what string
}{
	{exitOK, "success: every planned run ran to its end (its verdict, worked or failed, is in the summary)"},
	{exitFailure, "any other error (a file that cannot be read or written, a bad trace)"},
	{exitUsage, "usage or configuration error (flags, model spec, manifest, an output directory collected without --resume or holding another plan): nothing was run; a retry fails the same way"},
	{exitIncomplete, "runs incomplete: a run ended in a model error (collect: a planned run is not complete at the end); collect --resume redoes exactly those"},
	{exitPreflight, "pre-flight failed (server, model, context window, Python, git or disk): nothing was run"},
	{exitInterrupted, "interrupted (SIGINT or SIGTERM): the run in flight is recorded as cancelled; collect --resume redoes it"},
}

// doctorExitCodes are the rows doctor can end with: it runs nothing, so
// it has no incomplete or interrupted runs to report.
var doctorExitCodes = []int{exitOK, exitFailure, exitUsage, exitPreflight}

// exitCodesHelp is the table for a command's --help: the rows of codes, or
// every row when none are named.
func exitCodesHelp(codes ...int) string {
	var b strings.Builder
	b.WriteString("\n\nExit status:\n")
	for _, r := range exitCodeRows {
		if len(codes) > 0 && !slices.Contains(codes, r.code) {
			continue
		}
		// Wrapped at 80 columns under the text's first column.
		line := fmt.Sprintf("  %3d ", r.code)
		for _, w := range strings.Fields(r.what) {
			if len(line)+1+len(w) > 80 {
				b.WriteString(line + "\n")
				line = strings.Repeat(" ", 6)
			}
			line += " " + w
		}
		b.WriteString(line + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}
