package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/pyharness/pyharness/harness/model"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	a := &app{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, now: time.Now, getenv: os.Getenv}
	stopProfiles := startProfiles(os.Getenv, os.Stderr)
	code := run(ctx, a, os.Args[1:])
	stopProfiles()
	os.Exit(code)
}

// run executes the command line and decides the exit code, in one place.
func run(ctx context.Context, a *app, args []string) int {
	root := newRootCmd(a)
	root.SetArgs(args)
	err := checkCommand(root, args)
	if err == nil {
		err = root.ExecuteContext(ctx)
	}
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintln(a.stderr, "pyharness:", ee.msg)
		}
		return ee.code
	}
	fmt.Fprintln(a.stderr, "pyharness:", err)
	if ctx.Err() != nil {
		return exitInterrupted
	}
	return exitFailure
}

// app holds what every command shares: its streams, the clock, the
// environment. Commands never touch os.Stdout or os.Getenv directly, so
// tests can run them in-process.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	now            func() time.Time
	getenv         func(string) string
	// retry is how the model backends retry a transport fault: the zero
	// value, the model package's defaults, except in tests that would
	// otherwise sleep through the backoff.
	retry model.Retry
}

// exitError carries an exit code of the table in exitcodes.go other than
// exitFailure (or a silent exitFailure after a report that already said
// what was wrong).
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string {
	if e.msg == "" {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.msg
}

// writeJSON prints v as one indented JSON document: the --json output of
// every command.
func writeJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}
