// Package classified is the format of a classified dataset, which package
// classify writes: the turns and runs tables and their row types, their
// Hive partitions (source=…/model=…), the part files that hold them and
// the state file that says which part files are live, and reading the
// tables back (Turns, Runs) for DuckDB-free consumers: stats, package
// tally's counting, and the tests of the stages that follow classify.
package classified
