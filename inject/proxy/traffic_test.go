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
