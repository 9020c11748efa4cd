package postgres

import (
	"context"
	"fmt"
	"testing"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/internal/testenv"
)

// After Settle the table has no dead rows, was vacuumed and analyzed: an experiment finds no vacuum or hint-bit
// work left by the load and the updates before it. (Not every page need be
// all-visible: another session's snapshot on a shared server can hold it.)
func TestSettleVacuums(t *testing.T) {
	url := testenv.Need(t, "DBRIG_PG_URL")
	const table = "settle_vac"
	ctx := context.Background()
	db := open(t, "pg.url="+url, "table="+table)
	if _, err := db.pool.Exec(ctx, "DROP TABLE IF EXISTS "+table); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db = open(t, "pg.url="+url, "table="+table)
	defer db.pool.Exec(context.WithoutCancel(ctx), "DROP TABLE IF EXISTS "+table)
	var keys []string
	var recs []driver.Record
	for i := range 2000 {
		keys = append(keys, fmt.Sprintf("user%d", i))
		recs = append(recs, driver.Record{"field0": []byte("loaded")})
	}
	if err := db.InsertBatch(ctx, table, keys, recs); err != nil {
		t.Fatal(err)
	}
	for _, k := range keys[:500] { // dead row versions, as an experiment leaves
		if err := db.Update(ctx, table, k, driver.Record{"field0": []byte("updated")}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Settle(ctx, table); err != nil {
		t.Fatal(err)
	}
	var dead int64
	var vacuumed, analyzed bool
	err := db.pool.QueryRow(ctx, `SELECT n_dead_tup, last_vacuum IS NOT NULL, last_analyze IS NOT NULL
		FROM pg_stat_user_tables WHERE relname = $1`, table).Scan(&dead, &vacuumed, &analyzed)
	if err != nil {
		t.Fatal(err)
	}
	if dead != 0 || !vacuumed || !analyzed {
		t.Errorf("after Settle: n_dead_tup %d, vacuumed %v, analyzed %v; want 0, true, true", dead, vacuumed, analyzed)
	}
}
