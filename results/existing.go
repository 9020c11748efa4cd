package results

import (
	"context"
	"errors"
	"fmt"
	"os"
)

// OpenExisting opens an existing results store for reading. Unlike Open
// it refuses a SQLite path that does not exist, because a report or dashboard
// on a freshly created empty store would hide a typo in the path.
func OpenExisting(ctx context.Context, dsn string) (*Store, error) {
	addr, err := parseStoreAddr(dsn)
	if err != nil {
		return nil, err
	}
	if path := addr.file; path != "" {
		st, err := os.Stat(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return nil, fmt.Errorf("results store %s: no such file (run a benchmark first, or give the right --store)", path)
		case err != nil:
			return nil, fmt.Errorf("results store %s: %w", path, err)
		case st.IsDir():
			return nil, fmt.Errorf("results store %s: is a directory, expected an SQLite file", path)
		}
	}
	return open(ctx, addr)
}
