package mongodb

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/drivertest"
	"github.com/dbrig/dbrig/internal/testenv"
)

// TestConformance runs the driver suite against the test server (FerretDB
// from the ferretdb recipe under scripts/test) through a loopback proxy, so
// the outage cuts only this test's connections.
func TestConformance(t *testing.T) {
	base := testenv.Need(t, "DBRIG_MONGODB_URL")
	host, rest := splitHost(t, base)
	px := drivertest.NewProxies(t, host)
	viaProxy := "mongodb://" + px.Addrs()[0] + rest
	drivertest.Run(t, drivertest.Harness{
		Open: func(t *testing.T, table string) driver.DB {
			p := drivertest.Props("mongodb.url", viaProxy, "mongodb.timeout", "1s")
			db := drivertest.Open(t, Open, driver.Config{Props: p, Dir: t.TempDir()})
			t.Cleanup(func() { dropCollection(t, base, table) })
			return db
		},
		Outage:  px,
		Timeout: time.Second,
	})
}

// splitHost splits a single-host mongodb:// URL without credentials into
// its host and the rest ("/ycsb?w=1").
func splitHost(t *testing.T, u string) (host, rest string) {
	t.Helper()
	after, ok := strings.CutPrefix(u, "mongodb://")
	if !ok || strings.Contains(after, "@") {
		t.Fatalf("DBRIG_MONGODB_URL=%q: expected mongodb://HOST:PORT/DB without credentials", u)
	}
	i := strings.IndexAny(after, "/?")
	if i < 0 {
		return after, "/"
	}
	return after[:i], after[i:]
}

// dropCollection connects directly (not through the proxy, which may be cut).
func dropCollection(t *testing.T, u, table string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := mongo.Connect(options.Client().ApplyURI(u))
	if err != nil {
		t.Errorf("drop %s: %v", table, err)
		return
	}
	defer c.Disconnect(ctx)
	if err := c.Database("ycsb").Collection(table).Drop(ctx); err != nil {
		t.Errorf("drop %s: %v", table, err)
	}
}
