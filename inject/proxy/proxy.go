// Package proxy is an in-process loopback TCP proxy for network faults.
//
// A driver under test connects to the proxy instead of the server, and a
// local cluster's nodes reach each other through such proxies when dbrig
// advertises them as their peer addresses. Cut makes the server unreachable
// at the network level (open connections are closed, new ones are refused),
// Restore makes it reachable again. Set applies toxics, after toxiproxy's:
// added latency with jitter, a bandwidth limit, and dropped connections
// (reset, or black-holed: open but silent), to every connection or only to
// those from one source, which a proxy tells apart by the first bytes a
// connection sends (Options.Identify: etcd names its member in every peer
// request). Because only the connections that go through one proxy are
// affected, other tests that share the same server keep working.
//
// The proxy listens on 127.0.0.1 only.
package proxy

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// DialTimeout bounds the proxy's own connection to the upstream server.
const DialTimeout = 5 * time.Second

// IdentifyTimeout bounds the wait for a connection's first bytes when the
// proxy identifies sources; a connection that sends nothing first (the
// server speaks first) is then from no particular source.
const IdentifyTimeout = 2 * time.Second

// Drop says what happens to connections a fault drops.
type Drop int

const (
	// DropNone forwards.
	DropNone Drop = iota
	// DropReset closes connections with a reset (RST) at once, open ones
	// and new ones: the client sees "connection reset by peer".
	DropReset
	// DropBlackhole keeps connections open and swallows every byte: the
	// client sees nothing until its own timeout.
	DropBlackhole
)

// Toxics are what a proxy does to the connections they apply to. The zero
// value forwards unchanged.
type Toxics struct {
	Delay  time.Duration // added one way, each direction: a round trip gets 2·Delay slower
	Jitter time.Duration // each chunk's delay varies uniformly within Delay ± Jitter (order kept)
	Rate   int64         // bytes per second, each direction of each connection; 0: unlimited
	Drop   Drop
}

func (t Toxics) zero() bool { return t == Toxics{} }

// merge is t with o's toxics added (o wins where both set one).
func (t Toxics) merge(o Toxics) Toxics {
	if o.Delay != 0 || o.Jitter != 0 {
		t.Delay, t.Jitter = o.Delay, o.Jitter
	}
	if o.Rate != 0 {
		t.Rate = o.Rate
	}
	if o.Drop != DropNone {
		t.Drop = o.Drop
	}
	return t
}

// Options configure a proxy. The zero value is usable.
type Options struct {
	// Identify names the source of a connection c (the client side) from
	// the first bytes it sends (at most 32 KiB, what one read returned, none
	// when it sent nothing within IdentifyTimeout); "" is no particular
	// source. Nil: sources are not told apart.
	Identify func(c net.Conn, first []byte) string
	// Seed seeds the jitter (0: a fixed default), so runs can repeat.
	Seed uint64
	// Listen is the loopback address to listen on; "" is a free port on
	// 127.0.0.1. A Cassandra node is known to its peers at its broadcast
	// address and its own storage port, so its peer proxy needs that port
	// on another loopback address.
	Listen string
}

// Proxy forwards TCP connections from a loopback address to a target.
// All methods are safe for concurrent use.
type Proxy struct {
	target string
	addr   string // fixed for the proxy's life, also across Cut/Restore
	opts   Options

	toxics atomic.Pointer[map[string]Toxics] // by source; "" applies to every connection

	mu     sync.Mutex
	ln     net.Listener        // nil while cut or closed
	conns  map[net.Conn]string // open connections (both sides) → source
	closed bool
	wg     sync.WaitGroup // accept loops and connection pumps
	rnd    *rand.Rand     // under mu

	accepted atomic.Int64
	// bytes forwarded: up from the clients to the target, down back
	bytesUp, bytesDown atomic.Int64
	slowConns          atomic.Int64 // directions of connections on the toxic path now
}

// Listen starts a proxy on 127.0.0.1 (a free port) that forwards to target
// ("host:port").
func Listen(target string) (*Proxy, error) { return ListenWith(target, Options{}) }

// ListenWith is Listen with options.
func ListenWith(target string, o Options) (*Proxy, error) {
	if _, _, err := net.SplitHostPort(target); err != nil {
		return nil, fmt.Errorf("proxy target %q: expected host:port: %w", target, err)
	}
	ln, err := net.Listen("tcp", cmp.Or(o.Listen, "127.0.0.1:0"))
	if err != nil {
		return nil, fmt.Errorf("proxy listen: %w", err)
	}
	seed := o.Seed
	if seed == 0 {
		seed = 1
	}
	p := &Proxy{target: target, addr: ln.Addr().String(), opts: o, ln: ln, conns: map[net.Conn]string{},
		rnd: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	p.toxics.Store(&map[string]Toxics{})
	p.wg.Add(1)
	go p.accept(ln)
	return p, nil
}

// Traffic is what the proxy has forwarded since it started: bytes from its
// clients to the target (up) and back (down), and connections accepted.
func (p *Proxy) Traffic() (up, down, conns int64) {
	return p.bytesUp.Load(), p.bytesDown.Load(), p.accepted.Load()
}

// Addr is the address clients connect to ("127.0.0.1:port" unless
// Options.Listen); it stays the same after Cut and Restore.
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

// IsCut tells whether the proxy is cut (or closed).
func (p *Proxy) IsCut() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ln == nil
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
// gets 2·d slower) to every connection, open now and later; 0 removes it.
// Data is delayed, not throttled: bytes read at t are written at t+d.
func (p *Proxy) Delay(d time.Duration) {
	t := p.Toxics("")
	t.Delay, t.Jitter = max(d, 0), 0
	p.Set("", t)
}

// Set applies toxics to the connections from source from ("": every
// connection), open now and later, replacing what Set gave that source
// before. A drop closes (DropReset) the open connections it applies to.
func (p *Proxy) Set(from string, t Toxics) {
	for {
		old := p.toxics.Load()
		m := make(map[string]Toxics, len(*old)+1)
		for k, v := range *old {
			m[k] = v
		}
		if t.zero() {
			delete(m, from)
		} else {
			m[from] = t
		}
		if p.toxics.CompareAndSwap(old, &m) {
			break
		}
	}
	if t.Drop == DropReset {
		p.resetFrom(from)
	}
}

// Clear removes the toxics Set gave the source from.
func (p *Proxy) Clear(from string) { p.Set(from, Toxics{}) }

// Toxics returns what Set gave the source from.
func (p *Proxy) Toxics(from string) Toxics { return (*p.toxics.Load())[from] }

// Sources lists the sources of the connections open now (for tests and
// for checks that a fault applies to live links).
func (p *Proxy) Sources() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string]int{}
	for _, src := range p.conns {
		out[src]++
	}
	return out
}

// effective is what applies to a connection from src.
func (p *Proxy) effective(src string) Toxics {
	m := *p.toxics.Load()
	t := m[""]
	if src != "" {
		if o, ok := m[src]; ok {
			t = t.merge(o)
		}
	}
	return t
}

// Reset closes the open connections from exactly src ("" the unidentified
// ones) with a reset, so their clients connect again (and are identified
// again).
func (p *Proxy) Reset(src string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c, s := range p.conns {
		if s == src {
			reset(c)
			delete(p.conns, c)
		}
	}
}

// resetFrom closes the open connections from src ("" all) with a reset.
func (p *Proxy) resetFrom(src string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c, s := range p.conns {
		if src == "" || s == src {
			reset(c)
			delete(p.conns, c)
		}
	}
}

// reset closes c with an RST instead of a FIN.
func reset(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	c.Close()
}

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

// track registers c (from src) so Cut and Set can close it; false when the
// proxy was cut (or closed) after c was accepted or dialled.
func (p *Proxy) track(c net.Conn, src string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || p.ln == nil {
		return false
	}
	p.conns[c] = src
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
	if !p.track(client, "") {
		client.Close()
		return
	}
	var first []byte
	src := ""
	if p.opts.Identify != nil {
		buf := make([]byte, 32*1024)
		client.SetReadDeadline(time.Now().Add(IdentifyTimeout))
		n, err := client.Read(buf)
		client.SetReadDeadline(time.Time{})
		var ne net.Error
		if err != nil && !(errors.As(err, &ne) && ne.Timeout()) {
			p.untrack(client)
			return
		}
		first = buf[:n]
		src = p.opts.Identify(client, first)
		if !p.track(client, src) {
			p.untrack(client)
			return
		}
	}
	if p.effective(src).Drop == DropReset {
		p.mu.Lock()
		delete(p.conns, client)
		p.mu.Unlock()
		reset(client)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), DialTimeout)
	up, err := (&net.Dialer{}).DialContext(ctx, "tcp", p.target)
	cancel()
	if err != nil {
		p.untrack(client) // the client sees the upstream failure as a closed connection
		return
	}
	if !p.track(up, src) {
		p.untrack(client, up)
		return
	}
	done := make(chan struct{})
	go func() { p.pump(up, client, src, first, &p.bytesUp); close(done) }()
	p.pump(client, up, src, nil, &p.bytesDown)
	<-done
	p.untrack(client, up)
}

// healCheck is how often a connection on the toxic path looks whether its
// toxics were healed, to go back to the fast path.
const healCheck = 20 * time.Millisecond

// chunk is data read at a time, to be written no earlier than at+delay.
type chunk struct {
	b  []byte
	at time.Time
}

// pump copies src to dst (first, already read from src, goes first). Without
// toxics it is a plain copy (the fast path); once a toxic applies, a reader
// goroutine timestamps chunks and this goroutine releases them when due, so
// latency is added without limiting throughput (unless a rate does). When
// the toxics are healed and every held chunk is written, the connection
// goes back to the fast path.
func (p *Proxy) pump(dst, src net.Conn, from string, first []byte, count *atomic.Int64) {
	pending := first
	for {
		carry, rerr, ended := p.fast(dst, src, from, pending, count)
		if ended {
			return
		}
		pending = nil
		if !p.slow(dst, src, from, carry, rerr, count) {
			return
		}
	}
}

// fast copies src to dst while no toxic applies. It returns the chunk it
// read when a toxic began to apply (with the read's error, if any), or
// ended when the stream ended or failed (dst half-closed or closed then).
// The toxics are checked after every read, before the write, so Set takes
// effect on open connections from their next byte on.
func (p *Proxy) fast(dst, src net.Conn, from string, pending []byte, count *atomic.Int64) (carry chunk, rerr error, ended bool) {
	buf := make([]byte, 32*1024)
	for {
		var n int
		var err error
		if pending != nil {
			n = copy(buf, pending)
			pending = nil
		} else {
			n, err = src.Read(buf)
		}
		if n > 0 {
			count.Add(int64(n))
			if !p.effective(from).zero() {
				return chunk{b: append([]byte(nil), buf[:n]...), at: time.Now()}, err, false
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return chunk{}, nil, true
			}
		}
		if err != nil {
			closeWrite(dst, err)
			return chunk{}, nil, true
		}
	}
}

// slow forwards under toxics, starting with carry: true when the toxics
// were healed and the connection may go back to the fast path, false when
// it ended.
func (p *Proxy) slow(dst, src net.Conn, from string, carry chunk, readErr error, count *atomic.Int64) bool {
	p.slowConns.Add(1)
	defer p.slowConns.Add(-1)
	q := make(chan chunk, 1024)
	q <- carry
	if readErr != nil {
		close(q)
		if p.drain(dst, src, from, q, nil) {
			closeWrite(dst, readErr)
		}
		return false
	}
	var back atomic.Bool // asked the reader to stop: the toxics are healed
	var rerr error       // written before close(q), read after it
	switched := false    // likewise
	go func() {
		defer close(q)
		for {
			buf := make([]byte, 32*1024)
			n, err := src.Read(buf)
			if n > 0 {
				count.Add(int64(n))
				q <- chunk{b: buf[:n], at: time.Now()}
			}
			if err != nil {
				var ne net.Error
				if back.Load() && errors.As(err, &ne) && ne.Timeout() {
					src.SetReadDeadline(time.Time{})
					switched = true
					return
				}
				rerr = err
				return
			}
		}
	}()
	healed := func() {
		if back.CompareAndSwap(false, true) {
			src.SetReadDeadline(time.Now()) // wakes the reader
		}
	}
	if !p.drain(dst, src, from, q, healed) {
		return false
	}
	if switched {
		return true
	}
	closeWrite(dst, rerr)
	return false
}

// jitter is a uniform duration in [-j, j].
func (p *Proxy) jitter(j time.Duration) time.Duration {
	if j <= 0 {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return time.Duration(p.rnd.Int64N(int64(2*j)+1)) - j
}

// drain writes the chunks of q to dst when they are due, at the rate the
// toxics allow; false when dst failed (then src is closed, which ends the
// reader).
func (p *Proxy) drain(dst, src net.Conn, from string, q chan chunk, healed func()) bool {
	var lastDue, free time.Time
	fail := func() bool {
		src.Close() // unblock the reader goroutine
		for range q {
		}
		return false
	}
	var tick <-chan time.Time
	if healed != nil {
		t := time.NewTicker(healCheck)
		defer t.Stop()
		tick = t.C
	}
	for {
		var c chunk
		select {
		case <-tick:
			if len(q) == 0 && p.effective(from).zero() {
				healed()
			}
			continue
		case next, ok := <-q:
			if !ok {
				return true
			}
			c = next
		}
		t := p.effective(from)
		if t.Drop == DropBlackhole {
			continue
		}
		due := c.at.Add(max(t.Delay+p.jitter(t.Jitter), 0))
		if due.Before(lastDue) {
			due = lastDue // jitter never reorders a stream
		}
		lastDue = due
		if wait := time.Until(due); wait > 0 {
			time.Sleep(wait)
		}
		b := c.b
		for len(b) > 0 {
			n := len(b)
			if t.Rate > 0 {
				// Paced in pieces of at most 1/20 s of the rate.
				n = min(n, int(max(t.Rate/20, 1)))
				if now := time.Now(); free.Before(now) {
					free = now
				}
				if wait := time.Until(free); wait > 0 {
					time.Sleep(wait)
				}
				free = free.Add(time.Duration(float64(n) / float64(t.Rate) * float64(time.Second)))
			}
			if _, err := dst.Write(b[:n]); err != nil {
				return fail()
			}
			b = b[n:]
		}
	}
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
