//go:build !amd64

package dedupe

// hashShingles appends hashShingle of every five tokens in a row.
func hashShingles(dst, tokens []uint64) []uint64 {
	for i := 0; i+ShingleSize <= len(tokens); i++ {
		dst = append(dst, hashShingle(tokens[i], tokens[i+1], tokens[i+2], tokens[i+3], tokens[i+4]))
	}
	return dst
}
