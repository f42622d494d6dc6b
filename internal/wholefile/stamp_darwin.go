package wholefile

import (
	"io/fs"
	"syscall"
)

// sysStamp is the change time, inode and device of the file info
// describes.
func sysStamp(info fs.FileInfo) (ctime int64, ino, dev uint64, ok bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, 0, false
	}
	return st.Ctimespec.Nano(), st.Ino, uint64(st.Dev), true
}
