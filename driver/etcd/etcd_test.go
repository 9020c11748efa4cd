package etcd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/drivertest"
	"github.com/dbrig/dbrig/driver/internal/fieldcodec"
	"github.com/dbrig/dbrig/errclass"
	"github.com/dbrig/dbrig/internal/testenv"
)

// openT opens the driver on the test cluster with a key prefix of its own,
// which is deleted when the test ends.
func openT(t testing.TB, endpoints string, kv ...string) *DB {
	t.Helper()
	prefix := fmt.Sprintf("dbrig-test/%s-%d/", strings.ReplaceAll(t.Name(), "/", "_"), time.Now().UnixNano())
	p := drivertest.Props(append([]string{"etcd.endpoints", endpoints, "etcd.prefix", prefix}, kv...)...)
	db := drivertest.Open(t, open, driver.Config{Props: p})
	t.Cleanup(func() { db.Close() })
	cleanupPrefix(t, endpoints, prefix)
	return db
}

// cleanupPrefix deletes prefix with a client of its own, as the test's DB is
// already closed when cleanups run.
func cleanupPrefix(t testing.TB, endpoints, prefix string) {
	t.Cleanup(func() {
		p := drivertest.Props("etcd.endpoints", endpoints, "etcd.prefix", prefix)
		db, err := open(context.Background(), driver.Config{Props: p})
		if err != nil {
			t.Errorf("cleanup: %v", err)
			return
		}
		defer db.Close()
		if err := db.Reset(context.Background()); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
}

func TestBadProperties(t *testing.T) {
	tests := []struct {
		kv   []string
		want string // in the error
	}{
		{[]string{"etcd.endpoints", "127.0.0.1"}, `test.properties:1: property etcd.endpoints="127.0.0.1": expected a comma-separated list of host:port`},
		{[]string{"etcd.endpoints", " , "}, "etcd.endpoints"},
		{[]string{"etcd.prefix", ""}, `property etcd.prefix="": expected a non-empty key prefix`},
		{[]string{"etcd.timeout", "-1s"}, `etcd.timeout="-1s": expected a duration > 0`},
		{[]string{"etcd.timeout", "soon"}, `etcd.timeout="soon": expected a duration`},
		{[]string{"etcd.dialtimeout", "0"}, `etcd.dialtimeout="0": expected a duration > 0`},
		{[]string{"etcd.batchsize", "0"}, `etcd.batchsize="0": expected an integer >= 1`},
		{[]string{"etcd.batchsize", "20000"}, `etcd.batchsize="20000": expected an integer from 1 to 10000`},
		{[]string{"etcd.consistency", "eventual"}, `etcd.consistency="eventual": expected one of linearizable, serializable`},
	}
	for _, tc := range tests {
		t.Run(tc.kv[0]+"="+tc.kv[1], func(t *testing.T) {
			drivertest.OpenFails(t, Open, driver.Config{Props: drivertest.Props(tc.kv...)}, tc.want)
		})
	}
}

func TestOpenUnreachable(t *testing.T) {
	// Port 1 on loopback: nothing listens there, so Open must fail fast.
	start := time.Now()
	_, err := Open(context.Background(), driver.Config{Props: drivertest.Props("etcd.endpoints", "127.0.0.1:1", "etcd.dialtimeout", "300ms")})
	if err == nil {
		t.Fatal("Open of an unreachable endpoint succeeded")
	}
	if c := errclass.Of(err); c != errclass.Unavailable {
		t.Errorf("class %q (%v), want unavailable", c, err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("Open took %v; the dial timeout was 300ms", took)
	}
}

func TestClassOf(t *testing.T) {
	tests := []struct {
		err  error
		want errclass.Class
	}{
		{rpctypes.ErrTimeout, errclass.Timeout},
		{rpctypes.ErrTimeoutDueToLeaderFail, errclass.Timeout},
		{rpctypes.ErrNoLeader, errclass.Unavailable},
		{rpctypes.ErrTimeoutDueToConnectionLost, errclass.Unavailable},
		{rpctypes.ErrTooManyRequests, errclass.Unavailable},
		{fmt.Errorf("etcd read: %w", context.DeadlineExceeded), errclass.Timeout},
		{context.Canceled, errclass.Other},
		{status.Error(codes.Unavailable, "connection refused"), errclass.Unavailable},
		{fmt.Errorf("wrapped: %w", status.Error(codes.Unavailable, "x")), errclass.Unavailable},
		{status.Error(codes.DeadlineExceeded, "slow"), errclass.Timeout},
		{status.Error(codes.Aborted, "aborted"), errclass.Conflict},
		{status.Error(codes.Unknown, "context deadline exceeded"), errclass.Timeout}, // the server's own timeout
		{status.Error(codes.Unknown, "something else"), errclass.Other},
		{rpctypes.ErrTooManyOps, errclass.Other},
		{errors.New("plain"), errclass.Other},
	}
	for _, tc := range tests {
		if got := classOf(tc.err); got != tc.want {
			t.Errorf("classOf(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}

func endpointList(t testing.TB) []string {
	return strings.Split(testenv.Need(t, "DBRIG_ETCD_ENDPOINTS"), ",")
}

func TestConformance(t *testing.T) {
	px := drivertest.NewProxies(t, endpointList(t)...)
	eps := strings.Join(px.Addrs(), ",")
	drivertest.Run(t, drivertest.Harness{
		Open: func(t *testing.T, table string) driver.DB {
			// The table name is fresh per subtest; the prefix keeps the
			// suite's keys apart from other users of the cluster.
			return openT(t, eps, "etcd.timeout", "1s", "etcd.dialtimeout", "2s")
		},
		Outage:  px,
		Timeout: time.Second,
	})
}

// TestCluster shows that the client works with all three members: the
// cluster lists three with one leader, and each member serves some reads.
func TestCluster(t *testing.T) {
	eps := endpointList(t)
	db := openT(t, strings.Join(eps, ","))
	ctx := context.Background()
	ms, err := db.Members(ctx)
	if err != nil {
		t.Fatal(err)
	}
	leaders := 0
	for _, m := range ms {
		if m.Leader {
			leaders++
		}
	}
	if len(ms) != 3 || leaders != 1 {
		t.Fatalf("members %+v: want 3 with one leader", ms)
	}

	if err := db.Insert(ctx, "t", "k", driver.Record{"f": []byte("v")}); err != nil {
		t.Fatal(err)
	}
	before := make([]float64, len(ms))
	for i, m := range ms {
		before[i] = rangeCount(t, m.ClientURLs[0])
	}
	const reads = 300
	for range reads {
		if _, err := db.Read(ctx, "t", "k", nil); err != nil {
			t.Fatal(err)
		}
	}
	total := 0.0
	for i, m := range ms {
		served := rangeCount(t, m.ClientURLs[0]) - before[i]
		t.Logf("member %s (%s) served %.0f reads", m.Name, m.ClientURLs[0], served)
		if served < 1 {
			t.Errorf("member %s served no read", m.Name)
		}
		total += served
	}
	if total < reads {
		t.Errorf("the members served %.0f reads in all, want >= %d", total, reads)
	}
}

// rangeCount reads how many Range requests a member has handled from its
// Prometheus metrics.
func rangeCount(t *testing.T, clientURL string) float64 {
	t.Helper()
	resp, err := http.Get(clientURL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	sum := 0.0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "grpc_server_handled_total{") && strings.Contains(line, `grpc_method="Range"`) {
			f := strings.Fields(line)
			v, err := strconv.ParseFloat(f[len(f)-1], 64)
			if err != nil {
				t.Fatalf("metrics line %q: %v", line, err)
			}
			sum += v
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return sum
}

// TestUpdateConflict makes another writer change the record between
// Update's read and its Txn: the Update must fail as a conflict and must not
// overwrite the other write.
func TestUpdateConflict(t *testing.T) {
	eps := strings.Join(endpointList(t), ",")
	db := openT(t, eps)
	ctx := context.Background()
	if err := db.Insert(ctx, "t", "k", driver.Record{"a": []byte("1"), "b": []byte("1")}); err != nil {
		t.Fatal(err)
	}
	db.beforeCommit = func() {
		if _, err := db.cli.Put(ctx, db.key("t", "k"), string(fieldcodec.Encode(driver.Record{"a": []byte("other"), "b": []byte("other")}))); err != nil {
			t.Error(err)
		}
	}
	err := db.Update(ctx, "t", "k", driver.Record{"a": []byte("mine")})
	if !errors.Is(err, errclass.ErrConflict) || errclass.Of(err) != errclass.Conflict {
		t.Fatalf("Update racing another writer: %v (class %q), want a conflict", err, errclass.Of(err))
	}
	db.beforeCommit = nil
	got, err := db.Read(ctx, "t", "k", nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(got["a"]) != "other" || string(got["b"]) != "other" {
		t.Fatalf("record after the conflict = %q, want the other writer's", got)
	}
	// Without a race the same Update goes through.
	if err := db.Update(ctx, "t", "k", driver.Record{"a": []byte("mine")}); err != nil {
		t.Fatal(err)
	}
}

// TestInsertBatchSplits writes batches that would break etcd's limits as one
// Txn: more puts than --max-txn-ops (128), and more bytes than
// --max-request-bytes (1.5 MiB).
func TestInsertBatchSplits(t *testing.T) {
	eps := strings.Join(endpointList(t), ",")
	tests := []struct {
		name      string
		n, size   int
		batchsize string
	}{
		{"ops", 300, 10, "128"},
		{"bytes", 4, 600 << 10, "128"},
		{"small batchsize", 10, 10, "3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			db := openT(t, eps, "etcd.batchsize", tc.batchsize)
			ctx := context.Background()
			keys := make([]string, tc.n)
			recs := make([]driver.Record, tc.n)
			for i := range keys {
				keys[i] = fmt.Sprintf("k%05d", i)
				recs[i] = driver.Record{"f": []byte(strings.Repeat(strconv.Itoa(i%10), tc.size))}
			}
			if err := db.InsertBatch(ctx, "t", keys, recs); err != nil {
				t.Fatal(err)
			}
			got, err := db.Scan(ctx, "t", "", tc.n+1, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tc.n {
				t.Fatalf("scan found %d records, want %d", len(got), tc.n)
			}
			for i, r := range got {
				if string(r["f"]) != string(recs[i]["f"]) {
					t.Fatalf("record %d differs", i)
				}
			}
		})
	}
}
