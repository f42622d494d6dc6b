package tabletext

import (
	"testing"
	"unicode/utf8"
)

func TestTruncate(t *testing.T) {
	tests := []struct {
		name string
		s    string
		n    int
		want string
	}{
		{"short", "abc", 5, "abc"},
		{"exactly n", "abcde", 5, "abcde"},
		{"one over", "abcdef", 5, "abcd…"},
		{"empty", "", 3, ""},
		{"multi-byte kept whole", "éèêëē", 5, "éèêëē"},
		{"multi-byte cut between characters", "naïve café au lait", 8, "naïve c…"},
		{"cut after a three-byte character", "日本語のテキスト", 4, "日本語…"},
		{"emoji", "ok 🙂🙂🙂 done", 5, "ok 🙂…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Truncate(tt.s, tt.n)
			if got != tt.want {
				t.Errorf("Truncate(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
			}
			if !utf8.ValidString(got) {
				t.Errorf("Truncate(%q, %d) = %q: not valid UTF-8", tt.s, tt.n, got)
			}
			if c := utf8.RuneCountInString(got); c > tt.n {
				t.Errorf("Truncate(%q, %d) is %d characters", tt.s, tt.n, c)
			}
		})
	}
}

func TestPercentAndShare(t *testing.T) {
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"none of nothing", Percent(0, 0), "—"},
		{"a quarter", Percent(1, 4), "25%"},
		{"all", Percent(7, 7), "100%"},
		{"half rounds to even", Percent(23, 40), "58%"},
		{"share of nothing", Share(0, 0), "—"},
		{"share", Share(0.25, 4), "25%"},
		{"dash", Dash(""), "—"},
		{"no dash", Dash("x"), "x"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}
