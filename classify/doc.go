// Package classify turns a trace directory into a classified dataset: a
// row per turn labelled by what the model was sent (by package turnlabel's
// rules) and a row per run with its verdict and failure class, written as
// Hive-partitioned Parquet tables (package dataset's format) that
// DuckDB and pandas read, with package countcache's counts of each part file
// for stats.
package classify
