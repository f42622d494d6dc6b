package wholefile

import (
	"io/fs"
	"syscall"
	"time"
)

// readWhole appends the bytes of the file at path to b, and returns its
// settled stamp (Read). It calls the system itself: os.Open makes
// every file ready for the poller (fcntl calls and an epoll_ctl that
// fails for a regular file), and a trace is read in a read or two, so
// those calls would be as many as the read's own.
func readWhole(path string, b []byte) ([]byte, Stamp, error) {
	var fd int
	var err error
	for {
		if fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0); err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, Stamp{}, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	now := time.Now()
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, Stamp{}, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	stamp := settled(stampOfStat(&st), now)
	b = room(b, st.Size)
	start := len(b)
	for {
		n, err := syscall.Read(fd, b[len(b):cap(b)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, Stamp{}, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		b = b[:len(b)+n]
		// A read that ends where the file did when it was stat'ed has
		// read it whole; the read of nothing that os.ReadFile makes
		// to be sure is one system call a trace more.
		if n == 0 || int64(len(b)-start) == st.Size {
			return b, stamp, nil
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // the file grew since: more room
		}
	}
}
