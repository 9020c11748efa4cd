package results

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
)

// OpenExisting opens an existing results store for reading. Unlike Open
// it refuses a SQLite path that does not exist, because a report or dashboard
// on a freshly created empty store would hide a typo in the path.
func OpenExisting(ctx context.Context, dsn string) (*Store, error) {
	if path, ok := sqliteFile(dsn); ok {
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
	return Open(ctx, dsn)
}

// sqliteFile returns the file behind a plain or sqlite:// store name; the
// default store ("") is resolved too.
func sqliteFile(dsn string) (string, bool) {
	lower := strings.ToLower(dsn)
	switch {
	case dsn == "":
		p, err := DefaultPath()
		return p, err == nil
	case strings.HasPrefix(lower, "sqlite://"):
		return dsn[len("sqlite://"):], true
	case strings.HasPrefix(lower, "file:"), strings.Contains(dsn, "://"):
		return "", false
	default:
		return dsn, true
	}
}
