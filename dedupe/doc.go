// Package dedupe keys every training pair by its normalised content, counts
// exact duplicates and clusters near-duplicates, so that an export can be
// weighted by variety rather than volume.
package dedupe
