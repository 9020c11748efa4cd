// Package workers runs one experiment on many load generators: a
// coordinator (inside dbrig run --workers N) hands each worker process
// (dbrig worker) its share of the run (experiment.Share), starts their
// phases together, merges every interval they stream exactly (HDR
// histograms add) into the one run it stores through experiment.Execute,
// and records each worker for diagnosis (results.Worker). The protocol is
// package wire.
//
// Data path: experiment.Plan → Plan.Shares(N) → Coordinator (listens,
// spawns or awaits N workers, handshake: version, token, clock offset) →
// workers: experiment.OpenShare → run.Load / run.Run → wire.Interval
// frames → merger (per phase and second) → experiment's observers (results
// store, HDR log, progress line) as if one process had measured.
package workers

import (
	"context"
	"crypto/subtle"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/run"
	"github.com/dbrig/dbrig/workers/wire"
)

// EventWorkerLost is the event of a worker the coordinator lost (its
// process died, its connection broke or went silent for wire.LostAfter);
// EventWorkerFailed one that ended with an error of its own.
const (
	EventWorkerLost   = "worker_lost"
	EventWorkerFailed = "worker_failed"
)

// ErrNoToken is wrapped by Listen when workers would need no token but the
// shares hold secrets: they are never sent to an unauthenticated peer.
var ErrNoToken = errors.New("a worker token is required (DBRIG_TOKEN)")

// Options configure a Coordinator.
type Options struct {
	Shares []experiment.Share // one per worker, by index
	Listen string             // "" = 127.0.0.1:0
	Token  string             // "" = none; else workers must present it
	// Version is the dbrig version workers must have (experiment.Version
	// when empty).
	Version string
	// Ops are the run phases' operation names, in the workload's order.
	Ops []string
	// Grace bounds the wait for workers to finish after a Stop.
	Grace time.Duration
	// LostAfter is how long a silent worker is given (wire.LostAfter when 0).
	LostAfter time.Duration
	// TLS, if set, serves the workers over TLS (ServerTLS); nil: HTTP/2
	// over cleartext TCP.
	TLS *tls.Config
	// OnWorkerInterval, if set, sees every worker's interval as received
	// (in the coordinator's clock) before it is merged: for diagnosis and
	// for tests that check the merge against its parts.
	OnWorkerInterval func(worker int, iv measure.Interval)
}

// Coordinator accepts workers and performs a run on them.
type Coordinator struct {
	opts Options
	ln   net.Listener
	srv  *http.Server

	inbox chan frame // from every worker's stream, to Perform

	mu        sync.Mutex
	conns     []*conn // by index; nil: not connected
	running   bool    // Perform started: a disconnect is a loss
	readyCh   chan struct{}
	readyDone bool
	closed    chan struct{}
	closeOnce sync.Once
}

// conn is one connected worker.
type conn struct {
	index     int
	host      string
	pid       int
	offset    time.Duration // worker − coordinator
	rtt       time.Duration
	origin    time.Time // the worker's driver origin (converted)
	out       chan *wire.Msg
	end       chan struct{} // closed by the coordinator: the stream ends
	endOnce   sync.Once
	connected bool // handshake done
}

func (c *conn) close() { c.endOnce.Do(func() { close(c.end) }) }

// send queues a frame for the worker; false if its stream has ended.
func (c *conn) send(m *wire.Msg) bool {
	select {
	case c.out <- m:
		return true
	case <-c.end:
		return false
	}
}

// frame is what a worker's stream delivers to Perform: a message, or its
// end (gone: the stream broke or went silent; err says how).
type frame struct {
	w    int
	msg  *wire.Msg
	gone bool
	err  error
	at   time.Time
}

// RefusedError is a worker the coordinator turned away (or that turned
// away from it): versions, token, index.
type RefusedError struct{ Msg string }

func (e *RefusedError) Error() string { return e.Msg }

// NotConnectedError names the workers that did not connect in time.
type NotConnectedError struct {
	Missing []int
	Workers int
	Timeout time.Duration
	Addr    string
}

func (e *NotConnectedError) Error() string {
	idx := make([]string, len(e.Missing))
	for i, m := range e.Missing {
		idx[i] = strconv.Itoa(m)
	}
	return fmt.Sprintf("workers: %d of %d workers did not connect to %s within %v: missing index %s (start them with dbrig worker --coordinator http://%s --index I, or raise --connect-timeout)",
		len(e.Missing), e.Workers, e.Addr, e.Timeout, strings.Join(idx, ", "), e.Addr)
}

// Listen starts accepting workers.
func Listen(opts Options) (*Coordinator, error) {
	if len(opts.Shares) == 0 {
		return nil, errors.New("workers: no shares")
	}
	if opts.Listen == "" {
		opts.Listen = "127.0.0.1:0"
	}
	if opts.Token == "" {
		for _, s := range opts.Shares {
			if keys := s.Secrets(); len(keys) > 0 {
				return nil, fmt.Errorf("workers: %w: the shares hold secrets (%s)", ErrNoToken, strings.Join(keys, ", "))
			}
		}
	}
	if opts.Version == "" {
		opts.Version = experiment.Version
	}
	if opts.LostAfter == 0 {
		opts.LostAfter = wire.LostAfter
	}
	if opts.Grace == 0 {
		opts.Grace = run.DefaultGrace
	}
	ln, err := net.Listen("tcp", opts.Listen)
	if err != nil {
		return nil, &experiment.InputError{Err: fmt.Errorf("--listen %s: %w", opts.Listen, err)}
	}
	c := &Coordinator{opts: opts, ln: ln, inbox: make(chan frame, 4096), conns: make([]*conn, len(opts.Shares)),
		readyCh: make(chan struct{}), closed: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+wire.PathHealth, func(w http.ResponseWriter, _ *http.Request) {
		select {
		case <-c.closed:
			http.Error(w, "closed", http.StatusServiceUnavailable)
		default:
			fmt.Fprintln(w, "ok")
		}
	})
	mux.HandleFunc("POST "+wire.PathWorker, c.serveWorker)
	protos := new(http.Protocols)
	protos.SetHTTP1(true)
	c.srv = &http.Server{Handler: mux, Protocols: protos, ReadHeaderTimeout: 10 * time.Second}
	if opts.TLS != nil {
		// A stray client's failed handshake is no run's business (a
		// worker that does not trust the certificate says so itself).
		c.srv.ErrorLog = log.New(io.Discard, "", 0)
		protos.SetHTTP2(true)
		c.srv.TLSConfig = opts.TLS.Clone()
		go c.srv.ServeTLS(ln, "", "")
		return c, nil
	}
	protos.SetUnencryptedHTTP2(true)
	go c.srv.Serve(ln)
	return c, nil
}

// Addr is the address the coordinator listens on (host:port).
func (c *Coordinator) Addr() string { return c.ln.Addr().String() }

// URL is what workers are given as --coordinator.
func (c *Coordinator) URL() string {
	if c.opts.TLS != nil {
		return "https://" + c.Addr()
	}
	return "http://" + c.Addr()
}

// Close ends every worker's stream and stops listening.
func (c *Coordinator) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	c.mu.Lock()
	for _, cn := range c.conns {
		if cn != nil {
			cn.close()
		}
	}
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := c.srv.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = c.srv.Close()
	}
	return err
}

// WaitReady waits until every worker has connected, shaken hands and
// opened its share, or timeout has passed (a *NotConnectedError naming the
// missing indexes), or ctx is done.
func (c *Coordinator) WaitReady(ctx context.Context, timeout time.Duration) error {
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		select {
		case <-c.readyCh:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		case f := <-c.inbox:
			// Before the run, a worker that fails to open its share fails it.
			if f.msg != nil && f.msg.Done != nil && f.msg.Done.Err != "" {
				return fmt.Errorf("worker %d: %s", f.w, f.msg.Done.Err)
			}
		case <-t.C:
			c.mu.Lock()
			var missing []int
			for i, cn := range c.conns {
				if cn == nil || !cn.connected {
					missing = append(missing, i)
				}
			}
			c.mu.Unlock()
			return &NotConnectedError{Missing: missing, Workers: len(c.conns), Timeout: timeout, Addr: c.Addr()}
		}
	}
}

func (c *Coordinator) refuse(w http.ResponseWriter, code int, format string, args ...any) {
	http.Error(w, fmt.Sprintf(format, args...), code)
}

// serveWorker is one worker's stream, from handshake to the end of the run.
func (c *Coordinator) serveWorker(w http.ResponseWriter, r *http.Request) {
	cn := c.admit(w, r)
	if cn == nil {
		return
	}
	idx := cn.index
	rc := http.NewResponseController(w)
	_ = rc.EnableFullDuplex() // HTTP/1.1 only; HTTP/2 is full duplex anyway
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	if err := rc.Flush(); err != nil {
		c.drop(cn, err)
		return
	}
	writeErr := make(chan error, 1)
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		writeErr <- writeLoop(wire.NewWriter(w, rc.Flush), cn.out, cn.end)
	}()
	// The writer ends before the handler does: net/http forbids writes after.
	defer func() { cn.close(); <-writerDone }()
	frames := make(chan *wire.Msg, 64)
	readErr := make(chan error, 1)
	go func() { readErr <- readLoop(wire.NewReader(r.Body), frames, cn.end) }()

	next := func(timeout time.Duration) (*wire.Msg, error) {
		t := time.NewTimer(timeout)
		defer t.Stop()
		for {
			select {
			case m, ok := <-frames:
				if !ok {
					return nil, fmt.Errorf("its stream ended: %w", <-readErr)
				}
				if m.Heartbeat != nil {
					t.Reset(timeout)
					continue
				}
				return m, nil
			case err := <-writeErr:
				return nil, fmt.Errorf("write: %w", err)
			case <-t.C:
				return nil, fmt.Errorf("silent for %v (no frame, not even a heartbeat)", timeout)
			case <-cn.end:
				return nil, errEnded
			case <-r.Context().Done():
				// Frames that arrived before the connection closed count.
				for {
					select {
					case m, ok := <-frames:
						if ok && m.Heartbeat == nil {
							return m, nil
						}
						if ok {
							continue
						}
					default:
					}
					break
				}
				return nil, errors.New("its connection closed (the process died, or the network was cut)")
			}
		}
	}
	if !c.syncClock(cn, next) {
		return
	}
	sh, err := json.Marshal(c.opts.Shares[idx])
	if err != nil {
		c.drop(cn, err)
		return
	}
	cn.send(&wire.Msg{Assign: sh})
	// Opening a share connects to the system under test: give it time.
	m, err := next(max(30*time.Second, c.opts.LostAfter))
	switch {
	case err != nil:
		c.drop(cn, fmt.Errorf("handshake: %w", err))
		return
	case m.Done != nil:
		c.toInbox(frame{w: idx, msg: m, at: time.Now()})
		c.drop(cn, errors.New(m.Done.Err))
		return
	case m.Ready == nil:
		c.drop(cn, fmt.Errorf("handshake: expected ready, got %s", m.Kind()))
		return
	}
	if !m.Ready.Origin.IsZero() {
		cn.origin = m.Ready.Origin.Add(-cn.offset)
	}
	c.mu.Lock()
	cn.connected = true
	all := true
	for _, o := range c.conns {
		all = all && o != nil && o.connected
	}
	if all && !c.readyDone {
		c.readyDone = true
		close(c.readyCh)
	}
	c.mu.Unlock()

	for {
		m, err := next(c.opts.LostAfter)
		if err != nil {
			if !errors.Is(err, errEnded) {
				c.toInbox(frame{w: idx, gone: true, err: err, at: time.Now()})
			}
			c.drop(cn, err)
			return
		}
		if m.Pong != nil {
			continue
		}
		c.toInbox(frame{w: idx, msg: m, at: time.Now()})
	}
}

var errEnded = errors.New("stream ended by the coordinator")

// admit checks a worker's handshake headers (protocol, version, token,
// index) and registers its connection; nil when it was refused (said to the
// worker) because of them, because the run has started or because its
// index is taken.
func (c *Coordinator) admit(w http.ResponseWriter, r *http.Request) *conn {
	if got := r.Header.Get(wire.HeaderProtocol); got != strconv.Itoa(wire.Protocol) {
		c.refuse(w, http.StatusConflict, "refused: worker speaks protocol %q, coordinator protocol %d", got, wire.Protocol)
		return nil
	}
	if got := r.Header.Get(wire.HeaderVersion); got != c.opts.Version {
		c.refuse(w, http.StatusConflict, "refused: worker is dbrig %s, coordinator is dbrig %s: run the same dbrig version on both", got, c.opts.Version)
		return nil
	}
	if c.opts.Token != "" {
		got, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if subtle.ConstantTimeCompare([]byte(got), []byte(c.opts.Token)) != 1 {
			c.refuse(w, http.StatusUnauthorized, "refused: wrong or missing token (set DBRIG_TOKEN to the coordinator's)")
			return nil
		}
	}
	idx, err := strconv.Atoi(r.Header.Get(wire.HeaderIndex))
	if err != nil || idx < 0 || idx >= len(c.conns) {
		c.refuse(w, http.StatusConflict, "refused: worker index %q: expected 0 to %d", r.Header.Get(wire.HeaderIndex), len(c.conns)-1)
		return nil
	}
	pid, _ := strconv.Atoi(r.Header.Get(wire.HeaderPID))
	cn := &conn{index: idx, host: r.Header.Get(wire.HeaderHost), pid: pid, out: make(chan *wire.Msg, 64), end: make(chan struct{})}
	c.mu.Lock()
	switch {
	case c.running:
		c.mu.Unlock()
		c.refuse(w, http.StatusConflict, "refused: the run has started; worker %d cannot join it now", idx)
		return nil
	case c.conns[idx] != nil:
		c.mu.Unlock()
		c.refuse(w, http.StatusConflict, "refused: worker index %d is already connected", idx)
		return nil
	}
	c.conns[idx] = cn
	c.mu.Unlock()
	return cn
}

// syncClock measures the worker's clock offset: of wire.PingCount pings,
// the one with the shortest round trip wins. false: the worker was dropped.
func (c *Coordinator) syncClock(cn *conn, next func(time.Duration) (*wire.Msg, error)) bool {
	best := time.Duration(-1)
	for i := 0; i < wire.PingCount; i++ {
		t1 := time.Now()
		if !cn.send(&wire.Msg{Ping: &wire.Ping{Seq: i, Sent: t1}}) {
			return false
		}
		m, err := next(c.opts.LostAfter)
		t4 := time.Now()
		if err != nil || m.Pong == nil || m.Pong.Seq != i {
			c.drop(cn, fmt.Errorf("handshake: expected pong %d: %v", i, err))
			return false
		}
		p := m.Pong
		rtt := t4.Sub(t1) - p.Sent.Sub(p.Received)
		off := (p.Received.Sub(t1) + p.Sent.Sub(t4)) / 2
		if best < 0 || rtt < best {
			best, cn.rtt, cn.offset = rtt, rtt, off
		}
	}
	return true
}

func (c *Coordinator) toInbox(f frame) {
	select {
	case c.inbox <- f:
	case <-c.closed:
	}
}

// drop forgets a worker that disconnected before the run, so it can
// connect again (a pod restarted); during the run its loss is Perform's.
func (c *Coordinator) drop(cn *conn, _ error) {
	cn.close()
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.running && c.conns[cn.index] == cn && !c.readyDone {
		c.conns[cn.index] = nil
	}
}

// writeLoop writes queued frames, and a heartbeat when quiet.
func writeLoop(w *wire.Writer, out <-chan *wire.Msg, end <-chan struct{}) error {
	t := time.NewTicker(wire.HeartbeatEvery)
	defer t.Stop()
	for {
		select {
		case m := <-out:
			if err := w.Write(m); err != nil {
				return err
			}
		case <-t.C:
			if err := w.Write(&wire.Msg{Heartbeat: &wire.Heartbeat{}}); err != nil {
				return err
			}
		case <-end:
			return nil
		}
	}
}

// readLoop reads frames into out until the stream ends (or end is
// closed); it closes out.
func readLoop(r *wire.Reader, out chan<- *wire.Msg, end <-chan struct{}) error {
	defer close(out)
	for {
		m, err := r.Read()
		if err != nil {
			return err
		}
		select {
		case out <- m:
		case <-end:
			return errEnded
		}
	}
}

// workerState is what Perform knows of one worker.
type workerState struct {
	done, lost, failed bool
	status             string
	lostAt             time.Time
	detail             string
	ops, records       int64
	loaded             int64 // records inserted, by the intervals received
	ended              map[string]bool
}

// missingKeys says which key range a worker lost while loading leaves
// partly missing: its share's insertstart/insertcount.
func missingKeys(sh experiment.Share, loaded int64) string {
	first, err1 := strconv.ParseInt(sh.LoadProps["insertstart"], 10, 64)
	count, err2 := strconv.ParseInt(sh.LoadProps["insertcount"], 10, 64)
	if err1 != nil || err2 != nil || count <= 0 {
		return ""
	}
	return fmt.Sprintf(" after inserting about %d of its %d records: key numbers %d to %d (its share, insertstart=%d insertcount=%d) are partly missing",
		loaded, count, first, first+count-1, first, count)
}

// LostError says which workers a run lost or that failed: the run went on
// with the others, and its figures from then on are theirs.
type LostError struct {
	Workers int
	Lost    []results.Worker
}

func (e *LostError) Error() string {
	parts := make([]string, len(e.Lost))
	for i, w := range e.Lost {
		at := ""
		if !w.LostAt.IsZero() {
			at = " at " + w.LostAt.Format("15:04:05.000")
		}
		parts[i] = fmt.Sprintf("worker %d (pid %d on %s) %s%s: %s", w.Index, w.PID, w.Host, w.Status, at, w.Detail)
	}
	return fmt.Sprintf("%d of %d workers lost or failed: %s; the merged figures after each loss are the other workers'",
		len(e.Lost), e.Workers, strings.Join(parts, "; "))
}

// Perform runs the phases on the connected workers (an experiment.Performer):
// it starts them together, merges their intervals into obs and returns the
// phases' summaries, and stores each worker's row and per-interval counts.
func (c *Coordinator) Perform(ctx context.Context, store *results.Store, runID int64, obs run.Observer) ([]measure.Summary, error) {
	c.mu.Lock()
	c.running = true
	conns := append([]*conn(nil), c.conns...)
	c.mu.Unlock()
	n := len(conns)
	share := c.opts.Shares[0]
	st := make([]*workerState, n)
	for i := range st {
		st[i] = &workerState{ended: map[string]bool{}}
		if conns[i] == nil {
			st[i].lost, st[i].status, st[i].detail = true, results.WorkerLost, "never connected"
		}
	}
	accs := map[string]*measure.Accumulator{}
	var phases []string
	errs := map[string][]measure.ErrorSample{}
	pe := &phaseEvents{n: n, obs: obs, started: map[string]bool{}, endSent: map[string]bool{}, ended: map[string]time.Time{}, queued: map[string]run.Event{}}
	checkEnds := func() { pe.flush(st) }
	m := newMerger(n, func(iv measure.Interval) {
		checkEnds() // the phase's start (and the end of the one before) go first
		a := accs[iv.Phase]
		if a == nil {
			ops := c.opts.Ops
			if iv.Phase == measure.PhaseLoad {
				ops = []string{run.LoadOp}
			}
			a = measure.NewAccumulator(iv.Phase, ops...)
			accs[iv.Phase] = a
			phases = append(phases, iv.Phase)
		}
		a.Add(iv)
		obs.Interval(iv)
	})
	for i := range st {
		if st[i].lost {
			m.lose(i)
		}
	}
	p := &performance{c: c, n: n, conns: conns, st: st, obs: obs, m: m, pe: pe, diag: newDiagnosis(c.opts.Shares), errs: errs, ctxDone: ctx.Done()}
	if !share.SkipLoad {
		p.loading = true
		p.start(wire.StartLoad)
		p.wait(func(s *workerState) bool { return !s.ended[measure.PhaseLoad] })
		p.loading = false
	}
	if !share.LoadOnly && !p.stopped {
		p.start(wire.StartRun)
	}
	p.wait(func(*workerState) bool { return true })
	records, wanted := p.records, p.wanted
	m.close()
	checkEnds()
	var sums []measure.Summary
	sort.SliceStable(phases, func(i, j int) bool { return phaseIndex(phases[i]) < phaseIndex(phases[j]) })
	for _, ph := range phases {
		sum := accs[ph].Summary(errs[ph])
		if ph == measure.PhaseLoad {
			sum.Records, sum.Wanted = records, wanted
		}
		sums = append(sums, sum)
	}
	return sums, p.store(ctx, store, runID)
}

// performance is one Perform under way: the workers' states and
// connections, the merge and what is collected for the run's rows.
type performance struct {
	c            *Coordinator
	n            int
	conns        []*conn
	st           []*workerState
	obs          run.Observer
	m            *merger
	pe           *phaseEvents
	diag         *diagnosis
	wivs         []results.WorkerInterval
	errs         map[string][]measure.ErrorSample
	records      int64 // loaded, by the load phase's PhaseDone
	wanted       int64
	partial      error // a worker lost while loading
	loading      bool
	stopped      bool
	stopDeadline <-chan time.Time
	ctxDone      <-chan struct{}
}

// live tells whether a worker still in the run is pending.
func (p *performance) live(pending func(*workerState) bool) bool {
	for _, s := range p.st {
		if !s.lost && !s.done && pending(s) {
			return true
		}
	}
	return false
}

// start tells every worker still in the run to start what, together.
func (p *performance) start(what string) {
	at := time.Now().Add(500 * time.Millisecond)
	for i, cn := range p.conns {
		if cn != nil && !p.st[i].lost && !p.st[i].done {
			cn.send(&wire.Msg{Start: &wire.Start{What: what, At: at.Add(cn.offset)}})
		}
	}
}

// lose takes worker i out of the run (lost or failed, said as an event).
func (p *performance) lose(i int, at time.Time, status, detail string) {
	s := p.st[i]
	if s.lost || s.done {
		return
	}
	s.lost, s.status, s.lostAt, s.detail = true, status, at, detail
	kind := EventWorkerLost
	if status == results.WorkerFailed {
		kind = EventWorkerFailed
	}
	p.obs.Event(run.Event{Time: at, Kind: kind, Name: fmt.Sprintf("worker %d", i),
		Detail: fmt.Sprintf("pid %d on %s: %s", p.conns[i].pid, p.conns[i].host, detail)})
	p.m.lose(i)
	if p.conns[i] != nil {
		p.conns[i].close()
	}
	if p.loading && p.partial == nil {
		// A worker lost while loading leaves the data set partial: no
		// base for a benchmark (as a failed load in one process).
		p.partial = fmt.Errorf("load phase: worker %d was lost%s, so the data set is partial: the run phases did not start", i, missingKeys(p.c.opts.Shares[i], s.loaded))
		p.stopAll("worker " + strconv.Itoa(i) + " was lost during the load phase")
	}
}

// handle processes one frame of worker f.w.
func (p *performance) handle(f frame) {
	s, cn := p.st[f.w], p.conns[f.w]
	if s.lost || s.done {
		return
	}
	if f.gone {
		p.lose(f.w, f.at, results.WorkerLost, f.err.Error())
		return
	}
	if err := p.c.checkFrame(f.msg); err != nil {
		p.lose(f.w, f.at, results.WorkerFailed, "sent figures that cannot be: "+err.Error())
		return
	}
	switch msg := f.msg; {
	case msg.Interval != nil:
		wi := msg.Interval
		if p.c.opts.OnWorkerInterval != nil {
			iv, err := wi.ToInterval(cn.offset)
			if err != nil {
				p.lose(f.w, f.at, results.WorkerFailed, err.Error())
				return
			}
			p.c.opts.OnWorkerInterval(f.w, iv)
		}
		row := results.WorkerInterval{Index: f.w, Phase: wi.Phase, Seq: wi.Seq, Dropped: wi.Dropped, LagP99: wi.LagP99,
			TargetRate: wi.TargetRate, RespP99: wi.RespP99}
		for _, o := range wi.Ops {
			row.Ops += o.Count
			row.Errors += o.Errors
		}
		if wi.Phase != measure.PhaseLoad {
			s.ops += row.Ops
		} else {
			s.loaded += row.Ops - row.Errors
		}
		p.wivs = append(p.wivs, row)
		if err := p.m.addWire(f.w, wi, cn.offset); err != nil {
			p.lose(f.w, f.at, results.WorkerFailed, err.Error())
			return
		}
	case msg.Event != nil:
		ev := run.Event{Time: msg.Event.Time.Add(-cn.offset), Kind: msg.Event.Kind, Name: msg.Event.Name,
			Detail: msg.Event.Detail, Outcome: msg.Event.Outcome}
		switch ev.Kind {
		case run.EventPhaseStart:
			ev.Detail = fmt.Sprintf("workers=%d; worker %d: %s", p.n, f.w, ev.Detail)
			p.pe.start(ev)
		case run.EventPhaseEnd:
			s.ended[ev.Name] = true
			p.pe.end(ev)
			p.m.endPhase(f.w, ev.Name)
		default:
			ev.Name = strings.TrimSpace(fmt.Sprintf("worker %d %s", f.w, ev.Name))
			p.obs.Event(ev)
		}
	case msg.PhaseDone != nil:
		pd := msg.PhaseDone
		p.diag.phaseDone(f.w, pd)
		p.m.endPhase(f.w, pd.Phase)
		s.ended[pd.Phase] = true
		p.errs[pd.Phase] = mergeErrors(p.errs[pd.Phase], pd.Errors)
		if pd.Phase == measure.PhaseLoad {
			s.records += pd.Records
			p.records += pd.Records
			p.wanted += pd.Wanted
		}
	case msg.Done != nil:
		for ph := range s.ended {
			p.m.endPhase(f.w, ph)
		}
		if msg.Done.Err != "" && !p.stopped {
			p.lose(f.w, f.at, results.WorkerFailed, msg.Done.Err)
			return
		}
		s.done, s.status = true, results.WorkerDone
		if p.stopped {
			s.status = results.WorkerInterrupted
		}
		cn.close()
	}
}

// stopAll asks every worker still in the run to stop, and gives them the
// grace period (and the silence that counts as lost) to do so.
func (p *performance) stopAll(reason string) {
	if p.stopped {
		return
	}
	p.stopped = true
	for i, cn := range p.conns {
		if cn != nil && !p.st[i].lost && !p.st[i].done {
			cn.send(&wire.Msg{Stop: &wire.Stop{Reason: reason}})
		}
	}
	p.stopDeadline = time.After(p.c.opts.Grace + p.c.opts.LostAfter + 2*time.Second)
}

// wait handles frames until no worker still in the run is pending.
func (p *performance) wait(pending func(*workerState) bool) {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for p.live(pending) {
		select {
		case f := <-p.c.inbox:
			p.handle(f)
			p.pe.flush(p.st)
		case <-p.ctxDone:
			p.ctxDone = nil
			p.stopAll("interrupted")
		case <-p.stopDeadline:
			for i := range p.st {
				p.lose(i, time.Now(), results.WorkerLost, "did not stop within the grace period")
			}
			p.pe.flush(p.st)
		case <-tick.C:
		}
	}
}

// store stores each worker's row and per-interval counts with run runID and
// returns the run's error: workers lost, a partial load, an interruption.
func (p *performance) store(ctx context.Context, store *results.Store, runID int64) error {
	rows := make([]results.Worker, p.n)
	var lost []results.Worker
	for i, s := range p.st {
		w := results.Worker{Index: i, Ops: s.ops, Records: s.records, Status: s.status, LostAt: s.lostAt, Detail: s.detail,
			Clients: p.diag.clients[i]}
		w.RespP50, w.RespP99, w.LagP99 = p.diag.figures(i)
		if cn := p.conns[i]; cn != nil {
			w.Host, w.PID, w.ClockOffset, w.RTT = cn.host, cn.pid, cn.offset, cn.rtt
		}
		if w.Status == "" {
			w.Status = results.WorkerLost
		}
		rows[i] = w
		if s.lost {
			lost = append(lost, w)
		}
	}
	wctx := context.WithoutCancel(ctx)
	var runErr error
	if err := store.AddWorkers(wctx, runID, rows); err != nil {
		runErr = errors.Join(runErr, err)
	}
	if err := store.AddWorkerIntervals(wctx, runID, p.wivs); err != nil {
		runErr = errors.Join(runErr, err)
	}
	if len(lost) > 0 {
		runErr = errors.Join(runErr, &LostError{Workers: p.n, Lost: lost})
	}
	if p.partial != nil {
		runErr = errors.Join(runErr, p.partial)
	} else if p.stopped {
		runErr = errors.Join(runErr, fmt.Errorf("workers: %w", ctx.Err()))
	}
	return runErr
}

// phaseEvents turns the workers' phase events into the run's: a phase
// starts when its first worker starts it (emitted once the phase before
// it ended, and no earlier than that end), and ends when every worker still in the run ended it (at the
// latest worker's end), so the run's events read as one process's.
type phaseEvents struct {
	n                int
	obs              run.Observer
	started, endSent map[string]bool
	ended            map[string]time.Time
	queued           map[string]run.Event // starts not emitted yet
	lastEnd          time.Time            // of the last phase that ended
}

func (p *phaseEvents) start(ev run.Event) {
	if !p.started[ev.Name] {
		p.started[ev.Name] = true
		p.queued[ev.Name] = ev
	}
}

func (p *phaseEvents) end(ev run.Event) {
	if ev.Time.After(p.ended[ev.Name]) {
		p.ended[ev.Name] = ev.Time
	}
}

// flush emits what is due, in phase order.
func (p *phaseEvents) flush(st []*workerState) {
	for _, ph := range measure.Phases() {
		if ev, ok := p.queued[ph]; ok {
			if ev.Time.Before(p.lastEnd) {
				// Workers skew by milliseconds: the phase before ends
				// at its last worker's end, this one starts no earlier.
				ev.Time = p.lastEnd
			}
			p.obs.Event(ev)
			delete(p.queued, ph)
		}
		if !p.started[ph] || p.endSent[ph] {
			continue
		}
		for _, s := range st {
			if !s.lost && !s.ended[ph] {
				return // a later phase waits for this one's end
			}
		}
		p.endSent[ph] = true
		t := p.ended[ph]
		if t.IsZero() {
			t = time.Now()
		}
		p.lastEnd = t
		p.obs.Event(run.Event{Time: t, Kind: run.EventPhaseEnd, Name: ph, Detail: fmt.Sprintf("workers=%d", p.n)})
	}
}

// Workers are the connected workers' rows as known before the run (for
// printing who is where).
func (c *Coordinator) Workers() []results.Worker {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]results.Worker, 0, len(c.conns))
	for i, cn := range c.conns {
		if cn != nil {
			out = append(out, results.Worker{Index: i, Host: cn.host, PID: cn.pid, ClockOffset: cn.offset, RTT: cn.rtt})
		}
	}
	return out
}

// Origins are the workers' driver time origins in the coordinator's clock
// (zero for a driver without one), by index.
func (c *Coordinator) Origins() []time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]time.Time, len(c.conns))
	for i, cn := range c.conns {
		if cn != nil {
			out[i] = cn.origin
		}
	}
	return out
}

// Loopback tells whether a --listen address is on the loopback interface
// only ("" is 127.0.0.1:0).
func Loopback(listen string) bool {
	if listen == "" {
		return true
	}
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// checkFrame validates a worker's figures before anything of them is used:
// a worker that sends nonsense is lost, not merged.
func (c *Coordinator) checkFrame(m *wire.Msg) error {
	switch {
	case m.Interval != nil:
		var ops []string
		if len(c.opts.Ops) > 0 {
			ops = append(slices.Clone(c.opts.Ops), run.LoadOp)
		}
		return m.Interval.Check(ops)
	case m.PhaseDone != nil:
		return m.PhaseDone.Check()
	}
	return nil
}
