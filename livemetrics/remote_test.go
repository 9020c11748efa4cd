package livemetrics

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang/snappy"
	"github.com/prometheus/prometheus/prompb"

	"github.com/dbrig/dbrig/measure"
)

// sink is a remote-write endpoint that decodes what it is sent.
type sink struct {
	mu   sync.Mutex
	reqs []prompb.WriteRequest
	fail atomic.Int32 // answer 503 this many more times
}

func (s *sink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.fail.Add(-1) >= 0 {
		http.Error(w, "busy", http.StatusServiceUnavailable)
		return
	}
	if r.Header.Get("Content-Encoding") != "snappy" || r.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "bad headers", http.StatusBadRequest)
		return
	}
	body, _ := io.ReadAll(r.Body)
	raw, err := snappy.Decode(nil, body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req prompb.WriteRequest
	if err := req.Unmarshal(raw); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	s.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func fed() *Metrics {
	m := New()
	m.BeginRun(Run{Experiment: "exp"})
	m.SetRunID("5")
	m.Interval(interval(measure.PhaseMeasure, time.Unix(1_700_000_000, 0), []int64{100, 200, 300, 5000}, 1))
	return m
}

func TestRemoteWriteSendsSeriesAndNativeHistograms(t *testing.T) {
	s := &sink{}
	s.fail.Store(2) // the first two attempts fail: retried, not lost
	srv := httptest.NewServer(s)
	defer srv.Close()
	m := fed()
	w := NewRemoteWriter(srv.URL, time.Hour, m.Registry(), m.Registry())
	w.Start()
	w.Enqueue()
	st := w.Close(10 * time.Second)
	if st.Pushes != 2 || st.Dropped != 0 || st.Retries != 2 {
		t.Fatalf("stats %+v, want 2 pushes (Enqueue, Close), 2 retries, none dropped", st)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	last := s.reqs[len(s.reqs)-1]
	names := map[string]prompb.TimeSeries{}
	for _, ts := range last.Timeseries {
		var name, le string
		for i, l := range ts.Labels {
			if i > 0 && ts.Labels[i-1].Name > l.Name {
				t.Errorf("labels not sorted: %v", ts.Labels)
			}
			switch l.Name {
			case "__name__":
				name = l.Value
			case "le":
				le = l.Value
			}
		}
		if le == "" || le == "+Inf" {
			names[name+le] = ts
		}
	}
	h, ok := names["dbrig_operation_latency_seconds"]
	if !ok || len(h.Histograms) != 1 {
		t.Fatalf("no native histogram series dbrig_operation_latency_seconds: %v", names)
	}
	if c := h.Histograms[0].GetCountInt(); c != 4 || h.Histograms[0].Schema != NativeSchema {
		t.Errorf("native histogram count %d schema %d, want 4 and %d", c, h.Histograms[0].Schema, NativeSchema)
	}
	if ts := names["dbrig_operation_latency_seconds_bucket+Inf"]; len(ts.Samples) != 1 || ts.Samples[0].Value != 4 {
		t.Errorf("classic +Inf bucket %v, want 4", ts.Samples)
	}
	if ts := names["dbrig_operation_latency_seconds_count"]; len(ts.Samples) != 1 || ts.Samples[0].Value != 4 {
		t.Errorf("_count %v, want 4", ts.Samples)
	}
	if _, ok := names["dbrig_remote_write_pushes_total"]; !ok {
		t.Errorf("the writer's own counters are not pushed")
	}
}

// TestRemoteWriteDeadEndpointDrops: nothing listens; pushes queue up to
// the bound, the oldest are dropped and counted, Close returns.
func TestRemoteWriteDeadEndpointDrops(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/api/v1/write"
	ln.Close() // connection refused from now on
	m := fed()
	w := NewRemoteWriter(url, time.Hour, m.Registry(), m.Registry())
	w.Start()
	extra := 10
	for range QueueLen + extra {
		w.Enqueue() // never waits for the network
	}
	st := w.Close(50 * time.Millisecond)
	if st.Pushes != 0 {
		t.Errorf("pushes %d to a dead endpoint", st.Pushes)
	}
	// Every push is dropped in the end: extra at the queue's bound, the
	// rest (and Close's own) when the run ends.
	if st.Dropped != int64(QueueLen+extra+1) || st.DroppedSample == 0 || st.LastErr == nil {
		t.Errorf("stats %+v, want %d dropped with samples and an error", st, QueueLen+extra+1)
	}
}

// TestRemoteWriteRefusedIsNotRetried: a 400 will stay a 400.
func TestRemoteWriteRefusedIsNotRetried(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		http.Error(w, "out of order sample", http.StatusBadRequest)
	}))
	defer srv.Close()
	m := fed()
	w := NewRemoteWriter(srv.URL, time.Hour, m.Registry(), nil)
	w.Start()
	st := w.Close(5 * time.Second)
	if st.Dropped != 1 || st.Retries != 0 || calls.Load() != 1 {
		t.Errorf("stats %+v after %d calls, want 1 dropped, no retry, 1 call", st, calls.Load())
	}
}

// TestRemoteWriteHungEndpoint: an endpoint that accepts and never answers
// holds neither Enqueue nor Close beyond its grace.
func TestRemoteWriteHungEndpoint(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	m := fed()
	w := NewRemoteWriter(srv.URL, time.Hour, m.Registry(), nil)
	w.Start()
	for range 3 {
		w.Enqueue()
	}
	done := make(chan RemoteStats, 1)
	go func() { done <- w.Close(50 * time.Millisecond) }()
	select {
	case st := <-done:
		if st.Pushes != 0 || st.Dropped != 4 {
			t.Errorf("stats %+v, want 4 dropped (3 and Close's own), none sent", st)
		}
	case <-time.After(pushTimeout / 2):
		t.Fatalf("Close still waits on a hung endpoint after %v", pushTimeout/2)
	}
}
