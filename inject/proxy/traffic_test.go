package proxy

import (
	"bytes"
	"testing"
	"time"
)

// Traffic counts the bytes each way, over the fast path and the toxic
// path, and the connections.
func TestTraffic(t *testing.T) {
	p := start(t, echoServer(t))
	if up, down, n := p.Traffic(); up != 0 || down != 0 || n != 0 {
		t.Fatalf("fresh proxy: %d %d %d", up, down, n)
	}
	c := dial(t, p.Addr())
	if err := roundTrip(c, bytes.Repeat([]byte("x"), 100_000)); err != nil {
		t.Fatal(err)
	}
	p.Delay(time.Millisecond) // the toxic path from here on
	if err := roundTrip(c, []byte("ping")); err != nil {
		t.Fatal(err)
	}
	if err := roundTrip(dial(t, p.Addr()), []byte("pong!")); err != nil {
		t.Fatal(err)
	}
	if up, down, n := p.Traffic(); up != 100_009 || down != 100_009 || n != 2 {
		t.Fatalf("Traffic = %d up, %d down, %d connections; want 100009, 100009, 2", up, down, n)
	}
}

// A connection that went to the toxic path comes back to the fast path
// once its toxics are healed, and its stream stays whole across both
// switches (a 1 MiB echo after each).
func TestHealedBackToFastPath(t *testing.T) {
	p := start(t, echoServer(t))
	c := dial(t, p.Addr())
	big := bytes.Repeat([]byte("0123456789abcdef"), 64*1024)
	if err := roundTrip(c, []byte("warm")); err != nil {
		t.Fatal(err)
	}
	p.Delay(20 * time.Millisecond)
	began := time.Now()
	if err := roundTrip(c, []byte("slow")); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(began); took < 20*time.Millisecond {
		t.Fatalf("round trip under a 20ms delay took %v", took)
	}
	if n := p.slowConns.Load(); n == 0 {
		t.Fatal("no direction on the toxic path under a delay")
	}
	if err := roundTrip(c, big); err != nil {
		t.Fatalf("1 MiB under the delay: %v", err)
	}
	p.Delay(0) // healed
	deadline := time.Now().Add(2 * time.Second)
	for p.slowConns.Load() != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := p.slowConns.Load(); n != 0 {
		t.Fatalf("%d directions still on the toxic path after the heal", n)
	}
	if err := roundTrip(c, big); err != nil {
		t.Fatalf("1 MiB after the heal: %v", err)
	}
	p.Delay(20 * time.Millisecond) // and to the toxic path again
	if err := roundTrip(c, big); err != nil || p.slowConns.Load() == 0 {
		t.Fatalf("1 MiB under a second delay: %v, %d on the toxic path", err, p.slowConns.Load())
	}
}
