package tpcc

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/drivertest"
	"github.com/dbrig/dbrig/driver/postgres"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/run"
)

// TestProfileRun runs TPC-C on a loaded PostgreSQL database for a while,
// for a CPU profile of dbrig's side:
//
//	DBRIG_TPCC_PROFILE_URL='postgres://…&search_path=tpcc11_w1' go test -run ProfileRun -cpuprofile cpu.out ./workload/tpcc
//	go tool pprof -top -nodecount 40 workload/tpcc.test cpu.out
//
// Skipped without the variable (it needs a loaded 1-warehouse database).
func TestProfileRun(t *testing.T) {
	url := os.Getenv("DBRIG_TPCC_PROFILE_URL")
	if url == "" {
		t.Skip("DBRIG_TPCC_PROFILE_URL is not set")
	}
	db := drivertest.Open(t, postgres.Open, driver.Config{Props: drivertest.Flags(t, "pg.url="+url, "threadcount=4"), Dir: t.TempDir()})
	defer db.Close()
	w, err := New(props(t, "tpcc.reuse=true"))
	if err != nil {
		t.Fatal(err)
	}
	if loaded, err := w.Prepare(context.Background(), db, false); err != nil || !loaded {
		t.Fatalf("prepare: loaded %v, %v (load 1 warehouse first)", loaded, err)
	}
	sums, err := run.Run(context.Background(), db, w, run.Config{Clients: 4, Duration: 20 * time.Second, Seed: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sum, _ := measure.Measured(sums)
	m := w.Headline(sum.End.Sub(sum.Start), opCounts(sum))
	t.Logf("tpmC %.0f, tpmTotal %.0f", m[0].Value, m[1].Value)
}

// TestProfileLoadSQLite loads a quarter-scale warehouse into SQLite, for a
// CPU profile of the loader:
//
//	DBRIG_TPCC_PROFILE_SQLITE=1 go test -run ProfileLoadSQLite -cpuprofile cpu.out ./workload/tpcc
func TestProfileLoadSQLite(t *testing.T) {
	if os.Getenv("DBRIG_TPCC_PROFILE_SQLITE") == "" {
		t.Skip("DBRIG_TPCC_PROFILE_SQLITE is not set")
	}
	db := sqliteDB(t)
	w, err := New(props(t, "tpcc.testscale=4"))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	load(t, db, w)
	t.Logf("%d records in %v: %.0f records/s", w.LoadCount(), time.Since(start), float64(w.LoadCount())/time.Since(start).Seconds())
}
