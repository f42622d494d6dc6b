package countcache

import (
	"context"
	"iter"
	"path/filepath"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/pyharness/pyharness/classify/dataset"
)

// What the external tests (which classify datasets, and classify imports
// this package) look at inside.

const CountsDir = countsDir

var (
	CountsPath      = countsPath
	ClaimedDoneRuns = claimedDoneRuns
)

// CountedByColumns reports whether a part file of table, opened as pf, is
// counted from its column chunks rather than row by row: its key columns
// are laid out as classify writes them (and, for runs, so are the columns
// its failures that claimed DONE are read from).
func CountedByColumns(pf *parquet.File, table string) bool {
	if table == dataset.TurnsTable {
		_, ok := keyColumnIndexes(pf.Schema(), turnKeyColumns)
		return ok
	}
	_, ok := keyColumnIndexes(pf.Schema(), runKeyColumns)
	_, byPage := columnIndexes(pf.Schema(), runSummaryColumns)
	return ok && byPage
}

// FreshCounts reports whether the counts file of the part file rel is read
// for its counts with the case columns, or without them.
func FreshCounts(dir, rel string, cases bool) bool {
	table, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
	if table == dataset.TurnsTable {
		cols := turnKeyColumns
		if !cases {
			cols = withoutCases(cols)
		}
		_, ok := storedRowGroups(dir, rel, cols)
		return ok
	}
	cols := runKeyColumns
	if !cases {
		cols = withoutCases(cols)
	}
	_, ok := storedRowGroups(dir, rel, cols)
	return ok
}

// ListsClaimedDone reports whether the counts file of the runs part file
// rel lists its failures that claimed DONE.
func ListsClaimedDone(dir, rel string) bool {
	_, ok := storedClaimedDone(dir, rel)
	return ok
}

// RunSummariesOnDemand streams the runs table as ClaimedDone reads it, a
// row group when the consumer reaches it, every run of it.
func RunSummariesOnDemand(ctx context.Context, dir string) iter.Seq2[dataset.Partitioned[dataset.RunSummary], error] {
	return dataset.ReadTable(ctx, dir, dataset.RunsTable, func(ctx context.Context, dir, rel string, part dataset.Partition, yield func(dataset.Partitioned[dataset.RunSummary], error) bool) bool {
		return readRunSummaries(ctx, filepath.Join(dir, filepath.FromSlash(rel)), part, yield)
	})
}
