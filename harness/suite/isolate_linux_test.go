//go:build linux

package suite

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// requireIsolation skips the test where this machine cannot make the
// namespaces --isolate needs.
func requireIsolation(t *testing.T) {
	t.Helper()
	if _, err := isolationPrefix(context.Background()); err != nil {
		t.Skipf("no isolation here: %v", err)
	}
}

// --isolate denies the suite the network: a test that connects to a server
// on this machine's loopback connects without it and cannot with it.
func TestIsolateDeniesNetwork(t *testing.T) {
	requirePython(t)
	requireIsolation(t)
	tests := []struct {
		name      string
		runner    Runner
		ctx       func(context.Context) context.Context
		wantReach bool
	}{
		{name: "not isolated", runner: Runner{Kind: Unittest}, ctx: func(c context.Context) context.Context { return c }, wantReach: true},
		{name: "Runner.Isolate", runner: Runner{Kind: Unittest, Isolate: true}, ctx: func(c context.Context) context.Context { return c }},
		{name: "WithIsolation context", runner: Runner{Kind: Unittest}, ctx: WithIsolation},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			var accepted atomic.Int32
			go func() {
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					accepted.Add(1)
					c.Close()
				}
			}()
			port := ln.Addr().(*net.TCPAddr).Port
			test := fmt.Sprintf(`import os, socket, unittest

class NetTest(unittest.TestCase):
    def test_connect(self):
        with open("home.txt", "w") as f:
            f.write(os.environ["HOME"])
        socket.create_connection(("127.0.0.1", %d), timeout=10).close()
`, port)
			dir := writeTree(t, map[string]string{"test_net.py": test})
			res, err := tt.runner.Run(tt.ctx(context.Background()), dir)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			logOnFailure(t, res)
			if res.Passed() != tt.wantReach {
				t.Errorf("Passed() = %v, want %v (%s)", res.Passed(), tt.wantReach, res.FirstFailure())
			}
			if res.Counts.Ran != 1 {
				t.Errorf("ran %d tests, want 1: the counts were not read", res.Counts.Ran)
			}
			time.Sleep(100 * time.Millisecond) // let the accept loop count a connection that came
			if got := accepted.Load() > 0; got != tt.wantReach {
				t.Errorf("the server was reached: %v, want %v", got, tt.wantReach)
			}
			home, err := os.ReadFile(filepath.Join(dir, "home.txt"))
			if err != nil || !strings.Contains(string(home), HomePrefix) {
				t.Errorf("the suite's HOME was %q (%v), want the sandbox's", home, err)
			}
		})
	}
}

// A daemon that leaves the suite's process group (setsid) escapes the group
// kill; under --isolate it dies with the suite's PID namespace.
func TestIsolateKillsDaemonsThatLeftTheGroup(t *testing.T) {
	requirePython(t)
	requireIsolation(t)
	marker := uniqueSleep()
	test := fmt.Sprintf(`import subprocess, unittest

class DaemonTest(unittest.TestCase):
    def test_daemon(self):
        subprocess.Popen(["setsid", "sleep", %q], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
`, marker)
	dir := writeTree(t, map[string]string{"test_daemon.py": test})
	res, err := Runner{Kind: Unittest, Isolate: true}.Run(context.Background(), dir)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	logOnFailure(t, res)
	if !res.Passed() {
		t.Fatalf("the suite did not pass: %s", res.FirstFailure())
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		left := processesWith(marker)
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			for _, pid := range left {
				syscall.Kill(pid, syscall.SIGKILL)
			}
			t.Fatalf("the daemon (pids %v) outlived the isolated suite", left)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Where namespaces cannot be made, --isolate is a clear error, never a
// suite run without isolation. Not parallel: it sets PATH.
func TestIsolateUnavailableIsAnError(t *testing.T) {
	py := requirePython(t)
	tests := []struct {
		name    string
		unshare string // the script standing in for unshare, "" for none on PATH
		want    []string
	}{
		{
			name:    "unshare refused by the kernel",
			unshare: "#!/bin/sh\necho 'unshare: unshare failed: Operation not permitted' >&2\nexit 1\n",
			want:    []string{"isolate:", "Operation not permitted", "run without --isolate"},
		},
		{
			name: "no unshare on PATH",
			want: []string{"isolate:", "unshare(1)", "not on PATH"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bin := t.TempDir()
			path := bin
			if tt.unshare != "" {
				if err := os.WriteFile(filepath.Join(bin, "unshare"), []byte(tt.unshare), 0o755); err != nil {
					t.Fatal(err)
				}
				path += string(os.PathListSeparator) + os.Getenv("PATH")
			}
			t.Setenv("PATH", path)
			dir := writeTree(t, map[string]string{"test_never.py": "import unittest\n\nclass T(unittest.TestCase):\n    def test_x(self):\n        open('ran.txt', 'w').close()\n"})
			res, err := Runner{Kind: Unittest, Python: py, Isolate: true}.Run(context.Background(), dir)
			if err == nil {
				t.Fatalf("Run returned no error (result %+v)", res.Counts)
			}
			checkContains(t, "error", err.Error(), tt.want...)
			if _, err := os.Stat(filepath.Join(dir, "ran.txt")); err == nil {
				t.Error("the suite ran without isolation")
			}
		})
	}
}
