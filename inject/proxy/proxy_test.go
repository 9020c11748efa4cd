package proxy

import (
	"bytes"
	"errors"
	"io"
	"net"
	"syscall"
	"testing"
	"time"
)

// echoServer echoes every connection until the peer half-closes; it is
// stopped when the test ends.
func echoServer(t testing.TB) string {
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
			go func() {
				defer c.Close()
				io.Copy(c, c)
			}()
		}
	}()
	return ln.Addr().String()
}

func start(t testing.TB, target string) *Proxy {
	t.Helper()
	p, err := Listen(target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func dial(t testing.TB, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// roundTrip writes msg and reads it back from an echo server. It writes and
// reads at once, so a message bigger than the socket buffers cannot deadlock.
func roundTrip(c net.Conn, msg []byte) error {
	c.SetDeadline(time.Now().Add(5 * time.Second))
	werr := make(chan error, 1)
	go func() { _, err := c.Write(msg); werr <- err }()
	got := make([]byte, len(msg))
	_, rerr := io.ReadFull(c, got)
	if err := errors.Join(<-werr, rerr); err != nil {
		return err
	}
	if !bytes.Equal(got, msg) {
		return errors.New("echo differs")
	}
	return nil
}

func TestForward(t *testing.T) {
	p := start(t, echoServer(t))
	if host, _, _ := net.SplitHostPort(p.Addr()); host != "127.0.0.1" {
		t.Fatalf("Addr = %s, want a 127.0.0.1 address", p.Addr())
	}
	big := bytes.Repeat([]byte("0123456789abcdef"), 64*1024) // 1 MiB, many reads
	for _, msg := range [][]byte{[]byte("ping"), big} {
		if err := roundTrip(dial(t, p.Addr()), msg); err != nil {
			t.Fatalf("round trip of %d bytes: %v", len(msg), err)
		}
	}
	if got := p.Accepted(); got != 2 {
		t.Fatalf("Accepted = %d, want 2", got)
	}
}

func TestHalfClose(t *testing.T) {
	p := start(t, echoServer(t))
	c := dial(t, p.Addr()).(*net.TCPConn)
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write([]byte("last words")); err != nil {
		t.Fatal(err)
	}
	if err := c.CloseWrite(); err != nil {
		t.Fatal(err)
	}
	// The echo server answers after our FIN and then closes: all of it must arrive.
	got, err := io.ReadAll(c)
	if err != nil || string(got) != "last words" {
		t.Fatalf("after half close read %q, %v; want %q, nil", got, err, "last words")
	}
}

func TestCutRestore(t *testing.T) {
	p := start(t, echoServer(t))
	open := dial(t, p.Addr())
	if err := roundTrip(open, []byte("before")); err != nil {
		t.Fatal(err)
	}

	p.Cut()
	p.Cut() // idempotent
	if err := roundTrip(open, []byte("during")); err == nil {
		t.Fatal("a connection open before Cut still works after it")
	}
	_, err := net.DialTimeout("tcp", p.Addr(), 2*time.Second)
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("dial while cut: %v, want connection refused", err)
	}

	if err := p.Restore(); err != nil {
		t.Fatal(err)
	}
	if err := p.Restore(); err != nil { // idempotent
		t.Fatal(err)
	}
	if err := roundTrip(dial(t, p.Addr()), []byte("after")); err != nil {
		t.Fatalf("after Restore: %v", err)
	}
}

// A proxy at a given address (another loopback address, a free port) is
// there, and comes back there after a cut.
func TestListenAt(t *testing.T) {
	p, err := ListenWith(echoServer(t), Options{Listen: "127.0.0.2:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if host, _, _ := net.SplitHostPort(p.Addr()); host != "127.0.0.2" {
		t.Fatalf("Addr = %s, want a 127.0.0.2 address", p.Addr())
	}
	if err := roundTrip(dial(t, p.Addr()), []byte("ping")); err != nil {
		t.Fatal(err)
	}
	p.Cut()
	if err := p.Restore(); err != nil {
		t.Fatal(err)
	}
	if err := roundTrip(dial(t, p.Addr()), []byte("after")); err != nil {
		t.Fatalf("after Restore: %v", err)
	}
	if _, err := ListenWith(echoServer(t), Options{Listen: p.Addr()}); err == nil {
		t.Fatal("a second proxy listens on the first one's address")
	}
}

func TestUpstreamDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close() // nothing listens there now
	p := start(t, dead)
	c := dial(t, p.Addr())
	if err := roundTrip(c, []byte("x")); err == nil {
		t.Fatal("round trip to a dead upstream succeeded")
	}
}

func TestDelay(t *testing.T) {
	const d = 50 * time.Millisecond
	p := start(t, echoServer(t))
	c := dial(t, p.Addr())
	if err := roundTrip(c, []byte("warm")); err != nil { // fast path first
		t.Fatal(err)
	}
	p.Delay(d)
	// The open connection is delayed from its next byte on, a new one from
	// the start.
	for _, conn := range []net.Conn{c, dial(t, p.Addr())} {
		start := time.Now()
		if err := roundTrip(conn, []byte("slow")); err != nil {
			t.Fatal(err)
		}
		if rtt := time.Since(start); rtt < 2*d {
			t.Fatalf("round trip with Delay(%v) took %v, want >= %v", d, rtt, 2*d)
		}
	}
	p.Delay(0)
	if err := roundTrip(c, []byte("fast again")); err != nil {
		t.Fatal(err)
	}
}

func TestClose(t *testing.T) {
	p, err := Listen(echoServer(t))
	if err != nil {
		t.Fatal(err)
	}
	c := dial(t, p.Addr())
	if err := roundTrip(c, []byte("x")); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { p.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not return: a goroutine is stuck")
	}
	if _, err := net.DialTimeout("tcp", p.Addr(), time.Second); err == nil {
		t.Fatal("dial after Close succeeded")
	}
	if err := p.Restore(); err == nil {
		t.Fatal("Restore after Close succeeded")
	}
}

func TestListenBadTarget(t *testing.T) {
	if _, err := Listen("no-port"); err == nil {
		t.Fatal("Listen accepted a target without a port")
	}
}

// BenchmarkRoundTrip compares a 100-byte request/response direct and through
// the proxy (the proxy's added latency per round trip).
func BenchmarkRoundTrip(b *testing.B) {
	target := echoServer(b)
	msg := bytes.Repeat([]byte("x"), 100)
	for _, bc := range []struct {
		name string
		addr func() string
	}{
		{"direct", func() string { return target }},
		{"proxy", func() string { return start(b, target).Addr() }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			c := dial(b, bc.addr())
			for b.Loop() {
				if err := roundTrip(c, msg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkThroughput streams 1 MiB messages through the proxy.
func BenchmarkThroughput(b *testing.B) {
	c := dial(b, start(b, echoServer(b)).Addr())
	msg := bytes.Repeat([]byte("x"), 1<<20)
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		if err := roundTrip(c, msg); err != nil {
			b.Fatal(err)
		}
	}
}
