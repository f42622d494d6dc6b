//go:build linux

package suite

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// isolationFlavors are the unshare(1) invocations tried in order. The first
// keeps the user's own uid inside (util-linux 2.38 and later); the second
// maps it to root in the namespace, as older unshare can. Both deny the
// network and put the command in a PID namespace of its own, so that its
// whole tree dies with it.
var isolationFlavors = [][]string{
	{"--user", "--map-current-user", "--net", "--pid", "--fork", "--kill-child", "--mount-proc", "--"},
	{"--user", "--map-root-user", "--net", "--pid", "--fork", "--kill-child", "--mount-proc", "--"},
}

// isolationProbes remembers, per unshare binary, which flavor works here:
// whether namespaces can be made is a property of the machine, asked once.
var (
	isolationMu     sync.Mutex
	isolationProbes = map[string]*isolationProbe{}
)

type isolationProbe struct {
	once   sync.Once
	prefix []string
	err    error
}

// isolationPrefix returns the argv prefix that runs a command isolated, or
// the reason it cannot be done here.
func isolationPrefix(ctx context.Context) ([]string, error) {
	path, err := exec.LookPath("unshare")
	if err != nil {
		return nil, fmt.Errorf("isolate: unshare(1) from util-linux is not on PATH (%v); run without --isolate, or install util-linux", err)
	}
	isolationMu.Lock()
	p, ok := isolationProbes[path]
	if !ok {
		p = &isolationProbe{}
		isolationProbes[path] = p
	}
	isolationMu.Unlock()
	p.once.Do(func() { p.prefix, p.err = probeIsolation(ctx, path) })
	if p.err != nil {
		return nil, p.err
	}
	return append([]string(nil), p.prefix...), nil
}

func probeIsolation(ctx context.Context, path string) ([]string, error) {
	var failures []string
	for _, flags := range isolationFlavors {
		pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		var out bytes.Buffer
		cmd := exec.CommandContext(pctx, path, append(flags, "true")...)
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		cancel()
		if err == nil {
			return append([]string{path}, flags...), nil
		}
		msg := strings.TrimSpace(out.String())
		if msg == "" {
			msg = err.Error()
		}
		failures = append(failures, msg)
	}
	return nil, fmt.Errorf("isolate: this machine does not let an unprivileged user make network and PID namespaces (%s): %s; run without --isolate, or allow user namespaces (sysctl kernel.unprivileged_userns_clone=1, or kernel.apparmor_restrict_unprivileged_userns=0 on Ubuntu)",
		path, failures[len(failures)-1])
}
