package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/pyharness/pyharness/harness/suite"
	"github.com/pyharness/pyharness/internal/testkit/browser"
	"github.com/pyharness/pyharness/internal/testkit/needs"
	"github.com/pyharness/pyharness/internal/testkit/wiretest"
)

// sftValidator is the standard-library checker of the trainers' rules that
// the scripts run on the exports they make (validate-sft).
var sftValidator, _ = filepath.Abs(filepath.Join("..", "..", "scripts", "validate_sft.py"))

// havePython is the [python] condition: python3 is on PATH. Without it a
// script skips the lines that need it, or fails when PYHARNESS_NO_SKIP is
// set.
func havePython() (bool, error) {
	if _, err := exec.LookPath("python3"); err != nil {
		if needs.Strict() {
			return false, fmt.Errorf("no python3 on PATH (apt-get install -y python3), and %s is set", needs.NoSkipEnv)
		}
		return false, nil
	}
	return true, nil
}

// havePytest is the [pytest] condition: a Python 3 that imports pytest, as
// the suite finds one. Without it a script skips, or fails when
// PYHARNESS_NO_SKIP is set.
func havePytest() (bool, error) {
	if _, err := suite.FindPython(context.Background(), "", true); err != nil {
		if needs.Strict() {
			return false, fmt.Errorf("%v (apt-get install -y python3-pytest), and %s is set", err, needs.NoSkipEnv)
		}
		return false, nil
	}
	return true, nil
}

// haveChromium is the [chromium] condition: a Chromium to render pages in.
// Without it a script skips the lines that need it, or fails when
// PYHARNESS_NO_SKIP is set.
func haveChromium() (bool, error) {
	if _, err := browser.Find(); err != nil {
		if needs.Strict() {
			return false, fmt.Errorf("%v, and %s is set", err, needs.NoSkipEnv)
		}
		return false, nil
	}
	return true, nil
}

// TestMain lets the scripts under testdata/script call `pyharness` as a real
// command, run in-process by the test binary.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"pyharness": func() {
			// Signals as main takes them: a script's kill -INT is a Ctrl-C.
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			a := &app{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, now: time.Now, getenv: os.Getenv}
			code := run(ctx, a, os.Args[1:])
			stop()
			os.Exit(code)
		},
		"stand-in-train": func() { os.Exit(standInTrain()) },
		"stand-in-serve": func() { os.Exit(standInServe()) },
	})
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:   "testdata/script",
		Setup: scriptEnv,
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "python":
				return havePython()
			case "pytest":
				return havePytest()
			case "chromium":
				return haveChromium()
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// tasks-verify OUT and waitfor FILE TEXT: tasks.txtar's checks.
			"tasks-verify": tasksVerify,
			"waitfor":      waitFor,
			// validate-sft [--dpo|--tool-calls|--assistant-only] DIR... runs
			// scripts/validate_sft.py on exports; guard it with [python].
			"validate-sft": func(ts *testscript.TestScript, neg bool, args []string) {
				var argv []string
				for _, a := range args {
					if !strings.HasPrefix(a, "--") {
						a = ts.MkAbs(a)
					}
					argv = append(argv, a)
				}
				out, err := exec.Command("python3", append([]string{sftValidator}, argv...)...).CombinedOutput()
				ts.Logf("%s", out)
				if (err != nil) != neg {
					ts.Fatalf("validate_sft.py: %v\n%s", err, out)
				}
			},
			// llama-server starts a llama-server test server replaying the
			// recorded one and sets $LLAMA_URL to its /v1 base URL.
			"llama-server": func(ts *testscript.TestScript, neg bool, args []string) {
				ts.Setenv("LLAMA_URL", wiretest.NewLlamaServer(t).URL)
			},
			// noscroll PAGE renders PAGE in headless Chromium at 1400 px
			// and fails if it scrolls sideways; guard it with [chromium].
			"noscroll": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 1 {
					ts.Fatalf("usage: noscroll PAGE")
				}
				bin, err := browser.Find()
				ts.Check(err)
				html, err := os.ReadFile(ts.MkAbs(args[0]))
				ts.Check(err)
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				px, err := browser.Overflow(ctx, bin, ts.MkAbs("."), "noscroll-"+filepath.Base(args[0]), string(html))
				ts.Check(err)
				if (px > 0) != neg {
					ts.Fatalf("%s scrolls sideways by %d px at %d px wide", args[0], px, browser.Width)
				}
			},
			// waitfile GLOB waits until a file matches GLOB: a background
			// command has got that far. It gives up after five minutes.
			"waitfile": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 1 || neg {
					ts.Fatalf("usage: waitfile GLOB")
				}
				for deadline := time.Now().Add(5 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
					if m, _ := filepath.Glob(ts.MkAbs(args[0])); len(m) > 0 {
						return
					}
					if time.Now().After(deadline) {
						ts.Fatalf("no file matches %s after five minutes", args[0])
					}
				}
			},
			// exitcode N PROG ARGS... runs PROG as exec does (stdout and
			// stderr are read by the lines after it) and fails unless it
			// exits N: the exit code is what a script of the user's reads.
			"exitcode": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) < 2 || neg {
					ts.Fatalf("usage: exitcode N PROG ARGS...")
				}
				want, err := strconv.Atoi(args[0])
				ts.Check(err)
				got := 0
				var ee *exec.ExitError
				if err := ts.Exec(args[1], args[2:]...); errors.As(err, &ee) {
					got = ee.ExitCode()
				} else if err != nil {
					ts.Fatalf("%s: %v", args[1], err)
				}
				if got != want {
					ts.Fatalf("%s exited %d, want %d", args[1], got, want)
				}
			},
			// cut FILE N drops the last N bytes of FILE, as a crash mid-write would.
			"cut": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 2 {
					ts.Fatalf("usage: cut FILE N")
				}
				n, err := strconv.Atoi(args[1])
				ts.Check(err)
				path := ts.MkAbs(args[0])
				b, err := os.ReadFile(path)
				ts.Check(err)
				ts.Check(os.WriteFile(path, b[:len(b)-n], 0o644))
			},
			// spoil FILE N replaces line N of FILE with a line that is not
			// JSON, as a disk fault or a stray write would.
			"spoil": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 2 {
					ts.Fatalf("usage: spoil FILE N")
				}
				n, err := strconv.Atoi(args[1])
				ts.Check(err)
				path := ts.MkAbs(args[0])
				b, err := os.ReadFile(path)
				ts.Check(err)
				lines := strings.SplitAfter(string(b), "\n")
				if n < 1 || n > len(lines) {
					ts.Fatalf("spoil: %s has no line %d", args[0], n)
				}
				lines[n-1] = "{\"type\": \"turn\", this is not JSON\n"
				ts.Check(os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644))
			},
		},
	})
}

// scriptEnv gives the scripts $REPO, the checkout's root (readme.txtar
// installs the command from it), and the go command's own directories,
// which testscript's fresh environment lacks. The go command builds with
// the settings this test binary was built with (scripts/goenv.sh's in CI),
// so that readme.txtar's install reuses the packages compiled for the
// tests rather than compiling them all again.
func scriptEnv(env *testscript.Env) error {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		return err
	}
	env.Setenv("REPO", root)
	for _, name := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOTOOLCHAIN", "CGO_ENABLED"} {
		out, err := exec.Command("go", "env", name).Output()
		if err != nil {
			return fmt.Errorf("go env %s: %w", name, err)
		}
		env.Setenv(name, strings.TrimSpace(string(out)))
	}
	goflags := "-mod=mod"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch {
			case s.Key == "CGO_ENABLED":
				env.Setenv("CGO_ENABLED", s.Value)
			case s.Key == "-trimpath" && s.Value == "true":
				goflags += " -trimpath"
			}
		}
	}
	env.Setenv("GOFLAGS", goflags)
	env.Setenv("GOPROXY", "off")
	return nil
}
