package dataset

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// IsDataset reports whether dir holds a classified dataset: a state file,
// or Parquet files under turns/ or runs/.
func IsDataset(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, StateFile)); err == nil {
		return true
	}
	parts, err := PartFiles(dir, RunsTable)
	return err == nil && len(parts) > 0
}

// Partitioned is a row of a table with the partition it was read from.
type Partitioned[T any] struct {
	Partition Partition
	Row       T
}

// Turns streams the turns table of a dataset, part file by part file. A
// refusal, nudge or parse failure with no feedback (in a part file written
// before the column existed, or copied from one) has it computed from its
// messages, as Rows computes it.
func Turns(ctx context.Context, dir string) iter.Seq2[Partitioned[TurnRow], error] {
	return func(yield func(Partitioned[TurnRow], error) bool) {
		for t, err := range ReadTable(ctx, dir, TurnsTable, readRows[TurnRow]) {
			if err == nil {
				t.Row.FillFeedback()
			}
			if !yield(t, err) {
				return
			}
		}
	}
}

// Runs streams the runs table of a dataset, part file by part file.
func Runs(ctx context.Context, dir string) iter.Seq2[Partitioned[RunRow], error] {
	return ReadTable(ctx, dir, RunsTable, readRows[RunRow])
}

// PartFiles lists a table's live part files, relative to the dataset: those
// the state records, or every .parquet file under the table when there is
// no state (a dataset copied without it).
func PartFiles(dir, table string) ([]string, error) {
	live, err := loadStateParts(dir)
	if err != nil {
		return nil, err
	}
	if len(live) > 0 {
		var parts []string
		for _, p := range live {
			if strings.HasPrefix(p, table+"/") {
				parts = append(parts, p)
			}
		}
		return parts, nil
	}
	var parts []string
	err = filepath.WalkDir(filepath.Join(dir, table), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".parquet") {
			rel, err := filepath.Rel(dir, path)
			if err != nil {
				return err
			}
			parts = append(parts, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list %s parts: %w", table, err)
	}
	slices.Sort(parts)
	return parts, nil
}

// A PartReader yields the rows of the part file rel (relative to the
// dataset dir) of partition part; it returns false when the consumer
// stopped.
type PartReader[T any] func(ctx context.Context, dir, rel string, part Partition, yield func(Partitioned[T], error) bool) bool

// ReadTable streams a table of the dataset dir part file by part file,
// each read by read, in the table's order. A part file whose partition
// directory does not parse is reported and the next one read.
func ReadTable[T any](ctx context.Context, dir, table string, read PartReader[T]) iter.Seq2[Partitioned[T], error] {
	return func(yield func(Partitioned[T], error) bool) {
		parts, err := PartFiles(dir, table)
		if err != nil {
			yield(Partitioned[T]{}, err)
			return
		}
		for _, rel := range parts {
			part, err := PartitionOf(rel)
			if err != nil {
				if !yield(Partitioned[T]{}, err) {
					return
				}
				continue
			}
			if !read(ctx, dir, rel, part, yield) {
				return
			}
		}
	}
}

// ReadPart reads a part file as rows of T: the columns T names, which may
// be fewer than the file holds (the others are not read), and zero values
// for those it names and the file lacks. It passes each batch of rows to
// fill, when not nil, before yielding them: fill is given the file and the
// index in it of the batch's first row. It returns false when the consumer
// stopped.
func ReadPart[T any](ctx context.Context, path string, part Partition, fill func(f *parquet.File, first int64, rows []T) error, yield func(Partitioned[T], error) bool) bool {
	f, pf, err := OpenPart(path)
	if err != nil {
		return yield(Partitioned[T]{}, err)
	}
	defer f.Close()
	r := parquet.NewGenericReader[T](pf)
	defer r.Close()
	buf := make([]T, 256)
	var first int64
	for {
		if err := ctx.Err(); err != nil {
			yield(Partitioned[T]{}, err)
			return false
		}
		clear(buf) // the reader may reuse the slices of rows it is given; yielded rows keep theirs
		n, err := r.Read(buf)
		if fill != nil && n > 0 {
			if ferr := fill(pf, first, buf[:n]); ferr != nil {
				return yield(Partitioned[T]{}, fmt.Errorf("read %s: %w", path, ferr))
			}
		}
		first += int64(n)
		for i := range buf[:n] {
			if !yield(Partitioned[T]{Partition: part, Row: buf[i]}, nil) {
				return false
			}
		}
		if err == io.EOF {
			return true
		}
		if err != nil {
			return yield(Partitioned[T]{}, fmt.Errorf("read %s: %w", path, err))
		}
	}
}

// OpenPart opens a part file for reading; the caller closes the *os.File.
func OpenPart(path string, opts ...parquet.FileOption) (*os.File, *parquet.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("read part: %w", err)
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("read part: %w", err)
	}
	pf, err := parquet.OpenFile(f, info.Size(), opts...)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("read %s: %w", path, err)
	}
	return f, pf, nil
}

// readRows reads every row of a part file (ReadPart without a fill).
func readRows[T any](ctx context.Context, dir, rel string, part Partition, yield func(Partitioned[T], error) bool) bool {
	return ReadPart(ctx, filepath.Join(dir, filepath.FromSlash(rel)), part, nil, yield)
}
