package spec

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// ReadRegular reads a file the user named as input (an experiment file, a
// property file): a regular file of at most max bytes. Anything else is
// refused before a byte is read: a FIFO would block dbrig and a device such
// as /dev/zero never ends. The type is checked again on the open file, so
// a path swapped in between is refused too.
func ReadRegular(path, what string, max int64) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := regular(path, what, st, max); err != nil {
		return nil, err
	}
	// O_NONBLOCK: opening a FIFO swapped in after the Stat must not block.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := regular(path, what, st, max); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err == nil && int64(len(b)) > max {
		return nil, fmt.Errorf("%s %s: expected a regular file of at most %d bytes", what, path, max)
	}
	return b, err
}

func regular(path, what string, st os.FileInfo, max int64) error {
	switch {
	case !st.Mode().IsRegular():
		return fmt.Errorf("%s %s: not a regular file (%v): expected a regular file of at most %d bytes", what, path, st.Mode().Type(), max)
	case st.Size() > max:
		return fmt.Errorf("%s %s: %d bytes: expected a regular file of at most %d bytes", what, path, st.Size(), max)
	}
	return nil
}
