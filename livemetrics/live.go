package livemetrics

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/nodestat"
	"github.com/dbrig/dbrig/run"
)

// Options say where the live metrics go; both empty: nowhere (Start
// returns nil, and every method of a nil *Live does nothing).
type Options struct {
	// Addr serves /metrics (--metrics): HOST:PORT, :PORT or PORT; without a
	// host, loopback (127.0.0.1).
	Addr string
	// RemoteWrite is a Prometheus remote-write URL (--remote-write).
	RemoteWrite string
	// Every is how often remote write pushes (default 1 s).
	Every time.Duration
	// Log receives where /metrics listens, the off-loopback warning and
	// the remote writer's end-of-run line (nil: none).
	Log io.Writer
	// Linger is how long Close waits for a scraper that has scraped
	// /metrics before to scrape it once more, so that it sees the run's
	// final figures (default 15 s, Prometheus's default scrape interval;
	// negative: no wait). Nobody scraped: no wait.
	Linger time.Duration
}

// InputError is a --metrics or --remote-write value that cannot work.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// Check tells whether o's values are usable, before anything runs.
func (o Options) Check() error {
	if o.Addr != "" {
		if _, err := ListenAddr(o.Addr); err != nil {
			return err
		}
	}
	if o.RemoteWrite != "" {
		u, err := url.Parse(o.RemoteWrite)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return &InputError{fmt.Errorf("--remote-write %q: expected an http:// or https:// URL, e.g. http://127.0.0.1:9090/api/v1/write", o.RemoteWrite)}
		}
	}
	return nil
}

// ListenAddr is where --metrics ADDR listens: a bare port or ":PORT" on
// loopback, any other HOST:PORT as given.
func ListenAddr(addr string) (string, error) {
	a := strings.TrimSpace(addr)
	if _, err := strconv.ParseUint(a, 10, 16); err == nil {
		a = ":" + a
	}
	host, port, err := net.SplitHostPort(a)
	if err != nil {
		return "", &InputError{fmt.Errorf("--metrics %q: expected HOST:PORT, :PORT or PORT (%v)", addr, err)}
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return "", &InputError{fmt.Errorf("--metrics %q: port %q: expected a number 0-65535", addr, port)}
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}

// Live is a process's live metrics with their outlets.
type Live struct {
	*Metrics
	log    io.Writer
	srv    *http.Server
	ln     net.Listener
	remote *RemoteWriter
	linger time.Duration

	mu        sync.Mutex
	stopNodes func()
	scrapes   int
	closing   time.Time     // when Close began waiting for a last scrape
	final     chan struct{} // closed by the first scrape begun after closing
	finalDone bool
}

// Start serves and/or pushes live metrics as o says. The returned Live's
// Close stops them.
func Start(o Options) (*Live, error) {
	if o.Addr == "" && o.RemoteWrite == "" {
		return nil, nil
	}
	if err := o.Check(); err != nil {
		return nil, err
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	l := &Live{Metrics: New(), log: o.Log, linger: o.Linger, final: make(chan struct{})}
	if l.linger == 0 {
		l.linger = 15 * time.Second
	}
	if o.Addr != "" {
		if err := l.serve(o.Addr); err != nil {
			return nil, err
		}
	}
	if o.RemoteWrite != "" {
		every := o.Every
		if every <= 0 {
			every = time.Second
		}
		l.remote = NewRemoteWriter(o.RemoteWrite, every, l.reg, l.reg)
		l.remote.Start()
	}
	l.ClusterUp(nil) // dbrig itself, until a cluster adds its nodes
	return l, nil
}

func (l *Live) serve(addr string) error {
	a, _ := ListenAddr(addr)
	ln, err := net.Listen("tcp", a)
	if err != nil {
		return fmt.Errorf("--metrics %s: %w", addr, err)
	}
	if ta, ok := ln.Addr().(*net.TCPAddr); !ok || !ta.IP.IsLoopback() {
		fmt.Fprintf(l.log, "warning: --metrics listens on %s, reachable from other machines; it has no login (use 127.0.0.1:PORT to keep it local)\n", ln.Addr())
	}
	mux := http.NewServeMux()
	h := promhttp.HandlerFor(l.reg, promhttp.HandlerOpts{EnableOpenMetrics: true})
	mux.Handle("/metrics", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		begun := time.Now()
		h.ServeHTTP(w, r)
		l.mu.Lock()
		l.scrapes++
		if !l.closing.IsZero() && !begun.Before(l.closing) && !l.finalDone {
			l.finalDone = true
			close(l.final)
		}
		l.mu.Unlock()
	}))
	l.ln = ln
	l.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(l.log, "live metrics on http://%s/metrics\n", ln.Addr())
	go func() { _ = l.srv.Serve(ln) }()
	return nil
}

// Addr is where /metrics listens (nil when it does not).
func (l *Live) Addr() net.Addr {
	if l == nil || l.ln == nil {
		return nil
	}
	return l.ln.Addr()
}

// Observer returns an observer that feeds the metrics and then next (which
// may be nil); with l nil, next itself.
func (l *Live) Observer(next run.Observer) run.Observer {
	if l == nil {
		return next
	}
	return tee{l.Metrics, next}
}

type tee struct {
	m    *Metrics
	next run.Observer
}

func (t tee) Interval(iv measure.Interval) {
	t.m.Interval(iv)
	if t.next != nil {
		t.next.Interval(iv)
	}
}

func (t tee) Event(ev run.Event) {
	t.m.Event(ev)
	if t.next != nil {
		t.next.Event(ev)
	}
}

// Begin starts the figures of a new run (nil-safe).
func (l *Live) Begin(r Run) {
	if l != nil {
		l.BeginRun(r)
	}
}

// Stored names the current run by its stored id (nil-safe).
func (l *Live) Stored(id int64) {
	if l != nil {
		l.SetRunID(strconv.FormatInt(id, 10))
	}
}

// Workers sets the worker count (nil-safe).
func (l *Live) Workers(n int) {
	if l != nil {
		l.SetWorkers(n)
	}
}

// ClusterUp samples the nodes dbrig started (and dbrig itself) once a
// second until the next ClusterUp or Close (nil-safe).
func (l *Live) ClusterUp(nodes []cluster.Node) {
	if l == nil {
		return
	}
	targets := []nodestat.Target{nodestat.Self()}
	for _, n := range nodes {
		targets = append(targets, nodestat.Target{Name: n.Name, PID: n.PID, Tree: true})
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_ = nodestat.Run(ctx, time.Second, targets, l.Node)
	}()
	l.mu.Lock()
	prev := l.stopNodes
	l.stopNodes = func() { cancel(); wg.Wait() }
	l.mu.Unlock()
	if prev != nil {
		prev()
	}
}

// closeGrace is how long Close waits for the remote writer's queue.
const closeGrace = 5 * time.Second

// Close stops serving and pushing (after one last push) and says on the
// log what remote write dropped (nil-safe).
func (l *Live) Close() RemoteStats {
	if l == nil {
		return RemoteStats{}
	}
	l.mu.Lock()
	stop := l.stopNodes
	l.stopNodes = nil
	l.mu.Unlock()
	if stop != nil {
		stop()
	}
	var st RemoteStats
	if l.remote != nil {
		st = l.remote.Close(closeGrace)
		line := fmt.Sprintf("remote write: %d pushes (%d series samples) sent", st.Pushes, st.Samples)
		if st.Dropped > 0 {
			line += fmt.Sprintf(", %d dropped (%d samples; last error: %v)", st.Dropped, st.DroppedSample, st.LastErr)
		}
		fmt.Fprintln(l.log, line)
	}
	if l.srv != nil {
		l.awaitScrape()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if err := l.srv.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
			_ = l.srv.Close()
		}
	}
	return st
}

// awaitScrape waits, when /metrics has been scraped before, until it is
// scraped once more (the final figures) or the linger time passes.
func (l *Live) awaitScrape() {
	l.mu.Lock()
	n := l.scrapes
	l.closing = time.Now()
	l.mu.Unlock()
	if n == 0 || l.linger < 0 {
		return
	}
	fmt.Fprintf(l.log, "live metrics: waiting up to %v for a last scrape of /metrics\n", l.linger)
	t := time.NewTimer(l.linger)
	defer t.Stop()
	select {
	case <-l.final:
	case <-t.C:
	}
}
