package schemas

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// wantValid is what validLine must answer: encoding/json's verdict on
// valid UTF-8, and false deeper than maxDepth (those lines go to the strict
// decoder, which decides them).
func wantValid(line []byte) bool {
	if !utf8.Valid(line) || !json.Valid(line) {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	for depth := 0; ; {
		tok, err := dec.Token()
		if err != nil {
			return true
		}
		switch tok {
		case json.Delim('['), json.Delim('{'):
			if depth++; depth > maxDepth {
				return false
			}
		case json.Delim(']'), json.Delim('}'):
			depth--
		}
	}
}

func TestValidLine(t *testing.T) {
	lines := sampleLines(t)
	cases := map[string]string{
		"empty":                  ``,
		"space":                  " \t\r\n",
		"string":                 `"abc"`,
		"long string":            `"` + strings.Repeat("abcdefgh", 9) + `"`,
		"quote at every offset":  `["` + strings.Repeat(`a\"`, 20) + `"]`,
		"control in long string": `"` + strings.Repeat("x", 13) + "\x1f" + strings.Repeat("y", 13) + `"`,
		"DEL in string":          "\"a\x7fb\"",
		"unterminated":           `"` + strings.Repeat("abcdefgh", 3),
		"bad UTF-8 after 8":      "\"abcdefgh\xffij\"",
		"truncated UTF-8":        "\"abcdefgh\xe2\x82\"",
		"surrogate in UTF-8":     "\"\xed\xa0\x80\"",
		"U+FFFD itself":          "\"\xef\xbf\xbd\"",
		"four-byte rune":         "\"\xf0\x9f\x98\x80 ok\"",
		"UTF-8 outside string":   "[1,\xc3\xa9]",
		"escapes":                `"\" \\ \/ \b \f \n \r \t \u00e9 \uD83D\uDE00"`,
		"bad escape":             `"\x"`,
		"short unicode escape":   `"\u12"`,
		"bad hex":                `"\u12g4"`,
		"escape at end":          `"abc\`,
		"numbers":                `[0,-0,1.5,-2e10,3E+2,4e-3,123456789012345678901234567890]`,
		"leading zero":           `01`,
		"dot without digits":     `1.`,
		"exponent without":       `1e`,
		"plus sign":              `+1`,
		"minus alone":            `-`,
		"hex number":             `0x10`,
		"literals":               `[true,false,null]`,
		"bad literal":            `[tru]`,
		"capital literal":        `True`,
		"nested":                 `{"a":[{"b":{}},[],[[]]],"c":{"d":null}}`,
		"trailing comma array":   `[1,]`,
		"trailing comma object":  `{"a":1,}`,
		"missing colon":          `{"a" 1}`,
		"number key":             `{1:2}`,
		"two values":             `1 2`,
		"unclosed object":        `{"a":1`,
		"unclosed array":         `[1`,
		"close mismatch":         `[1}`,
		"deep but allowed":       strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth),
		"deeper than followed":   strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1),
	}
	for name, line := range edgeLines(lines) {
		cases["edge: "+name] = line
	}
	for i, line := range lines {
		cases["sample "+string(rune('a'+i))] = line
	}
	for name, line := range cases {
		t.Run(name, func(t *testing.T) {
			if got, want := validLine([]byte(line)), wantValid([]byte(line)); got != want {
				t.Errorf("validLine(%.80q) = %v, encoding/json and utf8 say %v", line, got, want)
			}
		})
	}
}

// FuzzValidLine holds validLine to encoding/json.Valid and utf8.Valid.
func FuzzValidLine(f *testing.F) {
	for _, l := range sampleLines(f) {
		f.Add([]byte(l))
	}
	for _, l := range edgeLines(sampleLines(f)) {
		if len(l) < 8<<10 {
			f.Add([]byte(l))
		}
	}
	f.Add([]byte("\"abcdefg\\\"\x80\""))
	f.Fuzz(func(t *testing.T, line []byte) {
		if got, want := validLine(line), wantValid(line); got != want {
			t.Errorf("validLine(%q) = %v, encoding/json and utf8 say %v", line, got, want)
		}
	})
}
