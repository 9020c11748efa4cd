package etcd

import (
	"testing"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/drivertest"
	"github.com/dbrig/dbrig/internal/testenv"
)

// A snapshot restores exactly, whole or by the keys written; the images
// live outside etcd.prefix and are dropped by the checks.
func TestSnapshotRestoresExactly(t *testing.T) {
	eps := testenv.Need(t, "DBRIG_ETCD_ENDPOINTS")
	for _, tc := range []struct {
		name  string
		check func(*testing.T, func(*testing.T) driver.DB, string, int)
	}{{"whole", drivertest.Snapshot}, {"keys", drivertest.SnapshotKeys}} {
		t.Run(tc.name, func(t *testing.T) {
			first := openT(t, eps)
			prefix := first.prefix
			reopen := func(t *testing.T) driver.DB {
				p := drivertest.Props("etcd.endpoints", eps, "etcd.prefix", prefix)
				return drivertest.Open(t, open, driver.Config{Props: p})
			}
			tc.check(t, reopen, "usertable", 300)
		})
	}
}
