package results

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOpenExisting(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()

	// A store written by a newer dbrig.
	newer := filepath.Join(dir, "newer.db")
	s, err := Open(ctx, newer)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	db, err := sql.Open("sqlite", newer)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO schema_version (version, applied_at) VALUES (99, 'x')`); err != nil {
		t.Fatal(err)
	}
	db.Close()

	// A store of an older schema (version 0: nothing applied yet) is brought up to date.
	older := filepath.Join(dir, "older.db")
	db, err = sql.Open("sqlite", older)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE schema_version (version BIGINT NOT NULL PRIMARY KEY, applied_at TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	db.Close()

	notDB := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notDB, []byte("this is not a database, just text long enough to be read as a header"), 0o644); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name, dsn, want string
	}{
		{"missing file", filepath.Join(dir, "nope.db"), "nope.db: no such file"},
		{"missing sqlite URL", "sqlite://" + filepath.Join(dir, "nope.db"), "nope.db: no such file"},
		{"directory", dir, "is a directory"},
		{"newer schema", newer, "schema version 99"},
		{"not a database", notDB, "notes.txt"},
		{"older schema", older, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := OpenExisting(ctx, tc.dsn)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("OpenExisting: %v", err)
				}
				defer s.Close()
				runs, err := s.ListRuns(ctx, Filter{})
				if err != nil || len(runs) != 0 {
					t.Fatalf("ListRuns on a migrated empty store = %v, %v", runs, err)
				}
				return
			}
			if err == nil {
				s.Close()
				t.Fatalf("OpenExisting(%s) succeeded, want an error containing %q", tc.dsn, tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "nope.db")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("OpenExisting created the missing store: %v", err)
	}
}
