package postgres

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/internal/testenv"
)

// Condition shows what the updates of an experiment leave (dead tuples)
// and what Settle puts back: no dead tuples, the table within the settle
// bound of its loaded size, analyzed.
func TestConditionBeforeAndAfterSettle(t *testing.T) {
	url := testenv.Need(t, "DBRIG_PG_URL")
	const table = "condition_settle"
	ctx := context.Background()
	db := open(t, "pg.url="+url, "table="+table)
	if _, err := db.pool.Exec(ctx, "DROP TABLE IF EXISTS "+table); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db = open(t, "pg.url="+url, "table="+table)
	defer func() { db.pool.Exec(context.WithoutCancel(ctx), "DROP TABLE IF EXISTS "+table) }()
	var keys []string
	var recs []driver.Record
	for i := range 2000 {
		keys = append(keys, fmt.Sprintf("user%d", i))
		recs = append(recs, driver.Record{"field0": []byte(strings.Repeat("l", 500))})
	}
	if err := db.InsertBatch(ctx, table, keys, recs); err != nil {
		t.Fatal(err)
	}
	cond := func() map[string]float64 {
		t.Helper()
		c, err := db.Condition(ctx, table)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]float64{}
		for _, f := range c {
			m[f.Name] = f.Value
			if f.Unit == driver.UnitShare && (f.Value < 0 || f.Value > 1) {
				t.Errorf("%s = %g: a share lies in 0…1", f.Name, f.Value)
			}
		}
		return m
	}
	if err := db.Settle(ctx, table); err != nil {
		t.Fatal(err)
	}
	loaded := cond()
	if loaded["live_rows"] != 2000 || loaded["dead_rows"] != 0 || loaded["dead_share"] != 0 || loaded["table_bytes"] < 2000*500 || loaded["index_bytes"] <= 0 {
		t.Fatalf("settled after the load: %v; want 2000 live rows, none dead, the table and index sized", loaded)
	}
	for _, k := range keys[:1000] {
		if err := db.Update(ctx, table, k, driver.Record{"field0": []byte(strings.Repeat("u", 500))}); err != nil {
			t.Fatal(err)
		}
	}
	// The statistics lag the backends' writes; the size does not.
	if updated := cond(); updated["table_bytes"] <= loaded["table_bytes"] {
		t.Errorf("after 1,000 updates: table %g bytes, want more than the %g loaded (new versions)", updated["table_bytes"], loaded["table_bytes"])
	}
	// As in a rating: the experiment's connections end (their backends
	// report their counts as they exit), a driver opened for it settles.
	db.Close()
	db = open(t, "pg.url="+url, "table="+table)
	if err := db.Settle(ctx, table); err != nil {
		t.Fatal(err)
	}
	settled := cond()
	if settled["dead_rows"] != 0 || settled["live_rows"] != 2000 || settled["modified_since_analyze"] != 0 {
		t.Errorf("settled after the updates: %v; want no dead rows, 2000 live, analyzed", settled)
	}
	if settled["table_bytes"] > loaded["table_bytes"]*(1+settleBloat)+8192 {
		t.Errorf("settled after the updates: table %g bytes, want within %.0f %% of the %g loaded", settled["table_bytes"], settleBloat*100, loaded["table_bytes"])
	}
}

// Settled, the indexes are the same size whether the table was rewritten
// or only vacuumed: Settle rebuilds them when it does not rewrite.
func TestSettleRebuildsIndexes(t *testing.T) {
	url := testenv.Need(t, "DBRIG_PG_URL")
	const table = "condition_index"
	ctx := context.Background()
	db := open(t, "pg.url="+url, "table="+table)
	if _, err := db.pool.Exec(ctx, "DROP TABLE IF EXISTS "+table); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db = open(t, "pg.url="+url, "table="+table)
	defer func() { db.pool.Exec(context.WithoutCancel(ctx), "DROP TABLE IF EXISTS "+table) }()
	var keys []string
	var recs []driver.Record
	for i := range 20000 {
		keys = append(keys, fmt.Sprintf("user%d", uint64(i)*0x9E3779B97F4A7C15)) // hash order, as YCSB's load
		recs = append(recs, driver.Record{"field0": []byte("v")})
	}
	if err := db.InsertBatch(ctx, table, keys, recs); err != nil {
		t.Fatal(err)
	}
	index := func() float64 {
		t.Helper()
		c, err := db.Condition(ctx, table)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range c {
			if f.Name == "index_bytes" {
				return f.Value
			}
		}
		t.Fatal("no index_bytes")
		return 0
	}
	if err := db.Settle(ctx, table); err != nil {
		t.Fatal(err)
	}
	settled := index()
	if _, err := db.pool.Exec(ctx, "VACUUM FULL "+table); err != nil {
		t.Fatal(err)
	}
	if rewritten := index(); settled > rewritten*1.05 {
		t.Errorf("index %g bytes settled after the load, %g after a rewrite: want the same", settled, rewritten)
	}
}
