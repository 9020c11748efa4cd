package postgres

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/drivertest"
	"github.com/dbrig/dbrig/internal/testenv"
)

// TestConformance runs the driver suite through a loopback proxy, so the
// outage cuts only this test's connections to the shared server.
func TestConformance(t *testing.T) {
	base := testenv.Need(t, "DBRIG_PG_URL")
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("DBRIG_PG_URL: %v", err)
	}
	px := drivertest.NewProxies(t, u.Host)
	u.Host = px.Addrs()[0]
	viaProxy := u.String()
	pw, _ := u.User.Password()
	drivertest.Run(t, drivertest.Harness{
		Open: func(t *testing.T, table string) driver.DB {
			p := drivertest.Props("pg.url", viaProxy, "pg.timeout", "1s", "table", table)
			db := drivertest.Open(t, Open, driver.Config{Props: p, Dir: t.TempDir()})
			t.Cleanup(func() { dropTable(t, base, table) })
			return db
		},
		Outage:  px,
		Timeout: time.Second,
		Secrets: []string{pw},
	})
}

// dropTable connects directly (not through the proxy, which may be cut).
func dropTable(t *testing.T, url, table string) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Errorf("drop %s: %v", table, err)
		return
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "DROP TABLE IF EXISTS "+pgx.Identifier{table}.Sanitize()); err != nil {
		t.Errorf("drop %s: %v", table, err)
	}
}

// TestPoints runs the time-series part of the suite on pg.timeseries=table.
func TestPoints(t *testing.T) {
	base := testenv.Need(t, "DBRIG_PG_URL")
	drivertest.RunPoints(t, drivertest.PointsHarness{Open: func(t *testing.T, table string) driver.DB {
		p := drivertest.Props("pg.url", base, "pg.timeseries", "table", "table", table)
		db := drivertest.Open(t, Open, driver.Config{Props: p, Dir: t.TempDir()})
		t.Cleanup(func() {
			for _, s := range []string{"", "_points", "_series"} {
				dropTable(t, base, table+s)
			}
		})
		return db
	}})
}
