// Package classify turns a trace directory into a Parquet dataset: a row
// per turn labelled by what the model was sent (by package turnlabel's
// rules) and a row per run with its verdict and failure class, written as
// Hive-partitioned tables that DuckDB and pandas read, and read back by
// stats, report and dedupe.
package classify
