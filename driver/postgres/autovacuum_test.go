package postgres

import (
	"context"
	"testing"

	"github.com/dbrig/dbrig/internal/testenv"
)

// pg.autovacuum=off sets the table's storage parameter; a later open with
// the default puts the server's setting back.
func TestAutovacuumOff(t *testing.T) {
	url := testenv.Need(t, "DBRIG_PG_URL")
	const table = "autovac_off"
	ctx := context.Background()
	options := func(db *DB) string {
		t.Helper()
		var o string
		if err := db.pool.QueryRow(ctx, "SELECT coalesce(array_to_string(reloptions, ','), '') FROM pg_class WHERE oid = $1::regclass", table).Scan(&o); err != nil {
			t.Fatal(err)
		}
		return o
	}
	db := open(t, "pg.url="+url, "table="+table, "pg.autovacuum=off")
	defer db.pool.Exec(context.WithoutCancel(ctx), "DROP TABLE IF EXISTS "+table)
	if got := options(db); got != "autovacuum_enabled=false" {
		t.Errorf("pg.autovacuum=off: reloptions %q, want autovacuum_enabled=false", got)
	}
	db.Close()
	db = open(t, "pg.url="+url, "table="+table)
	if got := options(db); got != "" {
		t.Errorf("pg.autovacuum default (on): reloptions %q, want none", got)
	}
}
