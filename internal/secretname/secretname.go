// Package secretname is the one rule for whether a variable's name says it
// holds a secret (API_KEY, dbPassword, SESSION_SECRET), which the suite
// sandbox uses to keep credentials out of a suite's environment and export
// uses to redact the values assigned to such names.
//
// A name is read as words: split at every character that is not a letter
// or a digit, between a lower-case letter and an upper-case one (apiKey),
// and between letters and digits (PASSWORD2). It is a secret's name when a
// word is one of the secret words, ends in one of the secret endings
// (VLLM_APIKEY, GHTOKEN, DBPASSWORD), or two words make a secret phrase
// (CONNECTION_STRING, DATABASE_URL). Whole words, not substrings: MONKEY,
// KEYBOARD_LAYOUT and BYPASS_CACHE are not secrets.
package secretname

import (
	"slices"
	"strings"
	"unicode"
)

// words are the words that mark a secret's name wherever they stand.
var words = map[string]bool{
	"KEY": true, "KEYS": true, "APIKEY": true, "TOKEN": true, "TOKENS": true,
	"SECRET": true, "SECRETS": true, "PASSWORD": true, "PASSWORDS": true, "PASSWD": true,
	"PWD": true, "PASS": true, "CREDENTIAL": true, "CREDENTIALS": true, "AUTH": true,
	"COOKIE": true, "PRIVATE": true, "SESSION": true, "SALT": true, "SIGNATURE": true,
	"DSN": true, "WEBHOOK": true,
}

// endings mark a word run together from a secret word and a prefix
// (GHTOKEN, DBPASSWORD, DJANGOSECRETKEY). KEY alone is no ending: MONKEY,
// HOCKEY and TURKEY are not secrets.
var endings = []string{"APIKEY", "APIKEYS", "TOKEN", "TOKENS", "SECRET", "SECRETS", "PASSWORD", "PASSWORDS", "PASSWD",
	"SECRETKEY", "ACCESSKEY", "PRIVATEKEY"}

// phrases are two words that name a secret together, though neither does.
var phrases = [][2]string{{"CONNECTION", "STRING"}, {"DATABASE", "URL"}}

// Is reports whether name says its value is a secret.
func Is(name string) bool {
	ws := split(name)
	for i, w := range ws {
		if words[w] || slices.ContainsFunc(endings, func(e string) bool { return strings.HasSuffix(w, e) }) {
			return true
		}
		if i > 0 && slices.Contains(phrases, [2]string{ws[i-1], w}) {
			return true
		}
	}
	return false
}

// split reads name as upper-case words.
func split(name string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToUpper(string(cur)))
			cur = cur[:0]
		}
	}
	var prev rune
	for _, r := range name {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && unicode.IsLower(prev),
			unicode.IsDigit(r) != unicode.IsDigit(prev) && len(cur) > 0:
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
		prev = r
	}
	flush()
	return out
}
