package secretname

import "testing"

// TestIs: the names the sandbox keeps out of a suite's environment and
// whose values export redacts, and the look-alikes neither touches.
func TestIs(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"OPENAI_API_KEY", true},
		{"AWS_SECRET_ACCESS_KEY", true},
		{"MY_SERVICE_TOKEN", true},
		{"VLLM_APIKEY", true},
		{"GHTOKEN", true},
		{"DB_PASSWORD", true},
		{"DB_PASS", true},
		{"DB_PWD", true},
		{"dbPassword", true},
		{"DBPASSWORD", true},
		{"secretkey", true},
		{"MYAPIKEYS", true},
		{"PASSWORD2", true},
		{"apiKey", true},
		{"lowercase_api_key", true},
		{"SSH_AUTH_SOCK", true},
		{"GOOGLE_APPLICATION_CREDENTIALS", true},
		{"SESSION_SECRET", true},
		{"STRIPE_KEY", true},
		{"SIGNING_SALT", true},
		{"SENTRY_DSN", true},
		{"SLACK_WEBHOOK", true},
		{"DB_CONNECTION_STRING", true},
		{"DATABASE_URL", true},
		{"PATH", false},
		{"LANG", false},
		{"PYTHONPATH", false},
		{"GOPATH", false},
		{"KEYBOARD_LAYOUT", false},
		{"MONKEY", false},
		{"HOCKEY_TEAM", false},
		{"BYPASS_CACHE", false},
		{"TOKENIZER", false},
		{"DATABASE_NAME", false},
		{"OLDPWD_SET", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := Is(tt.name); got != tt.want {
			t.Errorf("Is(%q) = %v, want %v (words %q)", tt.name, got, tt.want, split(tt.name))
		}
	}
}
