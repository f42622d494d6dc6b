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
	return st.Ctim.Nano(), st.Ino, st.Dev, true
}

// stampOfStat is the stamp of the file st is the stat of (readWhole's
// fstat), the same as stampOf of its FileInfo.
func stampOfStat(st *syscall.Stat_t) Stamp {
	return Stamp{Size: st.Size, Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano(), Ino: st.Ino, Dev: st.Dev}
}
