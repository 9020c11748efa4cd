package victoriametrics

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/cluster/clustertest"
	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/drivertest"
)

// TestCluster starts the recipe (the cached build or $PATH's) with a flag
// of the file's, writes and reads back through the driver, and stops it.
func TestCluster(t *testing.T) {
	c := clustertest.Up(t, Cluster{Settings: map[string]string{"search.maxUniqueTimeseries": "1000"}}, cluster.Options{})
	n := c.Nodes()[0]
	args := clustertest.Cmdline(t, n.PID)
	for _, want := range []string{"-retentionPeriod=100y", "-search.maxUniqueTimeseries=1000", "-dedup.minScrapeInterval=1ms"} {
		if !slices.Contains(args, want) {
			t.Errorf("command line %v: no %s", args, want)
		}
	}
	p := drivertest.Props("victoriametrics.url", c.Props()["victoriametrics.url"])
	db := drivertest.Open(t, Open, driver.Config{Props: p, Dir: t.TempDir()})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	pt := driver.Point{Measurement: "m", Tags: []driver.Tag{{Key: "k", Value: "v"}}, Time: 1_451_606_400_000_000_000, Fields: []driver.Field{{Name: "f", Value: []byte("1.5")}}}
	if err := db.(driver.Points).WritePoints(ctx, "t", []driver.Point{pt}); err != nil {
		t.Fatal(err)
	}
	if err := db.(*DB).Flush(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := db.(driver.Points).QueryPoints(ctx, "t", driver.Query{Measurement: "m", Field: "f", Series: [][]driver.Tag{pt.Tags}, From: pt.Time, To: pt.Time})
	if err != nil || len(got) != 1 || got[0].Values[0] != 1.5 {
		t.Errorf("read back %+v, %v: a point of 2016 kept (retention)", got, err)
	}
	if v, err := db.(driver.Versioner).ServerVersion(ctx); err != nil || !strings.Contains(v, "1.151.0") {
		t.Errorf("ServerVersion = %q, %v", v, err)
	}
	db.Close()
	clustertest.Down(t, c)
}
