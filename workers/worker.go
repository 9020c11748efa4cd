package workers

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/run"
	"github.com/dbrig/dbrig/workers/wire"
)

// WorkerOptions configure a worker process.
type WorkerOptions struct {
	Coordinator string // http://host:port
	Index       int
	Token       string // from DBRIG_TOKEN only
	// ConnectTimeout bounds the retries while the coordinator is not
	// reachable yet (pods start in any order).
	ConnectTimeout time.Duration
	Version        string // experiment.Version when empty
	// LostAfter is how long a silent coordinator is given (wire.LostAfter).
	LostAfter time.Duration
	// TLS verifies an https:// coordinator (ClientTLS); nil: the
	// system's roots.
	TLS *tls.Config
	// Log receives one line per notable step (nil: none).
	Log io.Writer
	// Observer also sees every interval and event this worker measures
	// (live metrics; nil: none).
	Observer run.Observer
}

// UnreachableError is a coordinator that could not be reached within the
// connect timeout.
type UnreachableError struct {
	URL     string
	Timeout time.Duration
	Err     error
}

func (e *UnreachableError) Error() string {
	hint := ""
	if strings.HasPrefix(e.URL, "http://") {
		hint = " (if the coordinator runs with --tls-cert, connect to https://)"
	}
	return fmt.Sprintf("coordinator %s unreachable for %v: %v%s", e.URL, e.Timeout, e.Err, hint)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// ErrCoordinatorLost is a coordinator whose stream broke or went silent:
// the worker stops its run.
var ErrCoordinatorLost = errors.New("coordinator lost")

// h2Client speaks HTTP/2: over TLS to an https:// coordinator, else over
// cleartext TCP (prior knowledge).
func h2Client(https bool, cfg *tls.Config) *http.Client {
	protos := new(http.Protocols)
	tr := &http.Transport{Protocols: protos, DialContext: (&net.Dialer{Timeout: 5 * time.Second}).DialContext}
	if https {
		protos.SetHTTP2(true)
		if cfg != nil {
			tr.TLSClientConfig = cfg.Clone()
		}
	} else {
		protos.SetUnencryptedHTTP2(true)
	}
	return &http.Client{Transport: tr}
}

// RunWorker connects to the coordinator, performs the share it is given
// and streams what it measures. It returns nil when its share ran to the
// end; an error when it was refused, could not reach the coordinator, lost
// it, or its share failed.
func RunWorker(ctx context.Context, o WorkerOptions) error {
	if o.Version == "" {
		o.Version = experiment.Version
	}
	if o.LostAfter == 0 {
		o.LostAfter = wire.LostAfter
	}
	logf := func(format string, args ...any) {
		if o.Log != nil {
			fmt.Fprintf(o.Log, "worker %d: "+format+"\n", append([]any{o.Index}, args...)...)
		}
	}
	url := strings.TrimSuffix(o.Coordinator, "/") + wire.PathWorker
	https := strings.HasPrefix(o.Coordinator, "https://")
	if !https && !strings.HasPrefix(o.Coordinator, "http://") {
		return &experiment.InputError{Err: fmt.Errorf("--coordinator %s: expected http://HOST:PORT or https://HOST:PORT", o.Coordinator)}
	}
	if o.TLS != nil && !https {
		return &experiment.InputError{Err: fmt.Errorf("--coordinator %s: --tls-ca is for an https:// coordinator", o.Coordinator)}
	}
	client := h2Client(https, o.TLS)
	defer client.CloseIdleConnections()
	host, _ := os.Hostname()

	resp, pw, err := connect(ctx, client, url, host, o)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	logf("connected to %s", o.Coordinator)

	w := &worker{out: make(chan *wire.Msg, 256), end: make(chan struct{}), wend: make(chan struct{}), logf: logf, also: o.Observer}
	writeErr := make(chan error, 1)
	go func() {
		err := writeLoop(wire.NewWriter(pw, nil), w.out, w.wend)
		pw.CloseWithError(err)
		writeErr <- err
	}()
	frames := make(chan *wire.Msg, 64)
	readErr := make(chan error, 1)
	go func() { readErr <- readLoop(wire.NewReader(resp.Body), frames, w.end) }()
	defer w.close()

	runCtx, cancelRun := context.WithCancelCause(ctx)
	defer cancelRun(nil)
	var share *experiment.Share
	var runner *experiment.ShareRunner
	defer func() {
		if runner != nil {
			runner.Close()
		}
	}()
	busy := make(chan error, 1) // the phase group under way ends
	running := false
	silence := time.NewTimer(o.LostAfter)
	defer silence.Stop()
	var opened chan error
	finish := func(err error) error { return w.finish(frames, err) }
	for {
		select {
		case <-ctx.Done():
			cancelRun(ctx.Err())
			if running {
				// Finish the phase (grace), send what was measured.
				err := <-busy
				return finish(errors.Join(err, ctx.Err()))
			}
			return finish(ctx.Err())
		case err := <-writeErr:
			cancelRun(ErrCoordinatorLost)
			return fmt.Errorf("%w: write: %v", ErrCoordinatorLost, err)
		case <-silence.C:
			cancelRun(ErrCoordinatorLost)
			if running {
				<-busy
			}
			return fmt.Errorf("%w: silent for %v", ErrCoordinatorLost, o.LostAfter)
		case err := <-opened:
			opened = nil
			if err != nil {
				return finish(err)
			}
			logf("share %d of %d opened (%s)", share.Index, share.Workers, share.Driver)
			w.send(&wire.Msg{Ready: &wire.Ready{Origin: runner.Origin()}})
		case err := <-busy:
			running = false
			if err != nil || share.LoadOnly || w.ranRun {
				return finish(err)
			}
		case m, ok := <-frames:
			if !ok {
				err := <-readErr
				cancelRun(ErrCoordinatorLost)
				if running {
					<-busy
				}
				if errors.Is(err, io.EOF) || err == nil {
					err = io.ErrUnexpectedEOF
				}
				return fmt.Errorf("%w: %v", ErrCoordinatorLost, err)
			}
			silence.Reset(o.LostAfter)
			switch {
			case m.Ping != nil:
				now := time.Now()
				w.send(&wire.Msg{Pong: &wire.Pong{Seq: m.Ping.Seq, PingSent: m.Ping.Sent, Received: now, Sent: time.Now()}})
			case m.Assign != nil:
				share = &experiment.Share{}
				if err := json.Unmarshal(m.Assign, share); err != nil {
					return finish(fmt.Errorf("assignment: %w", err))
				}
				opened = make(chan error, 1)
				go func() {
					r, err := experiment.OpenShare(runCtx, *share)
					runner = r
					opened <- err
				}()
			case m.Start != nil:
				if running {
					// The coordinator may start the next group as soon as it
					// has this one's PhaseDone, before its end reached here.
					err := <-busy
					running = false
					if err != nil || share.LoadOnly || w.ranRun {
						return finish(err)
					}
				}
				if runner == nil {
					return finish(fmt.Errorf("start %s before the share was opened or while busy", m.Start.What))
				}
				running = true
				go func(st wire.Start) { busy <- w.perform(runCtx, runner, st) }(*m.Start)
			case m.Stop != nil:
				logf("stop: %s", m.Stop.Reason)
				cancelRun(errors.New(m.Stop.Reason))
				if !running {
					return finish(errors.New("stopped: " + m.Stop.Reason))
				}
			}
		}
	}
}

// worker is a worker's stream to the coordinator.
type worker struct {
	out       chan *wire.Msg
	end       chan struct{} // both directions end
	wend      chan struct{} // the writer ends (after Done)
	endOnce   sync.Once
	closeOnce sync.Once
	logf      func(string, ...any)
	ranRun    bool
	also      run.Observer // WorkerOptions.Observer
}

func (w *worker) send(m *wire.Msg) {
	select {
	case w.out <- m:
	case <-w.end:
	}
}

// closeOut stops the writer after what is queued (a select does not
// prefer the queue to the stop, so wait for the queue to drain first);
// the reader goes on, so the worker can wait for the coordinator to end
// the stream after it read the last frame.
func (w *worker) closeOut() {
	w.closeOnce.Do(func() {
		for i := 0; i < 200 && len(w.out) > 0; i++ {
			time.Sleep(5 * time.Millisecond)
		}
		close(w.wend)
	})
}

// close ends both directions.
func (w *worker) close() {
	w.closeOut()
	w.endOnce.Do(func() { close(w.end) })
}

// perform runs a phase group at its start time and streams it.
func (w *worker) perform(ctx context.Context, r *experiment.ShareRunner, st wire.Start) error {
	if d := time.Until(st.At); d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
	obs := &streamObs{w: w, seq: map[string]int{}, also: w.also}
	switch st.What {
	case wire.StartLoad:
		sum, err := r.Load(ctx, obs)
		if obs.err != nil {
			return obs.err
		}
		w.send(&wire.Msg{PhaseDone: &wire.PhaseDone{Phase: measure.PhaseLoad, Records: sum.Records, Wanted: sum.Wanted, Errors: sum.Errors}})
		return err
	case wire.StartRun:
		w.ranRun = true
		sums, err := r.Run(ctx, obs)
		if obs.err != nil {
			return obs.err
		}
		for _, s := range sums {
			w.send(&wire.Msg{PhaseDone: &wire.PhaseDone{Phase: s.Phase, Errors: s.Errors,
				RespP50: s.Overall.Response.P50, RespP99: s.Overall.Response.P99, LagP99: s.Lag.P99}})
		}
		return err
	}
	return fmt.Errorf("start %q: expected %s or %s", st.What, wire.StartLoad, wire.StartRun)
}

// streamObs sends every interval and event as it is produced.
type streamObs struct {
	w    *worker
	seq  map[string]int
	err  error
	also run.Observer
}

func (o *streamObs) Interval(iv measure.Interval) {
	if o.also != nil {
		o.also.Interval(iv)
	}
	seq := o.seq[iv.Phase]
	o.seq[iv.Phase]++
	wi, err := wire.FromInterval(iv, seq)
	if err != nil {
		if o.err == nil {
			o.err = err
		}
		return
	}
	o.w.send(&wire.Msg{Interval: wi})
}

func (o *streamObs) Event(ev run.Event) {
	if o.also != nil {
		o.also.Event(ev)
	}
	o.w.send(&wire.Msg{Event: &wire.Event{Time: ev.Time, Kind: ev.Kind, Name: ev.Name, Detail: ev.Detail, Outcome: ev.Outcome}})
}

// connect keeps trying to open the worker's stream to the coordinator at
// url until it is accepted, refused (a version, index or token it does not
// take; a certificate this worker does not trust), ctx ends, or
// o.ConnectTimeout passes. pw is the stream's sending end.
func connect(ctx context.Context, client *http.Client, url, host string, o WorkerOptions) (*http.Response, *io.PipeWriter, error) {
	var resp *http.Response
	var pw *io.PipeWriter
	https := strings.HasPrefix(o.Coordinator, "https://")
	deadline := time.Now().Add(o.ConnectTimeout)
	for {
		var pr *io.PipeReader
		pr, pw = io.Pipe()
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, pr)
		if err != nil {
			return nil, nil, &experiment.InputError{Err: fmt.Errorf("--coordinator %s: %w", o.Coordinator, err)}
		}
		req.Header.Set(wire.HeaderProtocol, strconv.Itoa(wire.Protocol))
		req.Header.Set(wire.HeaderVersion, o.Version)
		req.Header.Set(wire.HeaderIndex, strconv.Itoa(o.Index))
		req.Header.Set(wire.HeaderHost, host)
		req.Header.Set(wire.HeaderPID, strconv.Itoa(os.Getpid()))
		if o.Token != "" {
			req.Header.Set("Authorization", "Bearer "+o.Token)
		}
		resp, err = client.Do(req)
		if err == nil && resp.StatusCode == http.StatusOK {
			break
		}
		pw.Close()
		if err != nil && https {
			if msg := untrusted(o.Coordinator, err); msg != "" {
				return nil, nil, &RefusedError{Msg: msg}
			}
		}
		if err == nil {
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			resp.Body.Close()
			msg := strings.TrimSpace(string(b))
			if resp.StatusCode == http.StatusConflict || resp.StatusCode == http.StatusUnauthorized {
				return nil, nil, &RefusedError{Msg: fmt.Sprintf("coordinator %s %s", o.Coordinator, msg)}
			}
			err = fmt.Errorf("%s: %s", resp.Status, msg)
		}
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		if time.Now().After(deadline) {
			return nil, nil, &UnreachableError{URL: o.Coordinator, Timeout: o.ConnectTimeout, Err: err}
		}
		select {
		case <-time.After(250 * time.Millisecond):
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
	}
	return resp, pw, nil
}

// finish sends Done (with err, if any) and lets the coordinator read it
// and end the stream (frames closes), for 2 s at most; it returns err.
func (w *worker) finish(frames <-chan *wire.Msg, err error) error {
	d := &wire.Done{}
	if err != nil {
		d.Err = err.Error()
	}
	w.send(&wire.Msg{Done: d})
	// Let the coordinator read Done and end the stream (bounded).
	w.closeOut()
	t := time.NewTimer(2 * time.Second)
	defer t.Stop()
	for {
		select {
		case _, ok := <-frames:
			if !ok {
				return err
			}
		case <-t.C:
			return err
		}
	}
}
