package wiretest

import "unicode/utf8"

// PerMessageTokens is what the test tokenizer adds for each message's role
// and template markers.
const PerMessageTokens = 4

// CountTokens counts text as the test servers do: one token per 3 bytes,
// rounded up. It is deliberately not the harness's estimator, so tests see
// the two disagree as a real server and the harness do.
func CountTokens(text string) int { return (len(text) + 2) / 3 }

// CountPrompt counts a prompt of messages with these contents.
func CountPrompt(contents []string) int {
	n := 0
	for _, c := range contents {
		n += CountTokens(c) + PerMessageTokens
	}
	return n
}

// pieces splits s into chunks of up to 3 bytes, on rune boundaries: one
// chunk per token of the test tokenizer.
func pieces(s string) []string {
	var out []string
	for len(s) > 0 {
		n := 0
		for n < len(s) && n < 3 {
			_, size := utf8.DecodeRuneInString(s[n:])
			if n > 0 && n+size > 3 {
				break
			}
			n += size
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}
