package suite

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/pyharness/pyharness/internal/procgroup"
	"github.com/pyharness/pyharness/internal/secretname"
)

// HomePrefix starts the name of the home directory a sandboxed command gets
// inside its working directory; it is removed when the command is done.
const HomePrefix = ".pyharness-home-"

// Sandbox is how the harness starts a process that runs code from a
// workspace — a suite, a hidden check, a manifest's check command, an import
// probe. Every such process:
//
//   - runs in dir, as the leader of its own process group, and is killed with
//     the whole group when its context ends (and after it exits, so that
//     nothing it started in the background survives it);
//   - gets the harness's environment with secrets left out: variables named
//     like credentials (KEY, TOKEN, SECRET, PASSWORD, AUTH, CREDENTIALS, …),
//     every OLLAMA_* and OPENAI_* variable, and the session's keyring and
//     SSH agent sockets;
//   - gets HOME pointed at a new directory inside dir (XDG_* directories
//     unset, so they follow it; a .gitconfig with a name to commit under and
//     no credential helper), while Go's caches and Python's user site stay
//     where the user's own HOME has them, so suites still find what is
//     installed.
//
// With Isolate (or a context from WithIsolation), the process also runs in
// new user, network, PID and mount namespaces made with unshare(1), as an
// unprivileged user may on Linux: it has no network but a loopback that is
// down, and everything it starts dies with it, even a daemon that left the
// process group. Where the namespaces cannot be made, Command fails with a
// clear error instead of running the code unisolated.
type Sandbox struct {
	// Env is added to the scrubbed environment, overriding what it holds.
	Env []string
	// Isolate runs the command in new namespaces with no network.
	Isolate bool
}

type isolationKey struct{}

type secretsKey struct{}

// WithSecrets returns a context under which every Sandbox command also
// leaves out these variables, whatever their names look like: the one
// --api-key-env names, say, when it is not called *_API_KEY.
func WithSecrets(ctx context.Context, names ...string) context.Context {
	prev, _ := ctx.Value(secretsKey{}).([]string)
	return context.WithValue(ctx, secretsKey{}, append(append([]string(nil), prev...), names...))
}

// WithIsolation returns a context under which every Sandbox command runs
// isolated, whoever starts it: the way --isolate reaches the suites, checks
// and probes of a whole run, benchmark or collection.
func WithIsolation(ctx context.Context) context.Context {
	return context.WithValue(ctx, isolationKey{}, true)
}

// Isolated reports whether ctx asks for isolation (see WithIsolation).
func isolated(ctx context.Context) bool {
	v, _ := ctx.Value(isolationKey{}).(bool)
	return v
}

// Command returns a command that runs argv in dir inside the sandbox, and a
// function to call once the command has been waited for: it kills whatever
// is left of the process group and removes the sandbox's home.
func (s Sandbox) Command(ctx context.Context, dir string, argv []string) (*exec.Cmd, func(), error) {
	if len(argv) == 0 {
		return nil, nil, fmt.Errorf("sandbox: empty command")
	}
	if s.Isolate || isolated(ctx) {
		prefix, err := isolationPrefix(ctx)
		if err != nil {
			return nil, nil, err
		}
		argv = append(prefix, argv...)
	}
	home, err := os.MkdirTemp(dir, HomePrefix)
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: create home: %w", err)
	}
	// A suite that commits (a test of git tooling) needs a name; the
	// user's own ~/.gitconfig, with its credential helpers, stays out.
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(sandboxGitConfig), 0o644); err != nil {
		os.RemoveAll(home)
		return nil, nil, fmt.Errorf("sandbox: create home: %w", err)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	secrets, _ := ctx.Value(secretsKey{}).([]string)
	cmd.Env = mergeEnv(scrubEnv(os.Environ(), home, runtime.GOOS, secrets), s.Env)
	procgroup.Own(cmd)
	cmd.Cancel = func() error { return procgroup.Kill(cmd) }
	cmd.WaitDelay = waitDelay
	done := func() {
		_ = procgroup.Kill(cmd)
		_ = os.RemoveAll(home)
	}
	return cmd, done, nil
}

// sandboxGitConfig is the ~/.gitconfig of a sandbox's HOME.
const sandboxGitConfig = "[user]\n\tname = pyharness suite\n\temail = suite@pyharness.invalid\n"

// secretPrefixes are families of variables a suite never needs: model
// servers and hosted-model vendors.
var secretPrefixes = []string{"OLLAMA_", "OPENAI_", "ANTHROPIC_", "HF_", "HUGGING_FACE_", "GH_", "GITHUB_", "AWS_", "AZURE_"}

// dropped are variables that are not secrets but lead to them (a keyring,
// an SSH agent, a cluster) or point at the user's own home.
var dropped = map[string]bool{
	"DBUS_SESSION_BUS_ADDRESS": true, "SSH_AGENT_PID": true, "KUBECONFIG": true, "NETRC": true,
	"XDG_CONFIG_HOME": true, "XDG_CACHE_HOME": true, "XDG_DATA_HOME": true, "XDG_STATE_HOME": true, "XDG_RUNTIME_DIR": true,
	"HOME": true, "USERPROFILE": true,
}

// isSecretName reports whether the sandbox leaves a variable of this name
// out of a child's environment as a credential: a secret's name
// (secretname.Is), or one of the families a suite never needs.
func isSecretName(name string) bool {
	up := strings.ToUpper(name)
	for _, p := range secretPrefixes {
		if strings.HasPrefix(up, p) || up == strings.TrimSuffix(p, "_") {
			return true
		}
	}
	return secretname.Is(name)
}

// scrubEnv is env without secrets (those named like them, and those in
// secrets), with HOME at home, and with the variables that default to
// places under the old HOME (Go's caches, Python's user site) set to where
// they were, so a suite still finds what is installed.
func scrubEnv(env []string, home, goos string, secrets []string) []string {
	vars := map[string]string{}
	var out []string
	for _, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue
		}
		vars[k] = v
		if dropped[k] || isSecretName(k) || slices.Contains(secrets, k) {
			continue
		}
		out = append(out, kv)
	}
	out = append(out, "HOME="+home)
	oldHome := vars["HOME"]
	if oldHome == "" {
		return out
	}
	keep := func(name, def string) {
		if _, set := vars[name]; !set && def != "" {
			out = append(out, name+"="+def)
		}
	}
	cacheDir, configDir := filepath.Join(oldHome, ".cache"), filepath.Join(oldHome, ".config")
	if goos == "darwin" {
		cacheDir, configDir = filepath.Join(oldHome, "Library", "Caches"), filepath.Join(oldHome, "Library", "Application Support")
	}
	if x := vars["XDG_CACHE_HOME"]; x != "" && goos != "darwin" {
		cacheDir = x
	}
	if x := vars["XDG_CONFIG_HOME"]; x != "" && goos != "darwin" {
		configDir = x
	}
	gopath := vars["GOPATH"]
	if gopath == "" {
		gopath = filepath.Join(oldHome, "go")
		keep("GOPATH", gopath)
	}
	keep("GOMODCACHE", filepath.Join(filepath.SplitList(gopath)[0], "pkg", "mod"))
	keep("GOCACHE", filepath.Join(cacheDir, "go-build"))
	keep("GOENV", filepath.Join(configDir, "go", "env"))
	if goos != "darwin" && goos != "windows" {
		// pip install --user puts packages here; a suite that needs pytest
		// from there must still find it.
		keep("PYTHONUSERBASE", filepath.Join(oldHome, ".local"))
	}
	return out
}

// mergeEnv appends extra to env, dropping the earlier value of every
// variable extra sets, so each name appears once.
func mergeEnv(env, extra []string) []string {
	if len(extra) == 0 {
		return env
	}
	set := map[string]bool{}
	for _, kv := range extra {
		k, _, _ := strings.Cut(kv, "=")
		set[k] = true
	}
	out := make([]string, 0, len(env)+len(extra))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if !set[k] {
			out = append(out, kv)
		}
	}
	seen := map[string]int{}
	for _, kv := range extra {
		k, _, _ := strings.Cut(kv, "=")
		if i, ok := seen[k]; ok {
			out[i] = kv
			continue
		}
		seen[k] = len(out)
		out = append(out, kv)
	}
	return out
}
