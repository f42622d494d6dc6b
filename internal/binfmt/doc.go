// Package binfmt reads and writes the small binary encodings of the
// pipeline's derived files (the entries package derivedcache keeps, the counts
// stats reads): uvarints, varints, little-endian words and length-prefixed
// strings, with a Reader that is checked once, at the end.
package binfmt
