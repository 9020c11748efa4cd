package hazelcast

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hazelcast/hazelcast-go-client/hzerrors"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/drivertest"
	"github.com/dbrig/dbrig/errclass"
	"github.com/dbrig/dbrig/internal/testenv"
)

// openT opens the driver; the test's maps get a prefix of their own and are
// destroyed when the test ends (by a client of its own: the test's DB is
// closed by then).
func openT(t testing.TB, addrs string, kv ...string) *DB {
	t.Helper()
	prefix := fmt.Sprintf("dbrig-test.%s.%d.", strings.ReplaceAll(t.Name(), "/", "_"), time.Now().UnixNano())
	db := openPrefix(t, addrs, prefix, kv...)
	t.Cleanup(func() {
		admin, err := open(context.Background(), driver.Config{Props: drivertest.Props(
			"hazelcast.addrs", testenv.Need(t, "DBRIG_HAZELCAST_ADDRS"), "hazelcast.prefix", prefix)})
		if err != nil {
			t.Errorf("cleanup: %v", err)
			return
		}
		defer admin.Close()
		if err := admin.Reset(context.Background()); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	return db
}

func openPrefix(t testing.TB, addrs, prefix string, kv ...string) *DB {
	t.Helper()
	p := drivertest.Props(append([]string{"hazelcast.addrs", addrs, "hazelcast.prefix", prefix}, kv...)...)
	return drivertest.Open(t, open, driver.Config{Props: p})
}

func TestBadProperties(t *testing.T) {
	tests := []struct {
		kv   []string
		want string
	}{
		{[]string{"hazelcast.addrs", "localhost"}, `test.properties:1: property hazelcast.addrs="localhost": expected a comma-separated list of host:port`},
		{[]string{"hazelcast.addrs", ","}, "hazelcast.addrs"},
		{[]string{"hazelcast.prefix", ""}, `hazelcast.prefix="": expected a non-empty map name prefix`},
		{[]string{"hazelcast.cluster", ""}, `hazelcast.cluster="": expected a non-empty cluster name`},
		{[]string{"hazelcast.timeout", "0s"}, `hazelcast.timeout="0s": expected a duration > 0`},
		{[]string{"hazelcast.dialtimeout", "x"}, `hazelcast.dialtimeout="x": expected a duration`},
		{[]string{"hazelcast.batchsize", "-5"}, `hazelcast.batchsize="-5": expected an integer >= 1`},
		{[]string{"hazelcast.batchsize", "1000000"}, `expected an integer from 1 to 100000`},
		{[]string{"hazelcast.smart", "yes"}, `hazelcast.smart="yes": expected true or false`},
		{[]string{"hazelcast.scan", "full"}, `hazelcast.scan="full": expected one of none, index`},
	}
	for _, tc := range tests {
		t.Run(tc.kv[0]+"="+tc.kv[1], func(t *testing.T) {
			drivertest.OpenFails(t, Open, driver.Config{Props: drivertest.Props(tc.kv...)}, tc.want)
		})
	}
}

func TestOpenUnreachable(t *testing.T) {
	start := time.Now()
	_, err := Open(context.Background(), driver.Config{Props: drivertest.Props("hazelcast.addrs", "127.0.0.1:1", "hazelcast.dialtimeout", "500ms")})
	if err == nil {
		t.Fatal("Open of an unreachable address succeeded")
	}
	if c := errclass.Of(err); c != errclass.Unavailable {
		t.Errorf("class %q (%v), want unavailable", c, err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("Open took %v; the dial timeout was 500ms", took)
	}
}

func TestClassOf(t *testing.T) {
	tests := []struct {
		err  error
		want errclass.Class
	}{
		{fmt.Errorf("get: %w", context.DeadlineExceeded), errclass.Timeout},
		{hzerrors.ErrOperationTimeout, errclass.Timeout},
		{hzerrors.ErrClientOffline, errclass.Unavailable},
		{fmt.Errorf("x: %w", hzerrors.ErrTargetDisconnected), errclass.Unavailable},
		{hzerrors.ErrHazelcastInstanceNotActive, errclass.Unavailable},
		{&os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}, errclass.Unavailable},
		{hzerrors.ErrConcurrentModification, errclass.Conflict},
		{context.Canceled, errclass.Other},
		{hzerrors.ErrIllegalArgument, errclass.Other},
		{errors.New("plain"), errclass.Other},
	}
	for _, tc := range tests {
		if got := classOf(tc.err); got != tc.want {
			t.Errorf("classOf(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}

func addrList(t testing.TB) []string {
	return strings.Split(testenv.Need(t, "DBRIG_HAZELCAST_ADDRS"), ",")
}

// TestConformance runs the suite through loopback proxies in front of all
// three members. A smart client learns the members' own addresses from the
// cluster and would bypass the proxies, so this client is unisocket: it only
// connects to the addresses it is given. TestSmartRouting covers the default.
func TestConformance(t *testing.T) {
	px := drivertest.NewProxies(t, addrList(t)...)
	addrs := strings.Join(px.Addrs(), ",")
	drivertest.Run(t, drivertest.Harness{
		Open: func(t *testing.T, table string) driver.DB {
			return openT(t, addrs, "hazelcast.smart", "false", "hazelcast.scan", "index",
				"hazelcast.timeout", "1s", "hazelcast.dialtimeout", "5s")
		},
		Outage:  px,
		Timeout: time.Second,
	})
}

// TestSmartRouting shows that the default client works with all three
// members: it knows three members and holds a connection to each.
func TestSmartRouting(t *testing.T) {
	addrs := addrList(t)
	db := openT(t, strings.Join(addrs, ","))
	t.Cleanup(func() { db.Close() })
	ctx := context.Background()
	// Operations on many keys: their partitions are owned by all members.
	for i := range 100 {
		if err := db.Insert(ctx, "t", "k"+strconv.Itoa(i), driver.Record{"f": []byte("v")}); err != nil {
			t.Fatal(err)
		}
	}
	ms := db.Members()
	if len(ms) != 3 {
		t.Fatalf("the client sees members %v, want 3", ms)
	}
	for i, m := range ms {
		if m.Address != addrs[i] {
			t.Errorf("member %d is %s, want %s", i, m.Address, addrs[i])
		}
	}
	v, err := db.ServerVersion(ctx)
	if err != nil || !strings.HasPrefix(v, "5.") {
		t.Errorf("ServerVersion = %q, %v; want 5.x", v, err)
	}
	// Connections are opened in the background after the first member.
	deadline := time.Now().Add(10 * time.Second)
	for {
		conns := connectedPorts(t)
		missing := 0
		for _, a := range addrs {
			_, port, _ := strings.Cut(a, ":")
			if !conns[port] {
				missing++
			}
		}
		if missing == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("this process is connected to ports %v; want all of %v", conns, addrs)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// connectedPorts returns the remote ports of this process's established TCP
// connections to 127.0.0.1, from /proc (sockets of other processes, such as
// the members' own links, are not ours and are left out).
func connectedPorts(t *testing.T) map[string]bool {
	t.Helper()
	inodes := map[string]bool{}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, fd := range fds {
		link, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if err == nil && strings.HasPrefix(link, "socket:[") {
			inodes[strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")] = true
		}
	}
	data, err := os.ReadFile("/proc/self/net/tcp")
	if err != nil {
		t.Fatal(err)
	}
	ports := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n")[1:] {
		f := strings.Fields(line)
		// f[2] = remote "0100007F:1E65", f[3] = state (01 = established), f[9] = inode
		if len(f) < 10 || f[3] != "01" || !inodes[f[9]] || !strings.HasPrefix(f[2], "0100007F:") {
			continue
		}
		port, err := strconv.ParseUint(strings.TrimPrefix(f[2], "0100007F:"), 16, 16)
		if err == nil {
			ports[strconv.FormatUint(port, 10)] = true
		}
	}
	return ports
}

func TestScanUnsupportedByDefault(t *testing.T) {
	db := openT(t, strings.Join(addrList(t), ","))
	t.Cleanup(func() { db.Close() })
	_, err := db.Scan(context.Background(), "t", "a", 10, nil)
	if !errors.Is(err, errors.ErrUnsupported) || !strings.Contains(err.Error(), "hazelcast.scan=index") {
		t.Fatalf("Scan: %v; want ErrUnsupported naming hazelcast.scan=index", err)
	}
}

// TestUpdateConflict makes another writer change the record between
// Update's read and its write.
func TestUpdateConflict(t *testing.T) {
	db := openT(t, strings.Join(addrList(t), ","))
	t.Cleanup(func() { db.Close() })
	ctx := context.Background()
	if err := db.Insert(ctx, "t", "k", driver.Record{"a": []byte("1")}); err != nil {
		t.Fatal(err)
	}
	db.beforeReplace = func() {
		if err := db.Insert(ctx, "t", "k", driver.Record{"a": []byte("other")}); err != nil {
			t.Error(err)
		}
	}
	err := db.Update(ctx, "t", "k", driver.Record{"a": []byte("mine")})
	if !errors.Is(err, errclass.ErrConflict) || errclass.Of(err) != errclass.Conflict {
		t.Fatalf("Update racing another writer: %v (class %q), want a conflict", err, errclass.Of(err))
	}
	db.beforeReplace = nil
	got, err := db.Read(ctx, "t", "k", nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(got["a"]) != "other" {
		t.Fatalf("record after the conflict = %q, want the other writer's", got)
	}
	if err := db.Update(ctx, "t", "k", driver.Record{"a": []byte("mine")}); err != nil {
		t.Fatal(err)
	}
}
