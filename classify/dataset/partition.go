package dataset

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Tables and their directories under a dataset.
const (
	TurnsTable = "turns"
	RunsTable  = "runs"
)

// hiveDefault is the partition value Hive and DuckDB read as NULL.
const hiveDefault = "__HIVE_DEFAULT_PARTITION__"

// escapePartition escapes a Hive partition value the way DuckDB and Arrow
// unescape it: every byte outside A-Z a-z 0-9 - _ . as %XX, so that model
// names holding / and : make one directory level.
func escapePartition(v string) string {
	if v == "" {
		return hiveDefault
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_', c == '.':
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// unescapePartition reverses escapePartition.
func unescapePartition(v string) (string, error) {
	if v == hiveDefault {
		return "", nil
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] != '%' {
			b.WriteByte(v[i])
			continue
		}
		if i+2 >= len(v) {
			return "", fmt.Errorf("unescape partition value %q: a %% without two hex digits", v)
		}
		var c byte
		if _, err := fmt.Sscanf(v[i+1:i+3], "%02X", &c); err != nil {
			return "", fmt.Errorf("unescape partition value %q: %w", v, err)
		}
		b.WriteByte(c)
		i += 2
	}
	return b.String(), nil
}

// Dir is the partition's directory under a table: source=…/model=….
func (p Partition) Dir() string {
	return "source=" + escapePartition(p.Source) + "/model=" + escapePartition(p.Model)
}

// parsePartitionDir reads a partition back from its directory (relative to
// the table, with forward or native slashes).
func parsePartitionDir(dir string) (Partition, error) {
	var p Partition
	parts := strings.Split(filepath.ToSlash(dir), "/")
	if len(parts) != 2 {
		return p, fmt.Errorf("partition %q: want source=…/model=…", dir)
	}
	for _, kv := range parts {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return p, fmt.Errorf("partition %q: %q is not key=value", dir, kv)
		}
		val, err := unescapePartition(v)
		if err != nil {
			return p, err
		}
		switch k {
		case "source":
			p.Source = val
		case "model":
			p.Model = val
		default:
			return p, fmt.Errorf("partition %q: unknown key %q", dir, k)
		}
	}
	return p, nil
}

// PartitionOf reads the partition of a part file from its path relative to
// the dataset: <table>/source=…/model=…/<name>.
func PartitionOf(rel string) (Partition, error) {
	_, dir, _ := strings.Cut(filepath.ToSlash(filepath.Dir(rel)), "/")
	p, err := parsePartitionDir(dir)
	if err != nil {
		return p, fmt.Errorf("read %s: %w", rel, err)
	}
	return p, nil
}
