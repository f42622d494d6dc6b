// Package tabletext formats the cells of the plain-text tables that bench
// and stats print: an empty value as a dash, a long one cut to a width
// without splitting a character, a share as a whole percentage.
package tabletext
