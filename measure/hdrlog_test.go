package measure

import (
	"bytes"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// The log must read back with hdrhistogram-go's reader: same tags, absolute
// start/end times and identical histograms.
func TestLogWriterRoundTrip(t *testing.T) {
	base := time.UnixMilli(1_700_000_000_000)
	r := NewRecorder([]string{"READ", "READ-MODIFY-WRITE"})
	c := r.Shard()
	r.SetStart(base)
	var ivs []Interval
	for sec := 1; sec <= 3; sec++ {
		for k := 0; k < 100*sec; k++ {
			c.Record(Op(k%2), base, base, base.Add(us(int64(k*sec))), nil)
		}
		// The last interval is partial (250 ms).
		end := base.Add(time.Duration(sec) * time.Second)
		if sec == 3 {
			end = base.Add(2250 * time.Millisecond)
		}
		ivs = append(ivs, r.Cut(PhaseMeasure, end))
	}
	var buf bytes.Buffer
	lw, err := NewLogWriter(&buf, base, "dbrig test run")
	if err != nil {
		t.Fatal(err)
	}
	for _, iv := range ivs {
		if err := lw.WriteInterval(iv); err != nil {
			t.Fatal(err)
		}
	}
	text := buf.String()
	for _, want := range []string{"#[Histogram log format version 1.3]", "#[StartTime: 1700000000.000", "#[BaseTime: 1700000000.000", "Tag=READ,0.000,1.000,", "Tag=READ-MODIFY-WRITE,2.000,0.250,"} {
		if !strings.Contains(text, want) {
			t.Errorf("log lacks %q:\n%s", want, text)
		}
	}

	rd := hdr.NewHistogramLogReader(strings.NewReader(text))
	n := 0
	for _, iv := range ivs {
		for _, o := range iv.Ops {
			h, err := rd.NextIntervalHistogram()
			if err != nil || h == nil {
				t.Fatalf("histogram %d: %v, %v", n, h, err)
			}
			n++
			if h.Tag() != o.Op {
				t.Errorf("tag %q, want %q", h.Tag(), o.Op)
			}
			if h.StartTimeMs() != iv.Start.UnixMilli() || h.EndTimeMs() != iv.End.UnixMilli() {
				t.Errorf("%s: times %d..%d, want %d..%d", o.Op, h.StartTimeMs(), h.EndTimeMs(), iv.Start.UnixMilli(), iv.End.UnixMilli())
			}
			if h.TotalCount() != o.Count || StatsOf(h) != StatsOf(o.Response) {
				t.Errorf("%s: read back %+v, wrote %+v", o.Op, StatsOf(h), StatsOf(o.Response))
			}
		}
	}
	if h, _ := rd.NextIntervalHistogram(); h != nil {
		t.Errorf("extra histogram in log")
	}
	if n != 6 {
		t.Errorf("read %d histograms, want 6", n)
	}
}

func TestLogTag(t *testing.T) {
	for in, want := range map[string]string{"READ": "READ", "new order": "new_order", "a,b\n": "a_b_"} {
		if got := logTag(in); got != want {
			t.Errorf("logTag(%q) = %q, want %q", in, got, want)
		}
	}
}
