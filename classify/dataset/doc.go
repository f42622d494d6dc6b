// Package dataset is the format of the dataset package classify
// writes: the turns and runs tables and their row types, their Hive
// partitions (source=…/model=…), the part files that hold them and the
// state file that says which part files are live, and the reading of the
// tables back, whole rows (Turns, Runs) or the columns a type names
// (ReadPart). Package tally counts the tables; stats reads them through
// it.
package dataset
