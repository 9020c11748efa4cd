package inject

import (
	"context"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/dbrig/dbrig/inject/proxy"
)

// echo starts an echo server and a proxy in front of it.
func echoProxy(t *testing.T) *proxy.Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); io.Copy(c, c) }()
		}
	}()
	p, err := proxy.Listen(ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// rtt is one echo round trip through a new connection; an error when the
// link does not answer within 400ms.
func rtt(addr string) (time.Duration, error) {
	began := time.Now()
	c, err := net.DialTimeout("tcp", addr, 400*time.Millisecond)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(400 * time.Millisecond))
	if _, err := c.Write([]byte("ping")); err != nil {
		return 0, err
	}
	if _, err := io.ReadFull(c, make([]byte, 4)); err != nil {
		return 0, err
	}
	return time.Since(began), nil
}

func TestNetworkFaults(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		kind   string
		f      Fault
		broken func(d time.Duration, err error) bool // what the fault does to a round trip
	}{
		{"delay", Delay{Delay: 120 * time.Millisecond}, func(d time.Duration, err error) bool { return err == nil && d >= 120*time.Millisecond }},
		{"partition", Partition{}, func(_ time.Duration, err error) bool { return err != nil }},
		{"drop", Drop{}, func(_ time.Duration, err error) bool { return err != nil }},
		{"drop-blackhole", Drop{Blackhole: true}, func(_ time.Duration, err error) bool {
			var ne net.Error
			return errors.As(err, &ne) && ne.Timeout()
		}},
	}
	for _, tc := range tests {
		t.Run(tc.kind, func(t *testing.T) {
			p, other := echoProxy(t), echoProxy(t)
			f := tc.f
			tg := Target{Links: []Link{{Proxy: p, Name: "test"}}}
			if d, err := rtt(p.Addr()); tc.broken(d, err) {
				t.Fatalf("before: %v %v already looks faulty", d, err)
			}
			if err := f.Inject(ctx, tg); err != nil {
				t.Fatal(err)
			}
			if d, err := rtt(p.Addr()); !tc.broken(d, err) {
				t.Fatalf("during %s: round trip %v, %v: the fault did not act", tc.kind, d, err)
			}
			if d, err := rtt(other.Addr()); tc.broken(d, err) {
				t.Fatalf("another link was hit: %v %v", d, err)
			}
			if err := f.Heal(ctx, tg); err != nil {
				t.Fatal(err)
			}
			if d, err := rtt(p.Addr()); tc.broken(d, err) {
				t.Fatalf("after heal: %v %v", d, err)
			}
		})
	}
}

func TestNetworkFaultSettings(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want error
	}{
		{"delay 0", second(NewDelay(0, 0)), ErrBadOption},
		{"jitter > delay", second(NewDelay(time.Millisecond, 2*time.Millisecond)), ErrBadOption},
		{"delay ± jitter", second(NewDelay(2*time.Millisecond, time.Millisecond)), nil},
		{"bandwidth 0", second(NewBandwidth(0)), ErrBadOption},
		{"bandwidth 1000", second(NewBandwidth(1000)), nil},
		{"drop sometimes", second(NewDrop("sometimes")), ErrBadOption},
		{"drop blackhole", second(NewDrop("blackhole")), nil},
	} {
		if !errors.Is(tc.err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, tc.err, tc.want)
		}
	}
	if err := (Delay{Delay: time.Second}).Inject(context.Background(), Target{}); !errors.Is(err, ErrNoLinks) {
		t.Errorf("delay without links: %v", err)
	}
}

// second is the error of a constructor's result.
func second[T any](_ T, err error) error { return err }
