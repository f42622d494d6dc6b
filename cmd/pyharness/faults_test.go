package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pyharness/pyharness/internal/testkit/wiretest"
)

// runCLIEnv runs the command line in-process with the real environment,
// as the binary would see it.
func runCLIEnv(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	a := &app{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, now: time.Now, getenv: os.Getenv}
	code := run(context.Background(), a, args)
	return code, out.String(), errb.String()
}

// writeFiles writes files (slash-separated names → contents) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// grepTree lists the files under dir that contain needle.
func grepTree(t *testing.T, dir, needle string) []string {
	t.Helper()
	var hits []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(needle)) {
			hits = append(hits, p)
		}
		return nil
	})
	return hits
}

const greetTest = "import unittest\nfrom greet import greet\n\n\nclass TestGreet(unittest.TestCase):\n" +
	"    def test_greet(self):\n        self.assertEqual(greet(\"Ada\"), \"Hello, Ada\")\n"

// The secrets row of the fault matrix: the API key named by --api-key-env
// is sent to the server and appears in none of the outputs — the trace,
// the patch, the printed summary and log, the suite's environment (a test
// writes what it sees into the workspace, so a leak would reach the
// patch), nor the export; and the value of a .env file the model read is
// redacted at export. Not parallel: it sets the environment.
func TestSecretsNeverLeaveTheRun(t *testing.T) {
	const apiKey = "sk-pyh-test-3f9c1e7a0b2d4c68"
	const envSecret = "hunter2-pyh-test-91ab7c"
	t.Setenv("PYH_TEST_MYLLM", apiKey)
	srv := wiretest.NewOpenAI(t)
	drafts := []string{
		"READ .env",
		"WRITE initials.py\n```python\ndef initials(name):\n    return \" \".join(p[0] + \".\" for p in name.split())\n```",
		"RUN tests", "DONE initials added; tests pass",
	}
	for _, d := range drafts {
		srv.Push(wiretest.Text(d))
	}
	repo, out, exp := t.TempDir(), filepath.Join(t.TempDir(), "out"), filepath.Join(t.TempDir(), "export")
	writeFiles(t, repo, map[string]string{
		"greet.py":            "def greet(name):\n    return \"Hello, \" + name\n",
		"tests/__init__.py":   "",
		"tests/test_greet.py": greetTest,
		"tests/test_env.py": "import json, os, unittest\n\n\nclass Env(unittest.TestCase):\n    def test_env(self):\n" +
			"        with open('seen-env.json', 'w') as f:\n            json.dump(dict(os.environ), f)\n",
		".env": "DATABASE_PASSWORD=" + envSecret + "\nDEBUG=1\n",
	})
	code, stdout, stderr := runCLIEnv(t, "run", "--repo", repo, "--task", "Add initials(name) to initials.py",
		"--target", "initials.py", "--name", "initials", "--model", "openai:tiny", "--base-url", srv.URL,
		"--api-key-env", "PYH_TEST_MYLLM", "--out", out)
	if code != 0 || !strings.Contains(stdout, "verdict:  worked") {
		t.Fatalf("run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	reqs := srv.ChatRequests()
	if len(reqs) == 0 || reqs[0].Header.Get("Authorization") != "Bearer "+apiKey {
		t.Fatalf("the key was not sent to the server (Authorization %q)", reqs[0].Header.Get("Authorization"))
	}
	if hits := grepTree(t, out, "seen-env.json"); len(hits) == 0 {
		t.Fatal("the suite's view of its environment is not in the outputs; the test proves nothing")
	}
	if !strings.Contains(strings.Join(grepTree(t, out, envSecret), ""), ".jsonl") {
		t.Fatal("the .env value the model read is not in the trace; the export check proves nothing")
	}
	code, xout, xerr := runCLIEnv(t, "export", "--in", out, "--out", exp, "--include-scripted")
	if code != 0 {
		t.Fatalf("export: exit %d\n%s\n%s", code, xout, xerr)
	}
	if !strings.Contains(xout, "secrets redacted: ") || strings.Contains(xout, "secrets redacted: 0 ") {
		t.Errorf("export redacted nothing:\n%s", xout)
	}
	for name, text := range map[string]string{"run stdout": stdout, "run stderr": stderr, "export stdout": xout, "export stderr": xerr} {
		if strings.Contains(text, apiKey) {
			t.Errorf("the API key is in the %s", name)
		}
	}
	if hits := grepTree(t, out, apiKey); len(hits) > 0 {
		t.Errorf("the API key is in %v", hits)
	}
	if hits := grepTree(t, exp, apiKey); len(hits) > 0 {
		t.Errorf("the API key is in the export: %v", hits)
	}
	if hits := grepTree(t, exp, envSecret); len(hits) > 0 {
		t.Errorf("the .env value is in the export: %v", hits)
	}
}

// run --isolate gives the suite no network: a test that must not reach a
// server on this machine passes with it and fails without it.
func TestRunIsolate(t *testing.T) {
	if err := exec.Command("unshare", "--user", "--map-root-user", "--net", "--pid", "--fork", "--mount-proc", "true").Run(); err != nil {
		t.Skipf("no unprivileged namespaces here: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	offline := fmt.Sprintf("import socket, unittest\n\n\nclass Offline(unittest.TestCase):\n    def test_offline(self):\n"+
		"        with self.assertRaises(OSError):\n            socket.create_connection((\"127.0.0.1\", %d), timeout=5).close()\n",
		ln.Addr().(*net.TCPAddr).Port)
	tests := []struct {
		name  string
		flags []string
		want  string
	}{
		{name: "without --isolate the suite reaches the network", want: "suite:    before 0/1 passed"},
		{name: "with --isolate it does not", flags: []string{"--isolate"}, want: "suite:    before 1/1 passed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			repo := filepath.Join(dir, "repo")
			writeFiles(t, repo, map[string]string{"test_offline.py": offline})
			scriptFile := filepath.Join(dir, "s.jsonl")
			line, _ := json.Marshal(map[string]string{"content": "RUN tests"})
			writeFiles(t, dir, map[string]string{"s.jsonl": string(line) + "\n"})
			args := append([]string{"run", "--repo", repo, "--task", "Check the tests", "--steps", "1",
				"--model", "scripted:" + scriptFile, "--out", filepath.Join(dir, "out")}, tt.flags...)
			code, stdout, stderr := runCLI(t, args...)
			if !strings.Contains(stdout, tt.want) {
				t.Errorf("exit %d; want %q in\n%s\n%s", code, tt.want, stdout, stderr)
			}
		})
	}
}
