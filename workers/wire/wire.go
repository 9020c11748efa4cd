// Package wire is the protocol between a dbrig coordinator and its workers
// (package workers). It is small on purpose:
//
//   - Transport: HTTP/2 over cleartext TCP (prior knowledge, Go's net/http;
//     HTTP/1.1 is served too, for /healthz and refusals). A worker opens ONE
//     request, POST /v1/worker, and keeps it open for the whole run: the
//     request body carries the worker's frames to the coordinator, the
//     response body the coordinator's frames to the worker (full duplex).
//   - Handshake: the request's headers say who the worker is and what it
//     speaks: Dbrig-Protocol (Protocol), Dbrig-Version (dbrig's version),
//     Dbrig-Worker-Index, Dbrig-Worker-Host, Dbrig-Worker-PID, and
//     Authorization: Bearer TOKEN when the coordinator has a token
//     (DBRIG_TOKEN; compared in constant time, never logged). A mismatch is
//     refused before the stream starts: 409 (versions, naming both), 401
//     (token), 409 (index taken or out of range), with a one-line text body
//     the worker prints.
//   - Frames: one JSON object per line (Msg), at most MaxFrame bytes.
//     Histograms travel in HDR's standard V2 compressed encoding
//     (measure.EncodeHistogram), base64 in JSON, so merging is exact.
//   - Coordinator → worker: Ping (×PingCount, clock offset, NTP-style), then
//     Assign (the share), Start (a phase group at a time in the worker's
//     clock), Stop (cancel), Heartbeat.
//   - Worker → coordinator: Pong, Ready (share opened), Interval (every
//     interval as produced, with its sequence number within its phase),
//     Event (phase start/end, interruption), PhaseDone (records, error
//     samples), Done (the worker's end, with its error if any), Heartbeat.
//   - Liveness: each side sends a Heartbeat when it has sent nothing for
//     HeartbeatEvery; a side that hears nothing for LostAfter considers the
//     other gone (the coordinator records the worker as lost and goes on;
//     a worker stops its run and exits non-zero).
package wire

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbrig/dbrig/measure"
)

// Protocol is the version of this protocol; a change to a frame that an
// older peer would misread increments it.
const Protocol = 1

// HTTP paths and headers.
const (
	PathWorker = "/v1/worker"
	PathHealth = "/healthz"

	HeaderProtocol = "Dbrig-Protocol"
	HeaderVersion  = "Dbrig-Version"
	HeaderIndex    = "Dbrig-Worker-Index"
	HeaderHost     = "Dbrig-Worker-Host"
	HeaderPID      = "Dbrig-Worker-PID"
)

// Timing of the liveness checks and the clock-offset measurement.
const (
	HeartbeatEvery = 500 * time.Millisecond
	LostAfter      = 3 * time.Second
	PingCount      = 5
	MaxFrame       = 16 << 20
)

// Phase groups a Start starts.
const (
	StartLoad = "load" // the load phase
	StartRun  = "run"  // warmup (if any) and measure
)

// Msg is one frame: exactly one of its fields is set.
type Msg struct {
	Ping      *Ping           `json:"ping,omitempty"`
	Pong      *Pong           `json:"pong,omitempty"`
	Assign    json.RawMessage `json:"assign,omitempty"` // experiment.Share as JSON
	Ready     *Ready          `json:"ready,omitempty"`
	Start     *Start          `json:"start,omitempty"`
	Stop      *Stop           `json:"stop,omitempty"`
	Interval  *Interval       `json:"interval,omitempty"`
	Event     *Event          `json:"event,omitempty"`
	PhaseDone *PhaseDone      `json:"phase_done,omitempty"`
	Done      *Done           `json:"done,omitempty"`
	Heartbeat *Heartbeat      `json:"heartbeat,omitempty"`
}

// Kind names the field that is set ("" if none or more than one).
func (m *Msg) Kind() string {
	kinds := []struct {
		set  bool
		name string
	}{
		{m.Ping != nil, "ping"}, {m.Pong != nil, "pong"}, {m.Assign != nil, "assign"}, {m.Ready != nil, "ready"},
		{m.Start != nil, "start"}, {m.Stop != nil, "stop"}, {m.Interval != nil, "interval"}, {m.Event != nil, "event"},
		{m.PhaseDone != nil, "phase_done"}, {m.Done != nil, "done"}, {m.Heartbeat != nil, "heartbeat"},
	}
	kind := ""
	for _, k := range kinds {
		if k.set {
			if kind != "" {
				return ""
			}
			kind = k.name
		}
	}
	return kind
}

// Ping asks for a Pong; Sent is the coordinator's clock.
type Ping struct {
	Seq  int       `json:"seq"`
	Sent time.Time `json:"sent"`
}

// Pong answers a Ping with the worker's clock when it received the Ping
// and when it sent the Pong.
type Pong struct {
	Seq      int       `json:"seq"`
	PingSent time.Time `json:"ping_sent"`
	Received time.Time `json:"received"`
	Sent     time.Time `json:"sent"`
}

// Ready says the worker opened its share (driver connected).
type Ready struct {
	Origin time.Time `json:"origin,omitzero"` // the driver's time origin, if it has one (sim)
}

// Start starts a phase group at At, in the worker's clock (the
// coordinator's schedule shifted by the worker's measured offset).
type Start struct {
	What string    `json:"what"` // StartLoad or StartRun
	At   time.Time `json:"at"`
}

// Stop cancels the worker's run (Ctrl-C at the coordinator): in-flight
// operations finish, the last intervals are sent, then Done.
type Stop struct {
	Reason string `json:"reason"`
}

// Heartbeat keeps a quiet stream alive.
type Heartbeat struct{}

// Interval is a measure.Interval on the wire, times in the sender's clock.
type Interval struct {
	Phase      string    `json:"phase"`
	Seq        int       `json:"seq"` // 0, 1, … within the phase
	Start      time.Time `json:"start"`
	End        time.Time `json:"end"`
	Dropped    int64     `json:"dropped,omitempty"`
	Late       int64     `json:"late,omitempty"`
	Backlog    int64     `json:"backlog,omitempty"`
	TargetRate float64   `json:"target_rate,omitempty"`
	Lag        []byte    `json:"lag,omitempty"` // encoded HDR histogram
	LagP99     int64     `json:"lag_p99,omitempty"`
	// RespP99 is the sender's response-time p99 of the interval over all
	// operations (µs), for per-worker diagnosis: percentiles do not add, and
	// the sender computes it cheaper than the receiver could.
	RespP99 int64 `json:"resp_p99,omitempty"`
	Ops     []Op  `json:"ops,omitempty"`
}

// Op is one operation type within an Interval.
type Op struct {
	Op       string           `json:"op"`
	Count    int64            `json:"count"`
	Errors   int64            `json:"errors,omitempty"`
	Classes  map[string]int64 `json:"classes,omitempty"`
	Response []byte           `json:"response"`
	Service  []byte           `json:"service"`
}

// Event is a run.Event on the wire.
type Event struct {
	Time    time.Time `json:"time"`
	Kind    string    `json:"kind"`
	Name    string    `json:"name,omitempty"`
	Detail  string    `json:"detail,omitempty"`
	Outcome string    `json:"outcome,omitempty"`
}

// PhaseDone ends a phase of the worker: what its summary has that its
// intervals do not.
type PhaseDone struct {
	Phase   string                `json:"phase"`
	Records int64                 `json:"records,omitempty"`
	Wanted  int64                 `json:"wanted,omitempty"`
	Errors  []measure.ErrorSample `json:"errors,omitempty"`
	// The sender's own percentiles of the phase, all operations (µs), for
	// per-worker diagnosis.
	RespP50 int64 `json:"resp_p50,omitempty"`
	RespP99 int64 `json:"resp_p99,omitempty"`
	LagP99  int64 `json:"lag_p99,omitempty"`
}

// Done is the worker's last frame.
type Done struct {
	Err string `json:"err,omitempty"`
}

// FromInterval encodes iv as interval seq of its phase.
func FromInterval(iv measure.Interval, seq int) (*Interval, error) {
	w := &Interval{Phase: iv.Phase, Seq: seq, Start: iv.Start, End: iv.End, Dropped: iv.Dropped,
		Late: iv.Late, Backlog: iv.Backlog, TargetRate: iv.TargetRate}
	var err error
	if iv.Lag != nil {
		if w.Lag, err = measure.EncodeHistogram(iv.Lag); err != nil {
			return nil, fmt.Errorf("encode lag: %w", err)
		}
		w.LagP99 = measure.Percentile(iv.Lag, 99)
	}
	var all *hdr.Histogram
	for _, o := range iv.Ops {
		if o.Response != nil {
			if all == nil {
				all = measure.NewHistogram()
			}
			all.Merge(o.Response)
		}
	}
	w.RespP99 = measure.Percentile(all, 99)
	for _, o := range iv.Ops {
		op := Op{Op: o.Op, Count: o.Count, Errors: o.Errors, Classes: o.Classes}
		if op.Response, err = measure.EncodeHistogram(o.Response); err != nil {
			return nil, fmt.Errorf("encode %s response: %w", o.Op, err)
		}
		if op.Service, err = measure.EncodeHistogram(o.Service); err != nil {
			return nil, fmt.Errorf("encode %s service: %w", o.Op, err)
		}
		w.Ops = append(w.Ops, op)
	}
	return w, nil
}

// ToInterval decodes the interval, shifting its times by -offset (the
// sender's clock minus the receiver's) into the receiver's clock.
func (w *Interval) ToInterval(offset time.Duration) (measure.Interval, error) {
	iv := measure.Interval{Phase: w.Phase, Start: w.Start.Add(-offset), End: w.End.Add(-offset),
		Dropped: w.Dropped, Late: w.Late, Backlog: w.Backlog, TargetRate: w.TargetRate}
	var err error
	if len(w.Lag) > 0 {
		if iv.Lag, err = measure.DecodeHistogram(w.Lag); err != nil {
			return iv, fmt.Errorf("interval %s/%d: lag: %w", w.Phase, w.Seq, err)
		}
	}
	for _, o := range w.Ops {
		op := measure.OpInterval{Op: o.Op, Count: o.Count, Errors: o.Errors, Classes: o.Classes}
		if op.Response, err = measure.DecodeHistogram(o.Response); err != nil {
			return iv, fmt.Errorf("interval %s/%d: %s response: %w", w.Phase, w.Seq, o.Op, err)
		}
		if op.Service, err = measure.DecodeHistogram(o.Service); err != nil {
			return iv, fmt.Errorf("interval %s/%d: %s service: %w", w.Phase, w.Seq, o.Op, err)
		}
		iv.Ops = append(iv.Ops, op)
	}
	return iv, nil
}

// AddTo merges the interval into dst exactly, decoding its histograms
// straight into dst's (measure.AddEncodedHistogram: no histogram is
// allocated per worker), times shifted by -offset as ToInterval does. dst
// spans the earliest start and the latest end; counters add. On an error
// dst may hold part of the interval.
func (w *Interval) AddTo(dst *measure.Interval, offset time.Duration) error {
	start, end := w.Start.Add(-offset), w.End.Add(-offset)
	if dst.Start.IsZero() || start.Before(dst.Start) {
		dst.Start = start
	}
	if end.After(dst.End) {
		dst.End = end
	}
	dst.Dropped += w.Dropped
	dst.Late += w.Late
	dst.Backlog += w.Backlog
	dst.TargetRate += w.TargetRate
	if len(w.Lag) > 0 {
		if dst.Lag == nil {
			dst.Lag = measure.NewHistogram()
		}
		if err := measure.AddEncodedHistogram(dst.Lag, w.Lag); err != nil {
			return fmt.Errorf("interval %s/%d: lag: %w", w.Phase, w.Seq, err)
		}
	}
	for _, o := range w.Ops {
		i := 0
		for i < len(dst.Ops) && dst.Ops[i].Op != o.Op {
			i++
		}
		if i == len(dst.Ops) {
			dst.Ops = append(dst.Ops, measure.OpInterval{Op: o.Op, Response: measure.NewHistogram(), Service: measure.NewHistogram()})
		}
		d := &dst.Ops[i]
		d.Count += o.Count
		d.Errors += o.Errors
		for c, n := range o.Classes {
			if d.Classes == nil {
				d.Classes = map[string]int64{}
			}
			d.Classes[c] += n
		}
		if err := measure.AddEncodedHistogram(d.Response, o.Response); err != nil {
			return fmt.Errorf("interval %s/%d: %s response: %w", w.Phase, w.Seq, o.Op, err)
		}
		if err := measure.AddEncodedHistogram(d.Service, o.Service); err != nil {
			return fmt.Errorf("interval %s/%d: %s service: %w", w.Phase, w.Seq, o.Op, err)
		}
	}
	return nil
}

// Writer writes frames.
type Writer struct {
	w     io.Writer
	flush func() error
}

// NewWriter writes frames to w, calling flush (if not nil) after each.
func NewWriter(w io.Writer, flush func() error) *Writer { return &Writer{w: w, flush: flush} }

// Write writes one frame.
func (w *Writer) Write(m *Msg) error {
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("encode %s frame: %w", m.Kind(), err)
	}
	if _, err := w.w.Write(append(b, '\n')); err != nil {
		return err
	}
	if w.flush != nil {
		return w.flush()
	}
	return nil
}

// ErrFrame is a frame that is not one valid Msg.
var ErrFrame = errors.New("bad frame")

// Reader reads frames.
type Reader struct {
	s *bufio.Scanner
}

// NewReader reads frames from r.
func NewReader(r io.Reader) *Reader {
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 64<<10), MaxFrame)
	return &Reader{s: s}
}

// Read returns the next frame; io.EOF at a clean end of stream.
func (r *Reader) Read() (*Msg, error) {
	if !r.s.Scan() {
		if err := r.s.Err(); err != nil {
			return nil, err
		}
		return nil, io.EOF
	}
	return Decode(r.s.Bytes())
}

// Decode parses one frame: a JSON object with exactly one known field set.
func Decode(line []byte) (*Msg, error) {
	var m Msg
	if err := json.Unmarshal(line, &m); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFrame, err)
	}
	if m.Kind() == "" {
		return nil, fmt.Errorf("%w: expected exactly one of ping, pong, assign, ready, start, stop, interval, event, phase_done, done, heartbeat", ErrFrame)
	}
	return &m, nil
}
