package results

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/dbrig/dbrig/internal/testenv"
	"github.com/dbrig/dbrig/spec"
)

// pgResultsURL is DBRIG_PG_URL pointed at the dbrig_results database, which
// the test servers create for these tests (the driver tests use database
// dbrig, so neither sees the other's tables), with search_path set to a
// schema of this test's own: the store's tables and its schema_version live
// there, so test runs of binaries that know different migrations never meet
// (the database outlives a run on a developer's machine), and the schema is
// dropped when the test ends.
func pgResultsURL(t testing.TB) string {
	t.Helper()
	u, err := url.Parse(testenv.Need(t, "DBRIG_PG_URL"))
	if err != nil {
		t.Fatalf("DBRIG_PG_URL: %v", err)
	}
	u.Path = "/dbrig_results"
	// One schema per test and process: a test that opens the store twice
	// (concurrent writers) gets the same one.
	schema := fmt.Sprintf("test_%d_%s", os.Getpid(), strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, strings.ToLower(t.Name())))
	admin, err := sql.Open("pgx", u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.Exec("CREATE SCHEMA IF NOT EXISTS " + schema); err != nil {
		t.Fatalf("create schema %s in dbrig_results: %v", schema, err)
	}
	t.Cleanup(func() {
		db, err := sql.Open("pgx", u.String())
		if err != nil {
			t.Error(err)
			return
		}
		defer db.Close()
		if _, err := db.Exec("DROP SCHEMA IF EXISTS " + schema + " CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

func openPostgres(t *testing.T) *Store {
	t.Helper()
	dsn := pgResultsURL(t)
	s, err := Open(context.Background(), dsn)
	if err != nil {
		t.Fatalf("Open(%s): %v", spec.Redact(dsn), err)
	}
	t.Cleanup(func() { s.Close() })
	if s.Dialect() != "postgres" {
		t.Fatalf("Open(%s) gave a %s store", spec.Redact(dsn), s.Dialect())
	}
	return s
}

func TestRoundTripPostgres(t *testing.T) { testRoundTrip(t, openPostgres(t)) }

func TestConcurrentWritersPostgres(t *testing.T) { testConcurrentWriters(t, openPostgres) }

// A libpq keyword/value string opens the same database as the URL.
func TestOpenPostgresKeywordValue(t *testing.T) {
	u, err := url.Parse(pgResultsURL(t))
	if err != nil {
		t.Fatal(err)
	}
	pw, _ := u.User.Password()
	kv := fmt.Sprintf("host=%s port=%s user=%s password='%s' dbname=%s",
		u.Hostname(), u.Port(), u.User.Username(), strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(pw), strings.TrimPrefix(u.Path, "/"))
	for _, k := range []string{"sslmode", "search_path"} {
		if v := u.Query().Get(k); v != "" {
			kv += " " + k + "=" + v
		}
	}
	s, err := Open(context.Background(), kv)
	if err != nil {
		t.Fatalf("Open(%s): %v", spec.Redact(kv), err)
	}
	defer s.Close()
	if s.Dialect() != "postgres" {
		t.Fatalf("Open(keyword/value) gave a %s store", s.Dialect())
	}
	if pw != "" && strings.Contains(s.Name(), pw) {
		t.Errorf("Name() %q holds the password", s.Name())
	}
	if _, err := s.ListRuns(context.Background(), Filter{}); err != nil {
		t.Fatal(err)
	}
}
