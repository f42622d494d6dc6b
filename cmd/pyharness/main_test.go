package main

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/pyharness/pyharness/internal/wiretest"
)

// TestMain lets the scripts under testdata/script call `pyharness` as a real
// command, run in-process by the test binary.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"pyharness": func() {
			a := &app{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, now: time.Now, getenv: os.Getenv}
			os.Exit(run(context.Background(), a, os.Args[1:]))
		},
		"stand-in-train": func() { os.Exit(standInTrain()) },
	})
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// llama-server starts a llama-server test server replaying the
			// recorded one and sets $LLAMA_URL to its /v1 base URL.
			"llama-server": func(ts *testscript.TestScript, neg bool, args []string) {
				ts.Setenv("LLAMA_URL", wiretest.NewLlamaServer(t).URL)
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
