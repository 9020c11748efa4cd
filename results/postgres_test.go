package results

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/dbrig/dbrig/internal/testenv"
	"github.com/dbrig/dbrig/spec"
)

// pgResultsURL is DBRIG_PG_URL pointed at the dbrig_results database, which
// scripts/servers/postgres.sh creates for these tests (the driver tests use
// database dbrig, so neither sees the other's tables).
func pgResultsURL(t testing.TB) string {
	t.Helper()
	u, err := url.Parse(testenv.Need(t, "DBRIG_PG_URL"))
	if err != nil {
		t.Fatalf("DBRIG_PG_URL: %v", err)
	}
	u.Path = "/dbrig_results"
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
	if sslmode := u.Query().Get("sslmode"); sslmode != "" {
		kv += " sslmode=" + sslmode
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
