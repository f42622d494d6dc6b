// Package classify labels every recorded turn by what the model was sent and
// every run by its verdict and failure class, and writes them as Parquet
// tables for analysis.
package classify
