package export

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestRedactTokenShapes(t *testing.T) {
	tests := []struct {
		name, in, want string
		n              int
	}{
		{"openai key", "key: sk-proj-abcdefghijklmnopqrstuvwxyz012345", "key: [REDACTED]", 1},
		{"anthropic key", "sk-ant-api03-abcdefghijklmnopqrstuvwx", "[REDACTED]", 1},
		{"github token", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "[REDACTED]", 1},
		{"github pat", "github_pat_11ABCDEFG0123456789abcdefghijklmnop", "[REDACTED]", 1},
		{"aws key id", "AKIAIOSFODNN7EXAMPLE", "[REDACTED]", 1},
		{"google key", "AIzaSyA-abcdefghijklmnopqrstuvwxyz01234", "[REDACTED]", 1},
		{"hugging face", "hf_abcdefghijklmnopqrstuvwxyzABCDEF", "[REDACTED]", 1},
		{"slack", "xoxb-1234567890-abcdefghij", "[REDACTED]", 1},
		{"stripe", "sk_live_abcdefghijklmnop1234", "[REDACTED]", 1},
		{"jwt", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "[REDACTED]", 1},
		{"bearer", "Authorization: Bearer abcdefghijklmnopqrstuvwxyz123", "Authorization: Bearer [REDACTED]", 1},
		{"url password", "postgres://app:s3cr3tpass@db:5432/x", "postgres://app:[REDACTED]@db:5432/x", 1},
		{"private key", "-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----", "[REDACTED]", 1},
		{"two in one text", "a sk-abcdefghijklmnopqrstuvwxyz b sk-zyxwvutsrqponmlkjihgfedcba", "a [REDACTED] b [REDACTED]", 2},
		{"code stays", "def skip_tokens(tokens):\n    return [t for t in tokens if t != 'sk-']", "def skip_tokens(tokens):\n    return [t for t in tokens if t != 'sk-']", 0},
		{"short sk stays", "sk-learn is a library", "sk-learn is a library", 0},
		{"sha stays", "commit 4f693842bd39a0c1e2f3a4b5c6d7e8f9a0b1c2d3", "commit 4f693842bd39a0c1e2f3a4b5c6d7e8f9a0b1c2d3", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRedactor()
			if got := r.redactAndCount(tt.in); got != tt.want || r.Count != tt.n {
				t.Errorf("Redact(%q) = %q (%d), want %q (%d)", tt.in, got, r.Count, tt.want, tt.n)
			}
		})
	}
}

func TestRedactEnvironmentValues(t *testing.T) {
	r := newRedactor()
	r.addEnvFile("# comment\nexport API_TOKEN=tok-alpha-7731\nDB_PASSWORD=\"plum orchard\"\nSESSION_SECRET='velvet-42-harbor'\n" +
		"APP_PORT=8000\nDEBUG=true\nLOG_LEVEL=info\nBUILD_ID=a1b2c3d4e5f6a7b8c9\nHOME_DIR=/srv/app\nAUTH_BACKEND=django.contrib.auth\nTOKEN_TYPE=bearer\nADMIN_PASSWORD=hunter22\n")
	// An assignment shown to the model counts like an environment file.
	r.add(appendSecrets(nil, "config.py (lines 1-2):\n```\nSTRIPE_KEY = \"rk-9911-tangerine\"\nSECRET = os.environ[\"SECRET\"]\n```")...)
	tests := []struct{ in, want string }{
		{"token tok-alpha-7731 used", "token [REDACTED] used"},
		{"secret velvet-42-harbor!", "secret [REDACTED]!"},
		{"build a1b2c3d4e5f6a7b8c9", "build [REDACTED]"},
		{"stripe rk-9911-tangerine", "stripe [REDACTED]"},
		// Values that are no secrets, or code, stay.
		{"port 8000, debug true, level info", "port 8000, debug true, level info"},
		{"home /srv/app", "home /srv/app"},
		{"from django.contrib.auth import x; bearer", "from django.contrib.auth import x; bearer"},
		{"login hunter22", "login [REDACTED]"},
		{"plum orchard", "plum orchard"}, // has a space: not read as a literal
		{"SECRET = os.environ[\"SECRET\"]", "SECRET = os.environ[\"SECRET\"]"},
		// A value inside a longer word is another word.
		{"tok-alpha-77310", "tok-alpha-77310"},
	}
	for _, tt := range tests {
		if got := r.redactAndCount(tt.in); got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestRedactorReadsRepositoryEnvFiles(t *testing.T) {
	fsys := fstest.MapFS{
		".env":              {Data: []byte("API_KEY=repo-secret-0001\n")},
		"config/.env.local": {Data: []byte("AUTH_TOKEN=repo-secret-0002\n")},
		"deploy/prod.env":   {Data: []byte("DB_PASS=repo-secret-0003\n")},
		".venv/lib/.env":    {Data: []byte("API_KEY=never-read-0004\n")},
		"a/b/c/d/.env":      {Data: []byte("API_KEY=too-deep-0005\n")},
		"settings.py":       {Data: []byte("API_KEY = 'not-an-env-file-0006'\n")},
	}
	r := newRedactor()
	if err := r.addRepo(fsys); err != nil {
		t.Fatal(err)
	}
	text := "repo-secret-0001 repo-secret-0002 repo-secret-0003 never-read-0004 too-deep-0005 not-an-env-file-0006"
	got := r.redactAndCount(text)
	if want := "[REDACTED] [REDACTED] [REDACTED] never-read-0004 too-deep-0005 not-an-env-file-0006"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	for _, name := range []string{".env", ".env.local", "prod.env", ".envrc"} {
		if !isEnvFile("x/" + name) {
			t.Errorf("%s is an environment file", name)
		}
	}
	if isEnvFile("environment.py") || strings.Contains("", "x") {
		t.Error("environment.py is not an environment file")
	}
}
