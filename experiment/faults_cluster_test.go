package experiment

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/inject"
)

// TestRedisSentinelFailover: Redis primary + replica + 3 sentinels that
// dbrig starts; the scenario kills the primary. A client that follows
// Sentinel writes every 10 ms: it cannot write from the kill until the
// sentinels agree the primary is down (down-after-milliseconds 5000 in the
// recipe) and promote the replica, then it writes to the new primary. The
// unavailable time, the longest stretch without a successful write, is
// measured from the writes: at least the down-after time, and not much more.
func TestRedisSentinelFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("takes about 15 s")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := cluster.Up(ctx, cluster.Redis{Replicas: 1, Sentinels: 3}, cluster.Options{})
	var missing *cluster.BinaryMissingError
	if errors.As(err, &missing) && os.Getenv("DBRIG_REQUIRE_SERVERS") != "1" {
		t.Skipf("SKIPPED: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer c.Down(context.Background())
	var sentinels []string
	for _, n := range c.Nodes() {
		if n.Role == "sentinel" {
			sentinels = append(sentinels, n.Addr)
		}
	}
	cli := redis.NewFailoverClient(&redis.FailoverOptions{MasterName: "mymaster", SentinelAddrs: sentinels,
		DialTimeout: 200 * time.Millisecond, ReadTimeout: 200 * time.Millisecond, WriteTimeout: 200 * time.Millisecond, MaxRetries: -1})
	defer cli.Close()

	var mu sync.Mutex
	var oks []time.Time
	wctx, stopWrites := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; wctx.Err() == nil; i++ {
			octx, ocancel := context.WithTimeout(wctx, 300*time.Millisecond)
			err := cli.Set(octx, fmt.Sprintf("f9failover:%d", i), i, 0).Err()
			ocancel()
			if err == nil {
				mu.Lock()
				oks = append(oks, time.Now())
				mu.Unlock()
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	kill, _ := inject.New("kill", inject.Options{})
	evs := newEvents()
	in := newInjector([]Injection{{Name: "kill-primary", Fault: kill, Target: "primary", At: time.Second}}, c, nil, evs.emit)
	done := make(chan struct{})
	go func() { defer close(done); in.run(ctx) }()
	in.measureStarted(time.Now())
	ev := evs.next(t, EventFault)
	<-done
	// Wait for writes to succeed again, then a little longer.
	deadline := time.Now().Add(40 * time.Second)
	for time.Now().Before(deadline) {
		mu.Lock()
		n := len(oks)
		last := time.Time{}
		if n > 0 {
			last = oks[n-1]
		}
		mu.Unlock()
		if last.After(ev.Time.Add(time.Second)) && time.Since(last) < 100*time.Millisecond {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(time.Second)
	stopWrites()
	wg.Wait()
	var longest time.Duration
	prev := ev.Time
	for _, at := range oks {
		if at.Before(ev.Time) {
			continue
		}
		longest = max(longest, at.Sub(prev))
		prev = at
	}
	addr, err := redis.NewSentinelClient(&redis.Options{Addr: sentinels[0]}).GetMasterAddrByName(ctx, "mymaster").Result()
	if err != nil {
		t.Fatal(err)
	}
	var old string
	for _, n := range c.Nodes() {
		if n.Name == "redis-primary" {
			old = n.Addr
		}
	}
	t.Logf("killed %s at %s; sentinels now name %v as primary; unavailable %v (down-after 5s)", old, ev.Time.Format("15:04:05.000"), addr, longest)
	if len(addr) != 2 || addr[0]+":"+addr[1] == old {
		t.Errorf("no failover: the primary is still %v", addr)
	}
	if longest < 4500*time.Millisecond || longest > 20*time.Second {
		t.Errorf("unavailable %v, want about the 5 s down-after time plus the failover", longest)
	}
}
