// Package proxy is an in-process loopback TCP proxy for network faults.
//
// A driver under test connects to the proxy instead of the server. Cut makes
// the server unreachable at the network level (open connections are closed,
// new ones are refused), Restore makes it reachable again, and Delay adds
// latency to every byte forwarded. Because only the connections that go
// through one proxy are affected, other tests that share the same server keep
// working.
//
// The proxy listens on 127.0.0.1 only.
package proxy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// DialTimeout bounds the proxy's own connection to the upstream server.
const DialTimeout = 5 * time.Second

// Proxy forwards TCP connections from a loopback address to a target.
// All methods are safe for concurrent use.
type Proxy struct {
	target string
	addr   string // fixed for the proxy's life, also across Cut/Restore

	delay atomic.Int64 // one-way added latency in nanoseconds

	mu     sync.Mutex
	ln     net.Listener // nil while cut or closed
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup // accept loops and connection pumps

	accepted atomic.Int64
}

// Listen starts a proxy on 127.0.0.1 (a free port) that forwards to target
// ("host:port").
func Listen(target string) (*Proxy, error) {
	if _, _, err := net.SplitHostPort(target); err != nil {
		return nil, fmt.Errorf("proxy target %q: expected host:port: %w", target, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("proxy listen: %w", err)
	}
	p := &Proxy{target: target, addr: ln.Addr().String(), ln: ln, conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.accept(ln)
	return p, nil
}

// Addr is the "127.0.0.1:port" clients connect to; it stays the same after
// Cut and Restore.
func (p *Proxy) Addr() string { return p.addr }

// Target is the upstream address.
func (p *Proxy) Target() string { return p.target }

// Accepted counts the client connections accepted so far (for tests that
// check a client reconnected).
func (p *Proxy) Accepted() int64 { return p.accepted.Load() }

// Cut closes every open connection and stops listening, so new connections
// are refused (ECONNREFUSED) until Restore. Cutting twice is harmless.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		c.Close()
		delete(p.conns, c)
	}
}

// Restore listens again on the same address after Cut. Restoring a proxy
// that is not cut does nothing. It fails if another process took the port
// in the meantime.
func (p *Proxy) Restore() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return errors.New("proxy: restore after close")
	}
	if p.ln != nil {
		return nil
	}
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		return fmt.Errorf("proxy restore %s: %w", p.addr, err)
	}
	p.ln = ln
	p.wg.Add(1)
	go p.accept(ln)
	return nil
}

// Delay adds d of latency in each direction (a request/response round trip
// gets 2·d slower) to connections open now and later; 0 removes it. Data is
// delayed, not throttled: bytes read at t are written at t+d.
func (p *Proxy) Delay(d time.Duration) { p.delay.Store(int64(max(d, 0))) }

// Close stops the proxy, closes all connections and waits for its goroutines.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.Cut()
	p.wg.Wait()
	return nil
}

func (p *Proxy) accept(ln net.Listener) {
	defer p.wg.Done()
	for {
		c, err := ln.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				time.Sleep(10 * time.Millisecond) // e.g. out of file descriptors
				continue
			}
			return // listener closed by Cut or Close
		}
		p.accepted.Add(1)
		p.wg.Add(1)
		go p.serve(c)
	}
}

// track registers c so Cut can close it; false when the proxy was cut (or
// closed) after c was accepted or dialled.
func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || p.ln == nil {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *Proxy) untrack(cs ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range cs {
		delete(p.conns, c)
		c.Close()
	}
}

func (p *Proxy) serve(client net.Conn) {
	defer p.wg.Done()
	if !p.track(client) {
		client.Close()
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), DialTimeout)
	up, err := (&net.Dialer{}).DialContext(ctx, "tcp", p.target)
	cancel()
	if err != nil {
		p.untrack(client) // the client sees the upstream failure as a closed connection
		return
	}
	if !p.track(up) {
		p.untrack(client, up)
		return
	}
	done := make(chan struct{})
	go func() { p.pump(up, client); close(done) }()
	p.pump(client, up)
	<-done
	p.untrack(client, up)
}

// chunk is data read at a time, to be written no earlier than at+delay.
type chunk struct {
	b  []byte
	at time.Time
}

// pump copies src to dst. Without delay it is a plain copy; with delay a
// reader goroutine timestamps chunks and this goroutine releases them when
// due, so latency is added without limiting throughput.
func (p *Proxy) pump(dst, src net.Conn) {
	q := make(chan chunk, 1024)
	// Fast path while there is no delay. The delay is checked after every
	// read, before the write, so Delay takes effect on open connections from
	// their next byte on.
	buf := make([]byte, 32*1024)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if p.delay.Load() != 0 {
				q <- chunk{b: bytes.Clone(buf[:n]), at: time.Now()}
				if err == nil {
					break
				}
			} else if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			close(q) // holds at most the chunk read together with err
			if p.drain(dst, src, q) {
				closeWrite(dst, err)
			}
			return
		}
	}
	var rerr error // written before close(q), read after it
	go func() {
		defer close(q)
		for {
			buf := make([]byte, 32*1024)
			n, err := src.Read(buf)
			if n > 0 {
				q <- chunk{b: buf[:n], at: time.Now()}
			}
			if err != nil {
				rerr = err
				return
			}
		}
	}()
	if p.drain(dst, src, q) {
		closeWrite(dst, rerr)
	}
}

// drain writes the chunks of q to dst when they are due; false when dst
// failed (then src is closed, which ends the reader).
func (p *Proxy) drain(dst, src net.Conn, q chan chunk) bool {
	for c := range q {
		if wait := time.Until(c.at.Add(time.Duration(p.delay.Load()))); wait > 0 {
			time.Sleep(wait)
		}
		if _, err := dst.Write(c.b); err != nil {
			src.Close() // unblock the reader goroutine
			for range q {
			}
			return false
		}
	}
	return true
}

// closeWrite passes a clean end of stream on as a half close, so protocols
// that shut down one direction first keep working; an error (a reset, or Cut
// closing src) closes dst, which ends the other direction too.
func closeWrite(dst net.Conn, err error) {
	if tc, ok := dst.(*net.TCPConn); ok && errors.Is(err, io.EOF) {
		tc.CloseWrite()
		return
	}
	dst.Close()
}
