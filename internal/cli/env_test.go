package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/internal/testenv"
)

// `dbrig run` reads what `dbrig cluster env` exports (the variables of the
// shared test servers are those), and -p wins over it.
func TestRunReadsClusterEnv(t *testing.T) {
	tests := []struct {
		driver string
		vars   []string // variables the server needs (they are in the environment)
		extra  []string // -p properties
		code   int
	}{
		{"etcd", []string{"DBRIG_ETCD_ENDPOINTS"}, nil, 0},
		{"redis", []string{"DBRIG_REDIS_ADDR", "DBRIG_REDIS_PASSWORD"}, nil, 0},
		// -p wins: a port nobody listens on, so the run cannot start.
		{"etcd", []string{"DBRIG_ETCD_ENDPOINTS"}, []string{"etcd.endpoints=127.0.0.1:1", "etcd.dialtimeout=300ms"}, 1},
	}
	store := filepath.Join(t.TempDir(), "r.db")
	table := fmt.Sprintf("env%d", time.Now().UnixNano()%1e9)
	for i, tc := range tests {
		t.Run(fmt.Sprint(tc.driver, i), func(t *testing.T) {
			for _, v := range tc.vars {
				t.Setenv(v, testenv.Need(t, v))
			}
			args := []string{"run", "--driver", tc.driver, "--store", store, "--quiet", "-P", "workloada",
				"-p", "recordcount=50", "-p", "operationcount=100", "-p", "table=" + table + fmt.Sprint(i)}
			for _, p := range tc.extra {
				args = append(args, "-p", p)
			}
			code, out, errOut := dbrig(t, context.Background(), args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %s%s", code, tc.code, out, errOut)
			}
			if tc.code != 0 {
				if !strings.Contains(errOut, "127.0.0.1:1") {
					t.Errorf("the failure does not name the -p endpoint:\n%s", errOut)
				}
				return
			}
			if !strings.Contains(out, "done") {
				t.Errorf("not done:\n%s", out)
			}
		})
	}
}
