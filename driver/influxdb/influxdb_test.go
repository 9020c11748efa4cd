package influxdb

import (
	"context"
	"strings"
	"testing"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/drivertest"
	"github.com/dbrig/dbrig/internal/testenv"
)

// TestPoints runs the time-series conformance suite on the server of
// DBRIG_INFLUXDB_URL, in a database of its own (dropped at the end).
func TestPoints(t *testing.T) {
	url := testenv.Need(t, "DBRIG_INFLUXDB_URL")
	for _, prec := range []string{"auto", "n", "s"} {
		t.Run(prec, func(t *testing.T) {
			drivertest.RunPoints(t, drivertest.PointsHarness{Open: func(t *testing.T, _ string) driver.DB {
				p := drivertest.Props("influxdb.url", url, "influxdb.db", "dbrig_conformance", "influxdb.precision", prec,
					"influxdb.rp", "bench", "influxdb.rp.duration", "INF", "influxdb.batchsize", "7")
				db := drivertest.Open(t, Open, driver.Config{Props: p, Dir: t.TempDir()})
				t.Cleanup(func() { _, _ = db.(*DB).query(context.Background(), "DROP DATABASE dbrig_conformance", true) })
				return db
			}})
		})
	}
}

func TestKeyValueRefused(t *testing.T) {
	url := testenv.Need(t, "DBRIG_INFLUXDB_URL")
	db := drivertest.Open(t, Open, driver.Config{Props: drivertest.Props("influxdb.url", url), Dir: t.TempDir()})
	defer db.Close()
	if err := db.Insert(context.Background(), "usertable", "k", driver.Record{"f": []byte("v")}); err == nil || !strings.Contains(err.Error(), "time series only") {
		t.Errorf("Insert: %v, expected the time-series-only error", err)
	}
	v, err := db.(driver.Versioner).ServerVersion(context.Background())
	if err != nil || !strings.HasPrefix(v, "InfluxDB 1.") {
		t.Errorf("ServerVersion: %q, %v", v, err)
	}
}

func TestSelectStmt(t *testing.T) {
	q := driver.Query{Measurement: "cpu", Field: `us"er`, Series: [][]driver.Tag{{{Key: "host", Value: "a'b"}}}, From: 90, To: 200, Agg: driver.AggAvg, Step: 60}
	got, err := selectStmt(`"db".."cpu"`, q)
	want := `SELECT mean("us\"er") FROM "db".."cpu" WHERE (("host" = 'a\'b')) AND time >= 90 AND time <= 200 GROUP BY time(60ns, 30ns) fill(none)`
	if err != nil || got != want {
		t.Errorf("selectStmt:\n got %s, %v\nwant %s", got, err, want)
	}
	q.Agg = "median"
	if _, err := selectStmt("x", q); err == nil {
		t.Error("an unknown aggregate: no error")
	}
}
