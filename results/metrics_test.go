package results

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/dbrig/dbrig/internal/testenv"
)

func testRunMetrics(t *testing.T, s *Store) {
	ctx := context.Background()
	id, err := s.CreateRun(ctx, RunInfo{System: "postgres", Start: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.RunMetrics(ctx, id); err != nil || len(got) != 0 {
		t.Fatalf("metrics of a new run: %v, %v; want none", got, err)
	}
	in := []RunMetric{{Name: "tpmc", Value: 1234.5, Unit: "txn/min", Doc: "New-Orders"}, {Name: "tpm_total", Value: 2750.25, Unit: "txn/min"}, {Name: "consistency_ok", Value: 1}}
	if err := s.AddRunMetrics(ctx, id, in); err != nil {
		t.Fatal(err)
	}
	if err := s.AddRunMetrics(ctx, id, []RunMetric{{Name: "consistency_ok", Value: 0}}); err != nil {
		t.Fatal(err)
	}
	got, err := s.RunMetrics(ctx, id)
	if err != nil || len(got) != 3 {
		t.Fatalf("metrics: %+v, %v", got, err)
	}
	if got[0] != in[0] || got[1] != in[1] || got[2].Name != "consistency_ok" || got[2].Value != 0 {
		t.Errorf("metrics read back %+v, want %+v then consistency_ok=0", got, in[:2])
	}
}

func TestRunMetricsSQLite(t *testing.T) { testRunMetrics(t, newSQLite(t)) }

// TestRunMetricsPostgres uses a schema of its own in the dbrig database:
// this branch carries placeholder migrations that must never reach the
// shared dbrig_results database.
func TestRunMetricsPostgres(t *testing.T) {
	base := testenv.Need(t, "DBRIG_PG_URL")
	ctx := context.Background()
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	schema := fmt.Sprintf("results_metrics_%d", time.Now().UnixNano())
	if _, err := admin.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if _, err := admin.ExecContext(context.Background(), "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	}()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	s, err := Open(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	testRunMetrics(t, s)
}
