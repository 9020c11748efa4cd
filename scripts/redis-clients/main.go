// Command redis-clients compares go-redis (dbrig's Redis client) with
// rueidis (automatic pipelining) on the operations of YCSB workloads A and
// C: HGETALL of a 10-field hash and HSET of one field, zipfian-free uniform
// keys, the same goroutines and connections budget, in alternating rounds
// in one process. It prints ops/s and the process's CPU per operation
// (getrusage user+system), the client cost that a 2-core machine takes from
// the server. It is a module of its own so that dbrig does not depend on
// rueidis for an evaluation:
//
//	cd scripts/redis-clients && go run . -addr 127.0.0.1:16379 -password "$DBRIG_REDIS_PASSWORD" -clients 16 -secs 5 -rounds 3
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"
)

type client interface {
	hgetall(ctx context.Context, key string) (int, error)
	hset(ctx context.Context, key, field string, v []byte) error
	close()
}

type goRedis struct{ c *redis.Client }

func (g goRedis) hgetall(ctx context.Context, key string) (int, error) {
	m, err := g.c.HGetAll(ctx, key).Result()
	return len(m), err
}
func (g goRedis) hset(ctx context.Context, key, field string, v []byte) error {
	return g.c.HSet(ctx, key, field, v).Err()
}
func (g goRedis) close() { g.c.Close() }

type rue struct{ c rueidis.Client }

func (r rue) hgetall(ctx context.Context, key string) (int, error) {
	m, err := r.c.Do(ctx, r.c.B().Hgetall().Key(key).Build()).AsStrMap()
	return len(m), err
}
func (r rue) hset(ctx context.Context, key, field string, v []byte) error {
	return r.c.Do(ctx, r.c.B().Hset().Key(key).FieldValue().FieldValue(field, rueidis.BinaryString(v)).Build()).Error()
}
func (r rue) close() { r.c.Close() }

func cpu() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func main() {
	addr := flag.String("addr", "127.0.0.1:6379", "Redis server")
	password := flag.String("password", "", "AUTH password")
	clients := flag.Int("clients", 16, "goroutines")
	secs := flag.Float64("secs", 5, "seconds per case")
	rounds := flag.Int("rounds", 3, "alternating rounds")
	records := flag.Int("records", 10000, "hashes of 10 fields of 100 bytes")
	flag.Parse()
	ctx := context.Background()

	gr := goRedis{redis.NewClient(&redis.Options{Addr: *addr, Password: *password, PoolSize: *clients})}
	rc, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{*addr}, Password: *password, DisableCache: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, "rueidis:", err)
		os.Exit(1)
	}
	libs := []struct {
		name string
		c    client
	}{{"go-redis", gr}, {"rueidis", rue{rc}}}
	defer func() {
		for _, l := range libs {
			l.c.close()
		}
	}()

	keys := make([]string, *records)
	val := bytes.Repeat([]byte("v"), 100)
	for i := range keys {
		keys[i] = "rcl:user" + strconv.Itoa(i)
		args := []any{}
		for f := range 10 {
			args = append(args, "field"+strconv.Itoa(f), val)
		}
		if err := gr.c.HSet(ctx, keys[i], args...).Err(); err != nil {
			fmt.Fprintln(os.Stderr, "load:", err)
			os.Exit(1)
		}
	}
	defer func() {
		for i := 0; i < len(keys); i += 1000 {
			gr.c.Del(ctx, keys[i:min(i+1000, len(keys))]...)
		}
	}()

	fmt.Printf("%-5s %-9s %-9s %10s %12s\n", "round", "workload", "client", "ops/s", "cpu µs/op")
	for r := 1; r <= *rounds; r++ {
		for _, wl := range []string{"a", "c"} {
			for _, l := range libs {
				ops, errs := 0, int64(0)
				var n, failed atomic.Int64
				stop := time.Now().Add(time.Duration(*secs * float64(time.Second)))
				c0, t0 := cpu(), time.Now()
				var wg sync.WaitGroup
				for g := range *clients {
					wg.Add(1)
					go func() {
						defer wg.Done()
						rng := rand.New(rand.NewPCG(uint64(g), uint64(r)))
						for k := 0; ; k++ {
							if k%64 == 0 && time.Now().After(stop) {
								return
							}
							key := keys[rng.IntN(len(keys))]
							var err error
							if wl == "a" && rng.IntN(2) == 0 {
								err = l.c.hset(ctx, key, "field3", val)
							} else {
								var fields int
								fields, err = l.c.hgetall(ctx, key)
								if err == nil && fields != 10 {
									err = fmt.Errorf("%s: %d fields", key, fields)
								}
							}
							n.Add(1)
							if err != nil && failed.Add(1) == 1 {
								fmt.Fprintln(os.Stderr, l.name, err)
							}
						}
					}()
				}
				wg.Wait()
				el, used := time.Since(t0), cpu()-c0
				ops, errs = int(n.Load()), failed.Load()
				fmt.Printf("%-5d %-9s %-9s %10.0f %12.1f", r, wl, l.name, float64(ops)/el.Seconds(), float64(used.Microseconds())/float64(ops))
				if errs > 0 {
					fmt.Printf("  (%d errors)", errs)
				}
				fmt.Println()
			}
		}
	}
}
