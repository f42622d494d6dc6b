package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/pyharness/pyharness/report/transcript"
)

type showOptions struct {
	in          string
	caseID      string
	pass        int
	last        bool
	full, patch bool
	json        bool
	color       string
	noPager     bool
}

func newShowCmd(a *app) *cobra.Command {
	opts := showOptions{}
	cmd := &cobra.Command{
		Use:   "show [RUN] [RUN]",
		Short: "Print one run as a transcript, turn by turn, or two runs side by side",
		Long: `Prints a run as a transcript read top to bottom: the head (case, task,
model, harness, verdict, earlier attempts set aside), each turn (what was
sent, the model's draft, how it was read, the outcome and the harness's
feedback, tokens and timings, retries and warnings), and the tail (suites
before and after, the checks, the writes, and with --patch the patch).

RUN is a run id, a unique prefix of one, or a trace file; --case C (with
--pass N when the case ran more than once) or --last pick a run of --in
instead. Long drafts and messages are folded to a few lines; --full prints
them whole. --json prints the trace's records as they are.

Two RUNs are laid side by side, step by step, with the first step where they
part marked.

Colour is used on a terminal only, and never when NO_COLOR is set (--color
always or never overrides). On a terminal the output goes through $PAGER,
less by default (given LESS=FRX when LESS is unset: a transcript that fits
the screen is printed, a longer one paged with its colours), as git does;
--no-pager or PAGER=cat prints it straight.`,
		Args: cobra.MaximumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runShow(cmd.Context(), a, opts, args)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&opts.in, "in", defaultOut, "the trace directory to look in")
	fs.StringVar(&opts.caseID, "case", "", "show the run of this case")
	fs.IntVar(&opts.pass, "pass", 0, "with --case: the pass")
	fs.BoolVar(&opts.last, "last", false, "show the newest run")
	fs.BoolVar(&opts.full, "full", false, "print long drafts and messages whole")
	fs.BoolVar(&opts.patch, "patch", false, "print the run's patch")
	fs.BoolVar(&opts.json, "json", false, "print the trace's records as they are")
	fs.StringVar(&opts.color, "color", "auto", "auto, always or never")
	fs.BoolVar(&opts.noPager, "no-pager", false, "never page the output")
	return cmd
}

// checkShowArgs refuses combinations show cannot honour.
func checkShowArgs(o showOptions, args []string) error {
	picks := 0
	if len(args) > 0 {
		picks++
	}
	if o.caseID != "" {
		picks++
	}
	if o.last {
		picks++
	}
	switch {
	case picks == 0:
		return errors.New("name a run: a run id or prefix, a trace file, --case C, or --last")
	case picks > 1:
		return errors.New("name a run one way: RUN, --case or --last")
	case o.pass != 0 && o.caseID == "":
		return errors.New("--pass goes with --case")
	case o.pass < 0:
		return errors.New("--pass must be 1 or more")
	case o.color != "auto" && o.color != "always" && o.color != "never":
		return fmt.Errorf("--color %q: want auto, always or never", o.color)
	}
	return nil
}

func runShow(ctx context.Context, a *app, o showOptions, args []string) error {
	if err := checkShowArgs(o, args); err != nil {
		return &exitError{code: 2, msg: "show: " + err.Error()}
	}
	if needsInDir(o, args) {
		if _, err := readInput("show", "--in", o.in, false); err != nil {
			return err
		}
	}
	var runs []*transcript.Run
	var problems int
	find := func() ([]transcript.Found, error) {
		switch {
		case o.caseID != "":
			f, err := transcript.FindCase(ctx, o.in, o.caseID, o.pass)
			var amb *transcript.AmbiguousError
			if errors.As(err, &amb) && o.pass == 0 {
				// As a case's name does: the first run is shown, and the
				// others named.
				fmt.Fprintf(a.stderr, "show: case %s has %d runs; showing %s (the others: %s); --pass N picks one\n",
					o.caseID, len(amb.Matches), amb.Matches[0], strings.Join(amb.Matches[1:], ", "))
				id, _, _ := strings.Cut(amb.Matches[0], " ")
				f, err = transcript.Find(ctx, o.in, id)
			}
			return []transcript.Found{f}, err
		case o.last:
			f, err := transcript.FindLast(ctx, o.in)
			return []transcript.Found{f}, err
		}
		var out []transcript.Found
		for _, arg := range args {
			f, err := transcript.Find(ctx, o.in, arg)
			var amb *transcript.AmbiguousError
			if errors.As(err, &amb) && len(args) == 1 && sameRun(amb.Matches) {
				// A case's name ("bench-fix-offbyone") names its run in
				// every pass: the first is shown, and the others named.
				fmt.Fprintf(a.stderr, "show: %s names %d runs, one per pass; showing %s (the others: %s)\n",
					arg, len(amb.Matches), amb.Matches[0], strings.Join(amb.Matches[1:], ", "))
				f, err = transcript.Find(ctx, o.in, amb.Matches[0])
			}
			if err != nil {
				return nil, err
			}
			out = append(out, f)
		}
		return out, nil
	}
	found, err := find()
	if err != nil {
		return fmt.Errorf("show: %w", err)
	}
	for _, f := range found {
		r, err := transcript.Load(f.File, f.Earlier)
		if err != nil {
			return fmt.Errorf("show: %w", err)
		}
		problems += len(r.Problems)
		runs = append(runs, r)
	}

	terminal := isTerminal(a.stdout)
	var out bytes.Buffer
	switch {
	case o.json:
		for _, r := range runs {
			if err := transcript.WriteRecords(&out, r); err != nil {
				return fmt.Errorf("show: %w", err)
			}
		}
	case len(runs) == 2:
		co := transcript.CompareOptions{Color: useColor(o.color, terminal, a.getenv), Width: terminalWidth(a.stdout)}
		if err := transcript.WriteCompare(ctx, &out, runs[0], runs[1], co); err != nil {
			return fmt.Errorf("show: %w", err)
		}
	default:
		to := transcript.Options{Color: useColor(o.color, terminal, a.getenv), Full: o.full, Patch: o.patch}
		if err := transcript.WriteText(ctx, &out, runs[0], to); err != nil {
			return fmt.Errorf("show: %w", err)
		}
	}
	pager := ""
	if terminal && !o.noPager && !o.json {
		pager = pagerCommand(a.getenv)
	}
	if err := page(ctx, a, pager, out.Bytes()); err != nil {
		return fmt.Errorf("show: %w", err)
	}
	if problems > 0 {
		return &exitError{code: 1, msg: fmt.Sprintf("show: %d line(s) of the trace could not be read; the transcript holds every good record and names them", problems)}
	}
	return nil
}

// useColor decides colour as git does: always, never, or on a terminal
// when NO_COLOR is not set (https://no-color.org).
func useColor(flag string, terminal bool, getenv func(string) string) bool {
	switch flag {
	case "always":
		return true
	case "never":
		return false
	}
	return terminal && getenv("NO_COLOR") == "" && getenv("TERM") != "dumb"
}

// pagerCommand is the pager to use, as git chooses it: $PAGER, else less;
// "" or cat means none.
func pagerCommand(getenv func(string) string) string {
	p := strings.TrimSpace(getenv("PAGER"))
	if p == "" {
		p = "less"
	}
	if p == "cat" {
		return ""
	}
	return p
}

// page writes out through the pager, or straight to stdout without one. As
// git does, less is told -FRX through $LESS when $LESS is not set: quit if
// the text fits one screen, pass colours, leave the screen as it was.
func page(ctx context.Context, a *app, pager string, out []byte) error {
	if pager == "" {
		_, err := a.stdout.Write(out)
		return err
	}
	cmd := exec.CommandContext(ctx, "sh", "-c", pager)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(out), a.stdout, a.stderr
	cmd.Env = os.Environ()
	if a.getenv("LESS") == "" {
		cmd.Env = append(cmd.Env, "LESS=FRX")
	}
	if a.getenv("LV") == "" {
		cmd.Env = append(cmd.Env, "LV=-c")
	}
	err := cmd.Run()
	var ee *exec.ExitError
	if err == nil || (errors.As(err, &ee) && ee.ExitCode() != 127) {
		return nil // a pager that quit early was quit by its reader
	}
	// No pager to start (the shell's 127 is "command not found"): print as
	// if there were none.
	_, werr := a.stdout.Write(out)
	return werr
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// terminalWidth is the width of the terminal w writes to, 0 when it is not
// one.
func terminalWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok {
		if width, _, err := term.GetSize(int(f.Fd())); err == nil {
			return width
		}
	}
	return 0
}

// needsInDir reports whether show looks runs up in --in: for --case,
// --last and any RUN that is not a trace file.
func needsInDir(o showOptions, args []string) bool {
	if o.caseID != "" || o.last {
		return true
	}
	for _, arg := range args {
		if st, err := os.Stat(arg); err != nil || st.IsDir() {
			return true
		}
	}
	return false
}

// runPass is a run id's pass part: "bench-fix-offbyone-p2-76c80aaa8328"
// is bench-fix-offbyone in pass 2.
var runPass = regexp.MustCompile(`^(.+)-p\d+-[0-9a-f]+$`)

// sameRun reports whether the ids are one case's runs in different passes.
func sameRun(ids []string) bool {
	name := ""
	for _, id := range ids {
		m := runPass.FindStringSubmatch(id)
		if m == nil || name != "" && m[1] != name {
			return false
		}
		name = m[1]
	}
	return name != ""
}
