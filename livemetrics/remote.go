package livemetrics

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/golang/snappy"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/prometheus/prompb"
)

// Remote-write bounds: a dead or slow endpoint costs at most this much
// memory and never blocks the run.
const (
	// QueueLen is how many pushes (one per interval) wait to be sent; when
	// it is full the oldest is dropped: the newest cumulative figures matter
	// most.
	QueueLen = 120
	// pushTimeout bounds one HTTP request.
	pushTimeout = 5 * time.Second
	// maxBackoff bounds the wait between retries of one push.
	maxBackoff = 5 * time.Second
	// maxAge drops a push still unsent after this long.
	maxAge = 2 * time.Minute
)

// RemoteStats is what a remote writer did, for the end of the run.
type RemoteStats struct {
	Pushes        int64 // requests accepted by the endpoint
	Samples       int64 // samples (histograms included) in them
	Retries       int64 // failed attempts that were tried again
	Dropped       int64 // pushes given up (queue full, too old, refused, or unsent at Close)
	DroppedSample int64 // samples in those
	LastErr       error // the last failure, if any
}

// RemoteWriter pushes the metrics of a registry with the Prometheus
// remote-write protocol (1.0, with native histograms): every interval it
// gathers them into a WriteRequest, snappy-compressed, and queues it; one
// goroutine sends the queue in order, retrying with backoff.
type RemoteWriter struct {
	url    string
	client *http.Client
	gather prometheus.Gatherer
	every  time.Duration
	now    func() time.Time

	mu    sync.Mutex
	queue []push
	seq   uint64
	wake  chan struct{}
	stats RemoteStats

	stop     chan struct{}
	ctx      context.Context // ends a request in flight when Close gives up
	cancel   context.CancelFunc
	done     sync.WaitGroup
	dropped  prometheus.Counter
	sentOK   prometheus.Counter
	stopOnce sync.Once
}

type push struct {
	seq     uint64 // identifies the push in the queue
	at      time.Time
	body    []byte
	samples int64
}

// NewRemoteWriter pushes g's metrics to url every interval once Start is
// called. Its own counters (dbrig_remote_write_*) are registered in reg.
func NewRemoteWriter(url string, every time.Duration, g prometheus.Gatherer, reg prometheus.Registerer) *RemoteWriter {
	w := &RemoteWriter{
		url: url, client: &http.Client{Timeout: pushTimeout}, gather: g, every: every, now: time.Now,
		wake: make(chan struct{}, 1), stop: make(chan struct{}),
		dropped: prometheus.NewCounter(prometheus.CounterOpts{Name: "dbrig_remote_write_dropped_pushes_total",
			Help: "Remote-write pushes given up (queue full, too old, refused)."}),
		sentOK: prometheus.NewCounter(prometheus.CounterOpts{Name: "dbrig_remote_write_pushes_total",
			Help: "Remote-write pushes the endpoint accepted."}),
	}
	w.ctx, w.cancel = context.WithCancel(context.Background())
	if reg != nil {
		reg.MustRegister(w.dropped, w.sentOK)
	}
	return w
}

// Start gathers every interval and sends in the background until Close.
func (w *RemoteWriter) Start() {
	w.done.Add(2)
	go func() {
		defer w.done.Done()
		t := time.NewTicker(w.every)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				w.Enqueue()
			case <-w.stop:
				return
			}
		}
	}()
	go func() {
		defer w.done.Done()
		w.send()
	}()
}

// Enqueue gathers the metrics now and queues them; it never blocks on the
// network.
func (w *RemoteWriter) Enqueue() {
	mfs, err := w.gather.Gather()
	if err != nil && len(mfs) == 0 {
		w.fail(fmt.Errorf("gather: %w", err))
		return
	}
	at := w.now()
	req := &prompb.WriteRequest{Timeseries: TimeSeries(mfs, at.UnixMilli())}
	raw, err := req.Marshal()
	if err != nil {
		w.fail(fmt.Errorf("marshal: %w", err))
		return
	}
	p := push{at: at, body: snappy.Encode(nil, raw), samples: int64(len(req.Timeseries))}
	w.mu.Lock()
	w.seq++
	p.seq = w.seq
	if len(w.queue) >= QueueLen {
		w.dropLocked(w.queue[0], errors.New("queue full"))
		w.queue = w.queue[1:]
	}
	w.queue = append(w.queue, p)
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *RemoteWriter) fail(err error) {
	w.mu.Lock()
	w.stats.LastErr = err
	w.mu.Unlock()
}

func (w *RemoteWriter) dropLocked(p push, why error) {
	w.stats.Dropped++
	w.stats.DroppedSample += p.samples
	w.stats.LastErr = why
	w.dropped.Inc()
}

// send sends the queue's head until stop, then what is left within the
// time Close allows.
func (w *RemoteWriter) send() {
	backoff := 100 * time.Millisecond
	for {
		w.mu.Lock()
		var p push
		ok := len(w.queue) > 0
		if ok {
			p = w.queue[0]
		}
		w.mu.Unlock()
		if !ok {
			select {
			case <-w.wake:
				continue
			case <-w.stop:
				return
			}
		}
		err := w.post(p)
		w.mu.Lock()
		// The queue may have dropped p meanwhile (full): then it is counted.
		head := len(w.queue) > 0 && w.queue[0].seq == p.seq
		done := err == nil || !retryable(err) || w.now().Sub(p.at) > maxAge
		switch {
		case err == nil:
			w.stats.Pushes++
			w.stats.Samples += p.samples
			w.sentOK.Inc()
		case done && head:
			w.dropLocked(p, err)
		case !done:
			w.stats.Retries++
			w.stats.LastErr = err
		}
		if done || !head {
			if head {
				w.queue = w.queue[1:]
			}
			backoff = 100 * time.Millisecond
			w.mu.Unlock()
			continue
		}
		w.mu.Unlock()
		select {
		case <-time.After(backoff):
			backoff = min(2*backoff, maxBackoff)
		case <-w.stop:
			return
		}
	}
}

// statusError is an HTTP status the endpoint answered with.
type statusError struct {
	code int
	msg  string
}

func (e *statusError) Error() string { return fmt.Sprintf("remote write: HTTP %d: %s", e.code, e.msg) }

// retryable: network errors, 5xx and 429 are tried again; other statuses
// (a bad request will stay bad) are not.
func retryable(err error) bool {
	var se *statusError
	if errors.As(err, &se) {
		return se.code >= 500 || se.code == http.StatusTooManyRequests
	}
	return true
}

func (w *RemoteWriter) post(p push) error {
	ctx, cancel := context.WithTimeout(w.ctx, pushTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.url, bytes.NewReader(p.body))
	if err != nil {
		return &statusError{code: 400, msg: err.Error()}
	}
	req.Header.Set("Content-Encoding", "snappy")
	req.Header.Set("Content-Type", "application/x-protobuf")
	req.Header.Set("User-Agent", "dbrig")
	req.Header.Set("X-Prometheus-Remote-Write-Version", "0.1.0")
	resp, err := w.client.Do(req)
	if err != nil {
		return fmt.Errorf("remote write: %w", err)
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode/100 != 2 {
		return &statusError{code: resp.StatusCode, msg: string(bytes.TrimSpace(msg))}
	}
	return nil
}

// Close pushes the final figures, waits up to grace for the queue to be
// sent, then stops; what is still queued is counted as dropped.
func (w *RemoteWriter) Close(grace time.Duration) RemoteStats {
	w.stopOnce.Do(func() {
		w.Enqueue()
		deadline := time.Now().Add(grace)
		for time.Now().Before(deadline) {
			w.mu.Lock()
			n := len(w.queue)
			w.mu.Unlock()
			if n == 0 {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		close(w.stop)
		w.cancel()
		w.done.Wait()
		w.mu.Lock()
		for _, p := range w.queue {
			w.dropLocked(p, errors.New("not sent when the run ended"))
		}
		w.queue = nil
		w.mu.Unlock()
	})
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stats
}

// TimeSeries turns gathered metric families into remote-write series at
// time ms: counters and gauges as samples, a histogram as its classic
// _bucket/_sum/_count series and, when it has native buckets, as one
// native histogram series under its own name.
func TimeSeries(mfs []*dto.MetricFamily, ms int64) []prompb.TimeSeries {
	var out []prompb.TimeSeries
	for _, mf := range mfs {
		name := mf.GetName()
		for _, m := range mf.GetMetric() {
			base := labelsOf(m)
			switch mf.GetType() {
			case dto.MetricType_COUNTER:
				out = append(out, sample(name, base, m.GetCounter().GetValue(), ms))
			case dto.MetricType_GAUGE:
				out = append(out, sample(name, base, m.GetGauge().GetValue(), ms))
			case dto.MetricType_UNTYPED:
				out = append(out, sample(name, base, m.GetUntyped().GetValue(), ms))
			case dto.MetricType_HISTOGRAM:
				out = append(out, histogramSeries(name, base, m.GetHistogram(), ms)...)
			}
		}
	}
	return out
}

func labelsOf(m *dto.Metric) []prompb.Label {
	ls := make([]prompb.Label, 0, len(m.GetLabel())+2)
	for _, lp := range m.GetLabel() {
		ls = append(ls, prompb.Label{Name: lp.GetName(), Value: lp.GetValue()})
	}
	return ls
}

// series is a time series of name and labels, labels sorted as the
// protocol asks.
func series(name string, base []prompb.Label, extra ...prompb.Label) prompb.TimeSeries {
	ls := make([]prompb.Label, 0, len(base)+len(extra)+1)
	ls = append(ls, prompb.Label{Name: "__name__", Value: name})
	ls = append(ls, base...)
	ls = append(ls, extra...)
	sort.Slice(ls, func(i, j int) bool { return ls[i].Name < ls[j].Name })
	return prompb.TimeSeries{Labels: ls}
}

func sample(name string, base []prompb.Label, v float64, ms int64, extra ...prompb.Label) prompb.TimeSeries {
	ts := series(name, base, extra...)
	ts.Samples = []prompb.Sample{{Value: v, Timestamp: ms}}
	return ts
}

func histogramSeries(name string, base []prompb.Label, h *dto.Histogram, ms int64) []prompb.TimeSeries {
	var out []prompb.TimeSeries
	for _, b := range h.GetBucket() {
		out = append(out, sample(name+"_bucket", base, float64(b.GetCumulativeCount()), ms,
			prompb.Label{Name: "le", Value: formatBound(b.GetUpperBound())}))
	}
	out = append(out,
		sample(name+"_bucket", base, float64(h.GetSampleCount()), ms, prompb.Label{Name: "le", Value: "+Inf"}),
		sample(name+"_sum", base, h.GetSampleSum(), ms),
		sample(name+"_count", base, float64(h.GetSampleCount()), ms))
	if h.Schema == nil {
		return out
	}
	nh := prompb.Histogram{
		Count:          &prompb.Histogram_CountInt{CountInt: h.GetSampleCount()},
		Sum:            h.GetSampleSum(),
		Schema:         h.GetSchema(),
		ZeroThreshold:  h.GetZeroThreshold(),
		ZeroCount:      &prompb.Histogram_ZeroCountInt{ZeroCountInt: h.GetZeroCount()},
		PositiveDeltas: h.GetPositiveDelta(),
		Timestamp:      ms,
	}
	for _, s := range h.GetPositiveSpan() {
		if s.GetLength() == 0 {
			continue // the marker of a histogram without buckets yet
		}
		nh.PositiveSpans = append(nh.PositiveSpans, &prompb.BucketSpan{Offset: s.GetOffset(), Length: s.GetLength()})
	}
	ts := series(name, base)
	ts.Histograms = []prompb.Histogram{nh}
	return append(out, ts)
}

// formatBound writes a bucket bound as Prometheus does in "le".
func formatBound(f float64) string {
	if math.IsInf(f, 1) {
		return "+Inf"
	}
	return fmt.Sprint(f)
}
