package influxdb

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/cluster/clustertest"
	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/drivertest"
	"github.com/dbrig/dbrig/spec"
)

// TestCluster starts the recipe with a [data] setting, writes and reads
// back through the driver on the props it gives, and stops it.
func TestCluster(t *testing.T) {
	c := clustertest.Up(t, Cluster{Settings: map[string]string{"cache-snapshot-memory-size": `"1m"`}}, cluster.Options{})
	n := c.Nodes()[0]
	if !strings.HasPrefix(n.Version, "v1.") || n.Ports["client"] == 0 || n.Ports["rpc"] == 0 {
		t.Errorf("node %+v: expected an InfluxDB v1 version and client and rpc ports", n)
	}
	p := drivertest.Props("influxdb.url", c.Props()["influxdb.url"])
	db := drivertest.Open(t, Open, driver.Config{Props: p, Dir: t.TempDir()})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	pt := driver.Point{Measurement: "m", Tags: []driver.Tag{{Key: "k", Value: "v"}}, Time: 1e18, Fields: []driver.Field{{Name: "f", Value: []byte("1.5")}}}
	if err := db.(driver.Points).WritePoints(ctx, "t", []driver.Point{pt}); err != nil {
		t.Fatal(err)
	}
	got, err := db.(driver.Points).QueryPoints(ctx, "t", driver.Query{Measurement: "m", Field: "f", Series: [][]driver.Tag{pt.Tags}, From: 1e18, To: 1e18})
	if err != nil || len(got) != 1 || got[0].Values[0] != 1.5 {
		t.Errorf("read back %+v, %v", got, err)
	}
	db.Close()
	clustertest.Down(t, c)
}

func TestNewClusterRefusesNodes(t *testing.T) {
	given := func(k string) bool { return k == "nodes" }
	errWhy := errors.New("refused")
	_, err := newCluster(spec.Cluster{Nodes: 3}, given, func(key, why string) error {
		if key != "nodes" || !strings.Contains(why, "one server") {
			t.Errorf("refused %s: %s", key, why)
		}
		return errWhy
	})
	if !errors.Is(err, errWhy) {
		t.Errorf("newCluster with nodes: %v, expected the refusal", err)
	}
}
