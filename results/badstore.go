package results

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrBadStore is wrapped when a results store address names something that
// cannot be one (a directory, a file that is not an SQLite database): bad
// input, exit code 2.
var ErrBadStore = errors.New("not a results store")

// checkStoreFile refuses, before SQLite touches it, a path that is a
// directory or a non-empty file without SQLite's header. A missing or empty
// file becomes a new store.
func checkStoreFile(path string) error {
	st, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return nil // SQLite reports it with its own words
	}
	switch {
	case st.IsDir():
		return fmt.Errorf("results store %s: %w: is a directory, expected an SQLite file (a new one is created where none exists)", path, ErrBadStore)
	case !st.Mode().IsRegular():
		return fmt.Errorf("results store %s: %w: not a regular file, expected an SQLite file", path, ErrBadStore)
	case st.Size() == 0:
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	head := make([]byte, 16)
	if _, err := io.ReadFull(f, head); err != nil || string(head) != "SQLite format 3\x00" {
		return fmt.Errorf("results store %s: %w: the file is not an SQLite database, expected dbrig's results file or a new path", path, ErrBadStore)
	}
	return nil
}
