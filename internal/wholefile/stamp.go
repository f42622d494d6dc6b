package wholefile

import (
	"io/fs"
	"os"
	"time"
)

// Stamp is what a stat of a trace file says that changes whenever its
// bytes can: its size, modification and change times, inode and device.
// A later stage that finds a file's stamp the same as when an earlier one
// read it knows the bytes are the same without reading them, as git's
// index and make know a file unchanged: writing a file, truncating it or
// putting another in its place changes its change time or its inode, and
// no call sets the change time back. The zero Stamp stands for a file
// whose stamp is not to be trusted (Read), and equals no file's.
type Stamp struct {
	Size         int64
	Mtime, Ctime int64 // nanoseconds since the Unix epoch
	Ino, Dev     uint64
}

// IsZero reports whether st is the zero Stamp.
func (st Stamp) IsZero() bool { return st == Stamp{} }

// SettleTime is how long before a stat a file must have last changed for
// its stamp to be trusted. A file changed in the same tick of the clock
// the file system stamps with can have the same change time before and
// after (racy git's problem): file systems round times to a clock tick,
// or to two seconds (FAT), and a time read from the kernel's clock can lag
// the process's by a tick. Three seconds is more than any of them.
// A trace changed less than SettleTime before a stage read it is read
// again by the stages after, which cannot tell it unchanged by its stamp.
const SettleTime = 3 * time.Second

// settled returns st when the file it is of had last changed SettleTime
// before now, and the zero Stamp otherwise: a change after now, however
// soon, gives the file another change time.
func settled(st Stamp, now time.Time) Stamp {
	limit := now.Add(-SettleTime).UnixNano()
	if st.Ctime == 0 || st.Ctime >= limit || st.Mtime >= limit {
		return Stamp{}
	}
	return st
}

// StatStamp returns the stamp of the file at path now.
func StatStamp(path string) (Stamp, error) {
	info, err := os.Stat(path)
	if err != nil {
		return Stamp{}, err
	}
	return stampOf(info), nil
}

// stampOf is the stamp of the file info describes; the zero Stamp where
// the system gives no change time or inode (stamp_other.go), so that such
// files are always read.
func stampOf(info fs.FileInfo) Stamp {
	ctime, ino, dev, ok := sysStamp(info)
	if !ok {
		return Stamp{}
	}
	return Stamp{Size: info.Size(), Mtime: info.ModTime().UnixNano(), Ctime: ctime, Ino: ino, Dev: dev}
}
