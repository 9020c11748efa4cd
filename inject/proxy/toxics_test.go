package proxy

import (
	"bytes"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestJitter(t *testing.T) {
	const d, j = 40 * time.Millisecond, 20 * time.Millisecond
	p := start(t, echoServer(t))
	p.Set("", Toxics{Delay: d, Jitter: j})
	c := dial(t, p.Addr())
	var lo, hi time.Duration = time.Hour, 0
	for range 8 {
		began := time.Now()
		if err := roundTrip(c, []byte("j")); err != nil {
			t.Fatal(err)
		}
		rtt := time.Since(began)
		lo, hi = min(lo, rtt), max(hi, rtt)
	}
	// Two one-way delays, each within d ± j.
	if lo < 2*(d-j) || hi > 2*(d+j)+300*time.Millisecond {
		t.Fatalf("round trips %v..%v, want within %v..%v (+ scheduling)", lo, hi, 2*(d-j), 2*(d+j))
	}
	if hi-lo < 2*time.Millisecond {
		t.Errorf("round trips %v..%v: jitter made no difference", lo, hi)
	}
}

func TestRate(t *testing.T) {
	const rate = 200 * 1024 // bytes/s
	p := start(t, echoServer(t))
	c := dial(t, p.Addr())
	msg := bytes.Repeat([]byte("r"), 60*1024)
	began := time.Now()
	if err := roundTrip(c, msg); err != nil {
		t.Fatal(err)
	}
	fast := time.Since(began)
	p.Set("", Toxics{Rate: rate})
	began = time.Now()
	if err := roundTrip(c, msg); err != nil {
		t.Fatal(err)
	}
	// 60 KiB at 200 KiB/s is 0.3 s each way; the two directions overlap.
	if slow := time.Since(began); slow < 250*time.Millisecond || slow > 3*time.Second {
		t.Fatalf("60 KiB round trip at %d B/s took %v (unlimited: %v), want about 0.3-0.6 s", rate, slow, fast)
	}
}

func TestBlackhole(t *testing.T) {
	p := start(t, echoServer(t))
	c := dial(t, p.Addr())
	if err := roundTrip(c, []byte("before")); err != nil {
		t.Fatal(err)
	}
	p.Set("", Toxics{Drop: DropBlackhole})
	c.SetDeadline(time.Now().Add(300 * time.Millisecond))
	c.Write([]byte("into the void"))
	_, err := c.Read(make([]byte, 10))
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("read through a black hole: %v, want a timeout (open, silent)", err)
	}
	p.Clear("")
	if err := roundTrip(dial(t, p.Addr()), []byte("after")); err != nil {
		t.Fatalf("after the black hole was cleared: %v", err)
	}
}

func TestReset(t *testing.T) {
	p := start(t, echoServer(t))
	c := dial(t, p.Addr())
	if err := roundTrip(c, []byte("before")); err != nil {
		t.Fatal(err)
	}
	p.Set("", Toxics{Drop: DropReset})
	if err := roundTrip(c, []byte("open")); !errors.Is(err, syscall.ECONNRESET) && !errors.Is(err, io.EOF) {
		t.Fatalf("open connection after reset: %v, want connection reset", err)
	}
	// A new connection is reset: at once (the dial itself may see it), or
	// at its first round trip.
	if c, err := net.DialTimeout("tcp", p.Addr(), 2*time.Second); err == nil {
		err := roundTrip(c, []byte("new"))
		c.Close()
		if err == nil {
			t.Fatal("a new connection got through a reset")
		}
	}
	p.Clear("")
	if err := roundTrip(dial(t, p.Addr()), []byte("after")); err != nil {
		t.Fatalf("after reset cleared: %v", err)
	}
}

// TestSources cuts one source only: connections that say "from: a" are
// reset, those from b keep working.
func TestSources(t *testing.T) {
	p, err := ListenWith(echoServer(t), Options{Identify: func(_ net.Conn, b []byte) string {
		s, _, _ := strings.Cut(strings.TrimPrefix(string(b), "from: "), "\n")
		return s
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	a, b := dial(t, p.Addr()), dial(t, p.Addr())
	if err := roundTrip(a, []byte("from: a\n")); err != nil {
		t.Fatal(err)
	}
	if err := roundTrip(b, []byte("from: b\n")); err != nil {
		t.Fatal(err)
	}
	if got := p.Sources(); got["a"] != 2 || got["b"] != 2 { // client and upstream side each
		t.Fatalf("sources %v, want a and b with 2 sockets each", got)
	}
	p.Set("a", Toxics{Drop: DropReset})
	if err := roundTrip(a, []byte("x")); err == nil {
		t.Fatal("source a still forwards after its reset")
	}
	if err := roundTrip(b, []byte("y")); err != nil {
		t.Fatalf("source b broke with a: %v", err)
	}
	if err := roundTrip(dial(t, p.Addr()), []byte("from: a\n")); err == nil {
		t.Fatal("a new connection from a got through")
	}
	p.Set("b", Toxics{Delay: 30 * time.Millisecond})
	began := time.Now()
	if err := roundTrip(b, []byte("z")); err != nil || time.Since(began) < 60*time.Millisecond {
		t.Fatalf("delay on b: %v after %v, want >= 60ms", err, time.Since(began))
	}
	p.Clear("a")
	if err := roundTrip(dial(t, p.Addr()), []byte("from: a\n")); err != nil {
		t.Fatalf("a after clear: %v", err)
	}
}
