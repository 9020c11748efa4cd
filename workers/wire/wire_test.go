package wire

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbrig/dbrig/measure"
)

func hist(vals ...int64) *hdr.Histogram {
	h := measure.NewHistogram()
	for _, v := range vals {
		_ = h.RecordValue(v)
	}
	return h
}

func TestIntervalRoundTrip(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC)
	iv := measure.Interval{Phase: measure.PhaseMeasure, Start: start, End: start.Add(time.Second), Dropped: 3, Late: 1, Backlog: 7, TargetRate: 250.5,
		Lag: hist(5, 17, 900),
		Ops: []measure.OpInterval{
			{Op: "READ", Count: 4, Errors: 1, Classes: map[string]int64{"timeout": 1}, Response: hist(10, 20, 30, 4000), Service: hist(9, 19, 29, 39)},
			{Op: "UPDATE", Count: 1, Response: hist(77), Service: hist(70)},
		}}
	w, err := FromInterval(iv, 12)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := NewWriter(&buf, nil).Write(&Msg{Interval: w}); err != nil {
		t.Fatal(err)
	}
	m, err := NewReader(&buf).Read()
	if err != nil {
		t.Fatal(err)
	}
	if m.Kind() != "interval" || m.Interval.Seq != 12 {
		t.Fatalf("read %s seq %d, want interval 12", m.Kind(), m.Interval.Seq)
	}
	offset := 1500 * time.Microsecond // the worker's clock is ahead
	got, err := m.Interval.ToInterval(offset)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Start.Equal(start.Add(-offset)) || !got.End.Equal(start.Add(time.Second-offset)) {
		t.Errorf("times %v–%v, want shifted by -%v", got.Start, got.End, offset)
	}
	if got.Dropped != 3 || got.Late != 1 || got.Backlog != 7 || got.TargetRate != 250.5 {
		t.Errorf("counters %+v", got)
	}
	if !reflect.DeepEqual(got.Lag.Export().Counts, iv.Lag.Export().Counts) {
		t.Error("lag histogram changed on the wire")
	}
	for i, o := range iv.Ops {
		g := got.Ops[i]
		if g.Op != o.Op || g.Count != o.Count || g.Errors != o.Errors || !reflect.DeepEqual(g.Classes, o.Classes) {
			t.Errorf("op %d = %+v, want %+v", i, g, o)
		}
		if !reflect.DeepEqual(g.Response.Export().Counts, o.Response.Export().Counts) || !reflect.DeepEqual(g.Service.Export().Counts, o.Service.Export().Counts) {
			t.Errorf("op %s histograms changed on the wire", o.Op)
		}
	}
	if _, err := NewReader(&buf).Read(); !errors.Is(err, io.EOF) {
		t.Errorf("read at the end = %v, want io.EOF", err)
	}
}

func TestDecode(t *testing.T) {
	tests := []struct {
		line string
		kind string // "" = refused
	}{
		{`{"heartbeat":{}}`, "heartbeat"},
		{`{"ping":{"seq":1,"sent":"2026-01-02T03:04:05Z"}}`, "ping"},
		{`{"done":{"err":"boom"}}`, "done"},
		{`{"assign":{"Index":1}}`, "assign"},
		{`{"start":{"what":"load","at":"2026-01-02T03:04:05Z"}}`, "start"},
		{`{}`, ""},
		{`{"ping":{"seq":1},"done":{}}`, ""},
		{`{"heartbeat":null}`, ""},
		{`not json`, ""},
		{`{"interval":{"seq":"x"}}`, ""},
	}
	for _, tt := range tests {
		m, err := Decode([]byte(tt.line))
		switch {
		case tt.kind == "" && !errors.Is(err, ErrFrame):
			t.Errorf("Decode(%s) = %v, %v; want ErrFrame", tt.line, m, err)
		case tt.kind != "" && (err != nil || m.Kind() != tt.kind):
			t.Errorf("Decode(%s) = %v, %v; want %s", tt.line, m, err, tt.kind)
		}
	}
}

func TestBadHistogramRefused(t *testing.T) {
	w := &Interval{Phase: "measure", Ops: []Op{{Op: "READ", Count: 1, Response: []byte("garbage"), Service: []byte("x")}}}
	if _, err := w.ToInterval(0); err == nil {
		t.Error("ToInterval accepted a garbage histogram")
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"heartbeat":{}}`))
	f.Add([]byte(`{"interval":{"phase":"measure","seq":3,"ops":[{"op":"READ","count":1,"response":"AAAA","service":"AAAA"}]}}`))
	f.Add([]byte(`{"pong":{"seq":0}}`))
	f.Add([]byte(`{"phase_done":{"phase":"load","records":5}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Decode(b)
		if err != nil {
			if !errors.Is(err, ErrFrame) {
				t.Fatalf("Decode error %v is not ErrFrame", err)
			}
			return
		}
		if m.Kind() == "" {
			t.Fatal("Decode accepted a frame of no kind")
		}
		if m.Interval != nil {
			_, _ = m.Interval.ToInterval(0) // must not panic
			var dst measure.Interval
			_ = m.Interval.AddTo(&dst, 0)
		}
	})
}

// The sender's p99 of an interval covers every operation: 99 fast reads
// and 2 slow updates put it in the updates' range, where neither op's own
// p99 alone would say so for the reads.
func TestIntervalRespP99(t *testing.T) {
	reads := make([]int64, 98)
	for i := range reads {
		reads[i] = 100
	}
	iv := measure.Interval{Phase: measure.PhaseMeasure, Ops: []measure.OpInterval{
		{Op: "READ", Count: 98, Response: hist(reads...), Service: hist(reads...)},
		{Op: "UPDATE", Count: 2, Response: hist(50000, 50000), Service: hist(50000, 50000)},
	}}
	w, err := FromInterval(iv, 0)
	if err != nil {
		t.Fatal(err)
	}
	if w.RespP99 < 49000 || w.RespP99 > 51000 {
		t.Errorf("RespP99 = %d µs, want about 50000 (the updates)", w.RespP99)
	}
	if w, err := FromInterval(measure.Interval{Phase: measure.PhaseMeasure}, 0); err != nil || w.RespP99 != 0 {
		t.Errorf("empty interval: RespP99 = %d, %v; want 0", w.RespP99, err)
	}
}
