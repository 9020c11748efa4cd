package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/internal/testenv"
)

// Every driver runs YCSB workload A end to end through the CLI: load, run,
// store. Servers come from scripts/test (testenv).
func TestRunEachDriver(t *testing.T) {
	const secret = "dbrig-secret" // the test servers' password: must never be stored
	tests := []struct {
		driver string
		env    string // server address variable, "" for embedded
		prop   string // property that takes it
	}{
		{"pebble", "", ""},
		{"sqlite", "", ""},
		{"sim", "", ""},
		{"redis", "DBRIG_REDIS_ADDR", "redis.addr"},
		{"postgres", "DBRIG_PG_URL", "pg.url"},
		{"mysql", "DBRIG_MYSQL_DSN", "mysql.dsn"},
		{"etcd", "DBRIG_ETCD_ENDPOINTS", "etcd.endpoints"},
		{"hazelcast", "DBRIG_HAZELCAST_ADDRS", "hazelcast.addrs"},
		{"mongodb", "DBRIG_MONGODB_URL", "mongodb.url"}, // FerretDB on PostgreSQL under scripts/test
	}
	store := filepath.Join(t.TempDir(), "r.db")
	table := fmt.Sprintf("cli%d", time.Now().UnixNano()%1e9)
	for _, tc := range tests {
		t.Run(tc.driver, func(t *testing.T) {
			args := []string{"run", "--driver", tc.driver, "--store", store, "--json", "--quiet",
				"-P", "workloada", "-p", "recordcount=300", "-p", "operationcount=600", "-p", "table=" + table,
				"--clients", "4", "--timeout", "10s"}
			if tc.env != "" {
				args = append(args, "-p", tc.prop+"="+testenv.Need(t, tc.env))
			}
			// The shared Redis requires a password (scripts/test-servers).
			redisPW := ""
			if tc.driver == "redis" {
				redisPW = testenv.Need(t, "DBRIG_REDIS_PASSWORD")
				args = append(args, "-p", "redis.password="+redisPW)
			}
			code, out, errOut := dbrig(t, context.Background(), args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var sum struct {
				RunID int64 `json:"run_id"`
				Ops   map[string]struct {
					Count  int64 `json:"count"`
					Errors int64 `json:"errors"`
				} `json:"ops"`
			}
			if err := json.Unmarshal([]byte(out), &sum); err != nil {
				t.Fatalf("JSON summary: %v\n%s", err, out)
			}
			r, u := sum.Ops["READ"], sum.Ops["UPDATE"]
			if r.Count+u.Count != 600 {
				t.Errorf("READ %+v UPDATE %+v: want 600 operations", r, u)
			}
			d, err := openStore(t, store).Run(context.Background(), sum.RunID)
			if err != nil {
				t.Fatal(err)
			}
			// Drivers whose updates compare-and-swap (etcd, hazelcast) may
			// lose races on hot zipfian keys: those count as conflicts.
			// Any other error is a failure.
			m, _ := d.Phase("measure")
			for class, n := range m.Overall.Classes {
				if class != "conflict" && n > 0 {
					t.Errorf("%d errors of class %s: %v", n, class, m.Errors)
				}
			}
			if d.ServerVersion == "" || d.Status != "done" {
				t.Errorf("stored run: server version %q, status %q", d.ServerVersion, d.Status)
			}
			for what, text := range map[string]string{"target": d.Info.Target, "command": d.Info.Command, "spec": d.Info.Spec,
				"props": fmt.Sprint(d.Info.Props)} {
				if strings.Contains(text, secret) {
					t.Errorf("the password is stored in the run's %s: %s", what, text)
				}
				if leak := testenv.Leak(text, redisPW); redisPW != "" && leak != "" {
					t.Errorf("the Redis password (%q) is stored in the run's %s: %s", leak, what, text)
				}
			}
		})
	}
}
