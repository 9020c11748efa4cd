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
	settle := func() {
		t.Helper()
		if err := db.Settle(ctx, table); err != nil {
			t.Fatal(err)
		}
	}
	file := func() (n uint32) {
		if err := db.pool.QueryRow(ctx, "SELECT relfilenode FROM pg_class WHERE oid = $1::regclass", table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	update := func(keys []string, fill string) {
		for _, k := range keys {
			if err := db.Update(ctx, table, k, driver.Record{"field0": []byte(strings.Repeat(fill, 500))}); err != nil {
				t.Fatal(err)
			}
		}
	}
	settle()
	loaded := size()
	if b, err := db.bloat(ctx, table); err != nil || b < -0.05 || b > 0.05 {
		t.Errorf("bloat estimate of the loaded table %.3f (%v), want about 0", b, err)
	}

	// A few updates: vacuumed in place, not rewritten (a rewrite of 1 M
	// records costs 5 s per experiment).
	before := file()
	update(keys[:len(keys)/50], "s")
	settle()
	if after := file(); after != before {
		t.Errorf("2 %% of the rows updated: Settle rewrote the table (relfilenode %d → %d)", before, after)
	}

	// Dead row versions, as experiments leave: the table ends within the
	// bound of its loaded size.
	for range 3 {
		update(keys, "u")
	}
	settle()
	if got := size(); float64(got) > float64(loaded)*(1+settleBloat)+8192 {
		t.Errorf("after updates and Settle: table and index %d bytes, want at most %.0f %% over the %d after the load", got, 100*settleBloat, loaded)
	}

	// Three rows in four deleted, spread over every page: a vacuum frees
	// their space but keeps the pages; the rewrite returns them.
	var gone []string
	for i, k := range keys {
		if i%4 != 0 {
			gone = append(gone, k)
		}
	}
	for _, k := range gone {
		if err := db.Delete(ctx, table, k); err != nil {
			t.Fatal(err)
		}
	}
	settle()
	if got := size(); got > loaded/2 {
		t.Errorf("a quarter of the rows left, after Settle: table and index %d bytes, want at most half the %d after the load", got, loaded)
	}
	if b, err := db.bloat(ctx, table); err != nil || b > settleBloat {
		t.Errorf("after Settle: bloat estimate %.3f (%v), want at most %.2f", b, err, settleBloat)
	}
	var analyzed bool
	if err := db.pool.QueryRow(ctx, `SELECT last_analyze IS NOT NULL FROM pg_stat_user_tables WHERE relname = $1`, table).Scan(&analyzed); err != nil {
		t.Fatal(err)
	}
	if !analyzed {
		t.Error("after Settle: the table was not analyzed")
	}
}
