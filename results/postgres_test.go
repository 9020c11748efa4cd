package results

import (
	"context"
	"net/url"
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
