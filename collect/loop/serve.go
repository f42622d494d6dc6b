package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/pyharness/pyharness/internal/procgroup"
)

// Files of the llama-server import, under import/.
const (
	serveScript = "serve.sh"
	serveLog    = "server.log"
)

// server is a llama-server the loop started for the student's bench.
type server struct {
	cmd  *exec.Cmd
	done chan error
	log  *os.File
	tail *tailBuffer
}

// loraAdapter is one entry of llama-server's GET /lora-adapters.
type loraAdapter struct {
	ID    int     `json:"id"`
	Path  string  `json:"path"`
	Scale float64 `json:"scale"`
}

// importLlamaServer serves the student as llama-server serves a LoRA: the
// --serve command with {base} and {adapter} filled in, started in the
// background; the stage is done when the server answers and lists the
// trained adapter among its /lora-adapters at a scale that applies it.
// The command line is kept in import/serve.sh, to start it by hand.
func (o *Options) importLlamaServer(ctx context.Context, ss *StageState) ([]string, error) {
	adapter, err := o.trainedAdapter()
	if err != nil {
		return nil, err
	}
	line := o.serveLine(adapter)
	script := o.path(importDir, serveScript)
	if err := os.WriteFile(script, []byte("#!/bin/sh\n"+line+"\n"), 0o755); err != nil {
		return nil, err
	}
	if err := o.ensureServer(ctx); err != nil {
		return nil, err
	}
	ss.Served = fmt.Sprintf("llama-server --lora %s (%s)", trainAdapter, o.StudentURL)
	return []string{
		fmt.Sprintf("started %s; it serves the LoRA adapter %s at %s (by hand: sh %s)", line, adapter, o.StudentURL, script),
	}, nil
}

// serveLine is the --serve command with its placeholders filled.
func (o *Options) serveLine(adapter string) string {
	base := o.BaseFile
	if a, err := filepath.Abs(base); err == nil && base != "" {
		base = a
	}
	return strings.NewReplacer("{base}", shellQuote(base), "{adapter}", shellQuote(adapter)).Replace(o.Serve)
}

// ensureServer starts the --serve command unless the loop already did,
// and waits until it answers with the adapter loaded.
func (o *Options) ensureServer(ctx context.Context) error {
	if o.srv != nil {
		select {
		case err := <-o.srv.done:
			o.srv.done <- err
			return fmt.Errorf("the server the loop started (%s) has exited: %v; the end of %s:\n%s", o.StudentURL, err, o.path(importDir, serveLog), o.srv.tail.String())
		default:
			return nil
		}
	}
	adapter, err := filepath.Abs(o.path(trainDir, trainAdapter))
	if err != nil {
		return err
	}
	if err := o.checkNoServer(ctx); err != nil {
		return err
	}
	line := o.serveLine(adapter)
	logf, err := os.Create(o.path(importDir, serveLog))
	if err != nil {
		return err
	}
	fmt.Fprintf(logf, "$ %s\n", line)
	fmt.Fprintf(o.Log, "loop: import: %s\nloop: import: its output in %s\n", line, o.path(importDir, serveLog))
	s := &server{done: make(chan error, 1), log: logf, tail: &tailBuffer{max: 2000}}
	s.cmd = exec.Command("sh", "-c", line)
	s.cmd.Dir = o.path(importDir)
	s.cmd.Stdout = io.MultiWriter(logf, s.tail)
	s.cmd.Stderr = s.cmd.Stdout
	procgroup.Own(s.cmd)
	if err := s.cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("start the server: %w", err)
	}
	go func() { s.done <- s.cmd.Wait() }()
	o.srv = s
	if err := o.waitServer(ctx, adapter); err != nil {
		o.stopServer()
		return err
	}
	return nil
}

// checkNoServer refuses to start a server where one already answers: the
// bench would ask that one, which is not serving this adapter.
func (o *Options) checkNoServer(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(o.StudentURL, "/")+"/health", nil)
	if err != nil {
		return fmt.Errorf("--student-url %s: %w", o.StudentURL, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil
	}
	resp.Body.Close()
	return fmt.Errorf("a server already answers at %s (GET /health: %s) before the loop started its own: stop it, or give --serve and --student-url another port", o.StudentURL, resp.Status)
}

// waitServer polls the server until /health answers 200, then checks that
// /lora-adapters lists the adapter at a non-zero scale.
func (o *Options) waitServer(ctx context.Context, adapter string) error {
	wait := o.ServeWait
	if wait == 0 {
		wait = 2 * time.Minute
	}
	deadline := time.Now().Add(wait)
	base := strings.TrimRight(o.StudentURL, "/")
	var last string
	for {
		select {
		case err := <-o.srv.done:
			o.srv.done <- err
			return fmt.Errorf("the server exited before it answered at %s (%v); the end of %s:\n%s", o.StudentURL, err, o.path(importDir, serveLog), o.srv.tail.String())
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		status, _, err := get(ctx, base+"/health")
		if err == nil && status == http.StatusOK {
			break
		}
		if err != nil {
			last = err.Error()
		} else {
			last = fmt.Sprintf("GET /health: %d", status)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the server did not answer at %s within %s (%s); the end of %s:\n%s", o.StudentURL, wait, last, o.path(importDir, serveLog), o.srv.tail.String())
		}
	}
	status, body, err := get(ctx, base+"/lora-adapters")
	if err != nil {
		return fmt.Errorf("ask the server for its adapters: %w", err)
	}
	if status != http.StatusOK {
		return fmt.Errorf("GET %s/lora-adapters: %d %s: is it llama-server?", base, status, strings.TrimSpace(string(body)))
	}
	var loaded []loraAdapter
	if err := json.Unmarshal(body, &loaded); err != nil {
		return fmt.Errorf("GET %s/lora-adapters: %w", base, err)
	}
	var paths []string
	for _, a := range loaded {
		if sameFile(a.Path, adapter, o.path(importDir)) {
			if a.Scale == 0 {
				return fmt.Errorf("the server loaded %s at scale 0, which leaves the base as it was: drop --lora-init-without-apply from --serve", adapter)
			}
			return nil
		}
		paths = append(paths, a.Path)
	}
	if len(paths) == 0 {
		return fmt.Errorf("the server at %s loaded no adapter (GET /lora-adapters: []): --serve must pass --lora {adapter}", o.StudentURL)
	}
	return fmt.Errorf("the server at %s loaded %s, not the trained adapter %s", o.StudentURL, strings.Join(paths, ", "), adapter)
}

// sameFile reports whether the path the server reports (relative to its
// working directory dir, if relative) is the file want.
func sameFile(reported, want, dir string) bool {
	if !filepath.IsAbs(reported) {
		reported = filepath.Join(dir, reported)
	}
	if reported == want {
		return true
	}
	a, errA := os.Stat(reported)
	b, errB := os.Stat(want)
	return errA == nil && errB == nil && os.SameFile(a, b)
}

func get(ctx context.Context, url string) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, b, err
}

// stopServer kills the server the loop started, if any, and its children.
func (o *Options) stopServer() {
	if o.srv == nil {
		return
	}
	procgroup.Kill(o.srv.cmd)
	select {
	case <-o.srv.done:
	case <-time.After(10 * time.Second):
		fmt.Fprintf(o.Log, "loop: the server (pid %d) did not exit within 10 s of being killed\n", o.srv.cmd.Process.Pid)
	}
	o.srv.log.Close()
	o.srv = nil
}
