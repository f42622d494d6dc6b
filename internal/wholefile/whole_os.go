//go:build !linux

package wholefile

import (
	"errors"
	"io"
	"os"
	"time"
)

// readWhole appends the bytes of the file at path to b, and returns its
// settled stamp (Read).
func readWhole(path string, b []byte) ([]byte, Stamp, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, Stamp{}, err
	}
	defer f.Close()
	var stamp Stamp
	now := time.Now()
	if info, err := f.Stat(); err == nil {
		stamp = settled(stampOf(info), now)
		b = room(b, info.Size())
	}
	for {
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if errors.Is(err, io.EOF) {
			return b, stamp, nil
		}
		if err != nil {
			return nil, Stamp{}, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // the file grew since: more room
		}
	}
}
