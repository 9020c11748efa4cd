package mysql

import (
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/drivertest"
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
			p := drivertest.Props("mysql.dsn", viaProxy, "mysql.timeout", "1s", "table", table)
			db := drivertest.Open(t, Open, driver.Config{Props: p, Dir: t.TempDir()})
			return db // testDSN's database, tables included, is dropped at the end
		},
		Outage:  px,
		Timeout: time.Second,
		Secrets: []string{mc.Passwd},
	})
}
