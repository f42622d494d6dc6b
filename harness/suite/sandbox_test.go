package suite

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestSandboxSecretNames(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"OPENAI_API_KEY", true},
		{"ANTHROPIC_API_KEY", true},
		{"OLLAMA_HOST", true},
		{"OLLAMA_MODELS", true},
		{"HF_TOKEN", true},
		{"GITHUB_TOKEN", true},
		{"GH_TOKEN", true},
		{"AWS_SECRET_ACCESS_KEY", true},
		{"AWS_PROFILE", true},
		{"MY_SERVICE_TOKEN", true},
		{"VLLM_APIKEY", true},
		{"DB_PASSWORD", true},
		{"TWINE_PASSWORD", true},
		{"SSH_AUTH_SOCK", true},
		{"GOOGLE_APPLICATION_CREDENTIALS", true},
		{"lowercase_api_key", true},
		{"PATH", false},
		{"LANG", false},
		{"PYTHONPATH", false},
		{"VIRTUAL_ENV", false},
		{"GOPATH", false},
		{"GOFLAGS", false},
		{"PYENV_ROOT", false},
		{"KEYBOARD_LAYOUT", false},
		{"MONKEY", false},
		{"BYPASS_CACHE", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := isSecretName(tt.name); got != tt.want {
				t.Errorf("isSecretName(%q) = %v, want %v", tt.name, got, tt.want)
			}
		})
	}
}

func TestScrubEnv(t *testing.T) {
	base := []string{"PATH=/usr/bin", "HOME=/home/ada", "LANG=C.UTF-8"}
	tests := []struct {
		name string
		goos string
		env  []string
		// secrets are more names to leave out (WithSecrets).
		secrets []string
		// want holds variables that must be set to exactly these values;
		// an empty value means the variable must be absent.
		want map[string]string
	}{
		{
			name: "credentials and model servers are left out",
			goos: "linux",
			env:  append(slices.Clone(base), "OPENAI_API_KEY=sk-secret", "OLLAMA_HOST=http://gpu:11434", "HF_TOKEN=hf_x", "SSH_AUTH_SOCK=/tmp/agent", "DBUS_SESSION_BUS_ADDRESS=unix:path=/run/bus"),
			want: map[string]string{"OPENAI_API_KEY": "", "OLLAMA_HOST": "", "HF_TOKEN": "", "SSH_AUTH_SOCK": "", "DBUS_SESSION_BUS_ADDRESS": "", "PATH": "/usr/bin", "LANG": "C.UTF-8"},
		},
		{
			name: "HOME moves into the sandbox and the XDG directories follow it",
			goos: "linux",
			env:  append(slices.Clone(base), "XDG_CONFIG_HOME=/home/ada/.config", "XDG_DATA_HOME=/home/ada/.local/share"),
			want: map[string]string{"HOME": "/ws/.pyharness-home-1", "XDG_CONFIG_HOME": "", "XDG_DATA_HOME": ""},
		},
		{
			name: "Go's caches and Python's user site stay where the user's HOME has them",
			goos: "linux",
			env:  slices.Clone(base),
			want: map[string]string{
				"GOPATH": "/home/ada/go", "GOMODCACHE": "/home/ada/go/pkg/mod", "GOCACHE": "/home/ada/.cache/go-build",
				"GOENV": "/home/ada/.config/go/env", "PYTHONUSERBASE": "/home/ada/.local",
			},
		},
		{
			name: "explicit Go and Python settings are kept as they are",
			goos: "linux",
			env:  append(slices.Clone(base), "GOPATH=/opt/go", "GOCACHE=/var/cache/go", "PYTHONUSERBASE=/opt/py"),
			want: map[string]string{"GOPATH": "/opt/go", "GOMODCACHE": "/opt/go/pkg/mod", "GOCACHE": "/var/cache/go", "PYTHONUSERBASE": "/opt/py"},
		},
		{
			name: "an XDG cache directory decides where Go's build cache was",
			goos: "linux",
			env:  append(slices.Clone(base), "XDG_CACHE_HOME=/fast/cache"),
			want: map[string]string{"GOCACHE": "/fast/cache/go-build", "XDG_CACHE_HOME": ""},
		},
		{
			name: "macOS keeps its Library directories",
			goos: "darwin",
			env:  []string{"PATH=/usr/bin", "HOME=/Users/ada"},
			want: map[string]string{"GOCACHE": "/Users/ada/Library/Caches/go-build", "GOENV": "/Users/ada/Library/Application Support/go/env", "PYTHONUSERBASE": ""},
		},
		{
			name:    "a variable named as a secret by the caller, whatever its name",
			goos:    "linux",
			env:     append(slices.Clone(base), "MY_LLM=sk-x", "LLM_ENDPOINT=http://gpu"),
			secrets: []string{"MY_LLM"},
			want:    map[string]string{"MY_LLM": "", "LLM_ENDPOINT": "http://gpu"},
		},
		{
			name: "no HOME to begin with",
			goos: "linux",
			env:  []string{"PATH=/usr/bin"},
			want: map[string]string{"HOME": "/ws/.pyharness-home-1", "GOCACHE": "", "PATH": "/usr/bin"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := scrubEnv(tt.env, "/ws/.pyharness-home-1", tt.goos, tt.secrets)
			vars := map[string]string{}
			for _, kv := range got {
				k, v, _ := strings.Cut(kv, "=")
				if _, dup := vars[k]; dup {
					t.Errorf("%s is set twice", k)
				}
				vars[k] = v
			}
			for k, want := range tt.want {
				v, ok := vars[k]
				switch {
				case want == "" && ok:
					t.Errorf("%s=%q is passed on; want it left out", k, v)
				case want != "" && v != want:
					t.Errorf("%s = %q, want %q", k, v, want)
				}
			}
		})
	}
}

func TestMergeEnv(t *testing.T) {
	got := mergeEnv([]string{"A=1", "B=2", "C=3"}, []string{"B=x", "D=4", "B=y"})
	want := []string{"A=1", "C=3", "B=y", "D=4"}
	if !slices.Equal(got, want) {
		t.Errorf("mergeEnv = %q, want %q", got, want)
	}
}

// A real suite, run by the real runner, sees the scrubbed environment: no
// API key or Ollama setting of the harness's own environment, HOME inside
// its working directory, and whatever it writes under HOME is gone when it
// is done, while the user's own HOME is untouched. Not parallel: it sets
// the process environment.
func TestSuiteRunsInTheSandbox(t *testing.T) {
	requirePython(t)
	t.Setenv("OPENAI_API_KEY", "sk-test-never-in-a-suite")
	t.Setenv("PYH_TEST_SERVICE_TOKEN", "tok-test-never-in-a-suite")
	t.Setenv("OLLAMA_HOST", "http://127.0.0.1:1")
	realHome := t.TempDir()
	t.Setenv("HOME", realHome)
	test := `import json, os, unittest

class EnvTest(unittest.TestCase):
    def test_env(self):
        with open(os.path.join(os.path.expanduser("~"), "litter.txt"), "w") as f:
            f.write("written under HOME")
        import subprocess
        subprocess.run(["git", "init", "-q", "gitrepo"], check=True)
        subprocess.run(["git", "-C", "gitrepo", "commit", "-q", "--allow-empty", "-m", "a suite may commit"], check=True)
        with open("env.json", "w") as f:
            json.dump({"env": dict(os.environ), "cwd": os.getcwd()}, f)
`
	t.Setenv("PYH_TEST_ODDLY_NAMED", "odd-never-in-a-suite")
	dir := writeTree(t, map[string]string{"test_env.py": test})
	res, err := Runner{Kind: Unittest}.Run(WithSecrets(context.Background(), "PYH_TEST_ODDLY_NAMED"), dir)
	if err != nil {
		t.Fatal(err)
	}
	logOnFailure(t, res)
	if !res.Passed() {
		t.Fatalf("the suite did not pass: %s", res.FirstFailure())
	}
	raw, err := os.ReadFile(filepath.Join(dir, "env.json"))
	if err != nil {
		t.Fatal(err)
	}
	var seen struct {
		Env map[string]string
		Cwd string
	}
	if err := json.Unmarshal(raw, &seen); err != nil {
		t.Fatal(err)
	}
	for k, v := range seen.Env {
		if strings.Contains(v, "never-in-a-suite") || strings.HasPrefix(k, "OLLAMA_") {
			t.Errorf("the suite saw %s=%s", k, v)
		}
	}
	home := seen.Env["HOME"]
	realDir, _ := filepath.EvalSymlinks(dir)
	if filepath.Dir(home) != realDir && filepath.Dir(home) != dir || !strings.HasPrefix(filepath.Base(home), HomePrefix) {
		t.Errorf("HOME = %q, want a %s* directory in %s", home, HomePrefix, dir)
	}
	if _, err := os.Stat(home); !os.IsNotExist(err) {
		t.Errorf("the sandbox home %s is still there after the suite (%v)", home, err)
	}
	if _, err := os.Stat(filepath.Join(realHome, "litter.txt")); !os.IsNotExist(err) {
		t.Errorf("the suite wrote into the user's HOME")
	}
	if seen.Env["PYTHONDONTWRITEBYTECODE"] != "1" || seen.Env["PATH"] == "" {
		t.Errorf("PYTHONDONTWRITEBYTECODE=%q PATH=%q: the runner's own settings are missing", seen.Env["PYTHONDONTWRITEBYTECODE"], seen.Env["PATH"])
	}
}
