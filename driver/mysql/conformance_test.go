package mysql

import (
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/drivertest"
	"github.com/dbrig/dbrig/spec"
)

// TestConformance runs the driver suite through a loopback proxy, so the
// outage cuts only this test's connections to the shared server.
func TestConformance(t *testing.T) {
	dsn := testDSN(t)
	mc, err := gomysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	px := drivertest.NewProxies(t, mc.Addr)
	mc.Addr = px.Addrs()[0]
	viaProxy := mc.FormatDSN()
	drivertest.Run(t, drivertest.Harness{
		Open: func(t *testing.T, table string) driver.DB {
			p := spec.NewProps()
			p.Set("mysql.dsn", viaProxy, spec.Source{})
			p.Set("mysql.timeout", "1s", spec.Source{})
			p.Set("table", table, spec.Source{})
			db, err := Open(t.Context(), driver.Config{Props: p, Dir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			return db // testDSN's database, tables included, is dropped at the end
		},
		Outage:  px,
		Timeout: time.Second,
		Secrets: []string{mc.Passwd},
	})
}
