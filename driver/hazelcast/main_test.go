package hazelcast

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/drivertest"
)

// TestMain warms the cluster up before the tests run: on freshly started
// members the first operations on a new map wait for partition assignment
// and a cold JIT (seconds), which the tests' 1 s operation timeout (chosen to
// make outages show quickly) would report as failures of the driver.
func TestMain(m *testing.M) {
	if addrs := os.Getenv("DBRIG_HAZELCAST_ADDRS"); addrs != "" {
		if err := warmUp(addrs); err != nil {
			fmt.Fprintf(os.Stderr, "hazelcast warm-up: %v (the tests will tell)\n", err)
		}
	}
	os.Exit(m.Run())
}

func warmUp(addrs string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	db, err := open(ctx, driver.Config{Props: drivertest.Props("hazelcast.addrs", addrs,
		"hazelcast.prefix", "dbrig-warmup.", "hazelcast.timeout", "30s", "hazelcast.dialtimeout", "30s")})
	if err != nil {
		return err
	}
	defer db.Close()
	defer db.Reset(ctx)
	rec := driver.Record{"field0": []byte("warm")}
	// Enough keys to touch every partition owner, each op twice.
	for round := 0; round < 2; round++ {
		for i := 0; i < 300; i++ {
			key := "w" + strconv.Itoa(i)
			if err := db.Insert(ctx, "warm", key, rec); err != nil {
				return err
			}
			if _, err := db.Read(ctx, "warm", key, nil); err != nil {
				return err
			}
		}
	}
	return nil
}
