package postgres

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/internal/testenv"
)

// After Settle the table is as small as right after its load, whatever
// was updated since (a plain VACUUM leaves it grown), and analyzed: each
// experiment finds the same table and no vacuum or hint-bit work left by
// the load and the updates before it.
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
		recs = append(recs, driver.Record{"field0": []byte(strings.Repeat("l", 500))})
	}
	if err := db.InsertBatch(ctx, table, keys, recs); err != nil {
		t.Fatal(err)
	}
	size := func() int64 {
		var n int64
		if err := db.pool.QueryRow(ctx, "SELECT pg_total_relation_size($1::regclass)", table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if err := db.Settle(ctx, table); err != nil {
		t.Fatal(err)
	}
	loaded := size()
	for range 3 { // dead row versions, as experiments leave
		for _, k := range keys {
			if err := db.Update(ctx, table, k, driver.Record{"field0": []byte(strings.Repeat("u", 500))}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := db.Settle(ctx, table); err != nil {
		t.Fatal(err)
	}
	if got := size(); got > loaded+loaded/20 {
		t.Errorf("after updates and Settle: table and index %d bytes, want about the %d after the load", got, loaded)
	}
	var analyzed bool
	if err := db.pool.QueryRow(ctx, `SELECT last_analyze IS NOT NULL FROM pg_stat_user_tables WHERE relname = $1`, table).Scan(&analyzed); err != nil {
		t.Fatal(err)
	}
	if !analyzed {
		t.Error("after Settle: the table was not analyzed")
	}
}
