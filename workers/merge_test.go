package workers

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/workers/wire"
)

// synthetic returns worker w's interval seq of phase, with ops random
// operations (deterministic by the arguments).
func synthetic(w, seq int, phase string, ops int) measure.Interval {
	r := rand.New(rand.NewPCG(uint64(w), uint64(seq)))
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(seq) * time.Second)
	iv := measure.Interval{Phase: phase, Start: base.Add(time.Duration(w) * time.Millisecond), End: base.Add(time.Second + time.Duration(w)*time.Millisecond),
		Dropped: int64(w), TargetRate: 10, Lag: measure.NewHistogram()}
	for _, name := range []string{"READ", "UPDATE"} {
		o := measure.OpInterval{Op: name, Response: measure.NewHistogram(), Service: measure.NewHistogram()}
		for i := 0; i < ops; i++ {
			v := 1 + r.Int64N(50_000)
			_ = o.Response.RecordValue(v)
			_ = o.Service.RecordValue(v / 2)
			_ = iv.Lag.RecordValue(r.Int64N(100))
			o.Count++
			if r.IntN(50) == 0 {
				o.Errors++
				o.Classes = map[string]int64{"timeout": o.Errors}
			}
		}
		iv.Ops = append(iv.Ops, o)
	}
	return iv
}

// send merges a synthetic interval through the wire path, as the
// coordinator does.
func send(t testing.TB, m *merger, w, seq int, iv measure.Interval) {
	wi, err := wire.FromInterval(iv, seq)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.addWire(w, wi, 0); err != nil {
		t.Fatal(err)
	}
}

func TestMergeExact(t *testing.T) {
	const n, secs = 4, 3
	var got []measure.Interval
	m := newMerger(n, func(iv measure.Interval) { got = append(got, iv) })
	want := make([]measure.Interval, secs)
	// Workers send at their own pace: worker w is w seconds behind.
	for step := 0; step < secs+n; step++ {
		for w := 0; w < n; w++ {
			seq := step - w
			if seq < 0 || seq >= secs {
				continue
			}
			iv := synthetic(w, seq, measure.PhaseMeasure, 100+w)
			if want[seq].Phase == "" || iv.Start.Before(want[seq].Start) {
				want[seq].Phase, want[seq].Start = iv.Phase, iv.Start
			}
			if iv.End.After(want[seq].End) {
				want[seq].End = iv.End
			}
			send(t, m, w, seq, iv)
		}
		// Nothing is emitted before every worker sent it.
		if wantOut := max(0, step-n+2); len(got) != min(wantOut, secs) {
			t.Fatalf("after step %d: %d merged intervals, want %d", step, len(got), min(wantOut, secs))
		}
	}
	if len(got) != secs {
		t.Fatalf("%d merged intervals, want %d", len(got), secs)
	}
	var total int64
	for seq, iv := range got {
		var sum int64
		for _, o := range iv.Ops {
			sum += o.Count
			var fromWorkers int64
			h, hs := measure.NewHistogram(), measure.NewHistogram()
			for w := 0; w < n; w++ {
				for _, wo := range synthetic(w, seq, measure.PhaseMeasure, 100+w).Ops {
					if wo.Op == o.Op {
						fromWorkers += wo.Count
						h.Merge(wo.Response)
						hs.Merge(wo.Service)
					}
				}
			}
			if !reflect.DeepEqual(o.Service.Export().Counts, hs.Export().Counts) {
				t.Errorf("seq %d %s: merged service histogram differs from the sum of the workers'", seq, o.Op)
			}
			if o.Count != fromWorkers || o.Response.TotalCount() != fromWorkers {
				t.Errorf("seq %d %s: count %d (histogram %d), workers sent %d", seq, o.Op, o.Count, o.Response.TotalCount(), fromWorkers)
			}
			if !reflect.DeepEqual(o.Response.Export().Counts, h.Export().Counts) {
				t.Errorf("seq %d %s: merged histogram differs from the sum of the workers' bucket by bucket", seq, o.Op)
			}
		}
		total += sum
		if iv.Dropped != 0+1+2+3 || iv.TargetRate != 40 {
			t.Errorf("seq %d: dropped %d target %g, want 6 and 40", seq, iv.Dropped, iv.TargetRate)
		}
		if !iv.Start.Equal(want[seq].Start) || !iv.End.Equal(want[seq].End) {
			t.Errorf("seq %d spans %v–%v, want the earliest start and latest end", seq, iv.Start, iv.End)
		}
	}
	if total != secs*2*(100+101+102+103) {
		t.Errorf("merged %d operations, want %d", total, secs*2*(100+101+102+103))
	}
}

func TestMergeLostAndEnded(t *testing.T) {
	tests := []struct {
		name  string
		feed  func(m *merger, add func(w, seq int, iv measure.Interval))
		wants []int // merged seqs emitted, in order
	}{
		{"a silent worker holds the merge", func(m *merger, add func(w, seq int, iv measure.Interval)) {
			add(0, 0, synthetic(0, 0, "measure", 1))
			add(0, 1, synthetic(0, 1, "measure", 1))
		}, nil},
		{"a lost worker does not", func(m *merger, add func(w, seq int, iv measure.Interval)) {
			add(0, 0, synthetic(0, 0, "measure", 1))
			add(0, 1, synthetic(0, 1, "measure", 1))
			m.lose(1)
		}, []int{0, 1}},
		{"a worker that ended the phase does not", func(m *merger, add func(w, seq int, iv measure.Interval)) {
			add(1, 0, synthetic(1, 0, "measure", 1))
			add(0, 0, synthetic(0, 0, "measure", 1))
			add(0, 1, synthetic(0, 1, "measure", 1))
			m.endPhase(1, "measure")
		}, []int{0, 1}},
		{"a worker in the next phase covers the last one", func(m *merger, add func(w, seq int, iv measure.Interval)) {
			add(0, 0, synthetic(0, 0, "warmup", 1))
			add(1, 0, synthetic(1, 0, "measure", 1))
			add(0, 0, synthetic(0, 0, "measure", 1))
		}, []int{0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []int
			var m *merger
			m = newMerger(2, func(iv measure.Interval) {
				got = append(got, int(iv.Start.Sub(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))/time.Second))
			})
			tt.feed(m, func(w, seq int, iv measure.Interval) { send(t, m, w, seq, iv) })
			if !reflect.DeepEqual(got, tt.wants) {
				t.Errorf("emitted seqs %v, want %v", got, tt.wants)
			}
		})
	}
}

// BenchmarkMerge256 merges 256 workers' synthetic intervals (one each,
// two op types) already decoded, with hdrhistogram-go's Merge: what
// merging cost before AddEncodedHistogram, for comparison with
// BenchmarkReceiveMerge256.
func BenchmarkMerge256(b *testing.B) {
	const n = 256
	ivs := make([]measure.Interval, n)
	for w := range ivs {
		ivs[w] = synthetic(w, 0, measure.PhaseMeasure, 200)
	}
	b.ReportAllocs()
	b.ResetTimer()
	merged := 0
	for i := 0; i < b.N; i++ {
		m := newMerger(n, func(measure.Interval) { merged++ })
		for w := range ivs {
			legacyAdd(m, w, 0, ivs[w])
		}
	}
	if merged != b.N {
		b.Fatalf("%d merged intervals, want %d", merged, b.N)
	}
}

// BenchmarkReceiveMerge256 is what the coordinator does per second of 256
// workers: each worker's interval frame is parsed (JSON) and its encoded
// histograms added straight into the merged interval (ns/op = per merged
// interval of 256 workers).
func BenchmarkReceiveMerge256(b *testing.B) {
	const n = 256
	frames := make([][]byte, n)
	for w := range frames {
		wi, err := wire.FromInterval(synthetic(w, 0, measure.PhaseMeasure, 200), 0)
		if err != nil {
			b.Fatal(err)
		}
		if frames[w], err = json.Marshal(&wire.Msg{Interval: wi}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	merged := 0
	for i := 0; i < b.N; i++ {
		m := newMerger(n, func(measure.Interval) { merged++ })
		for w, f := range frames {
			msg, err := wire.Decode(f)
			if err != nil {
				b.Fatal(err)
			}
			if err := m.addWire(w, msg.Interval, 0); err != nil {
				b.Fatal(err)
			}
		}
	}
	if merged != b.N {
		b.Fatalf("%d merged intervals, want %d", merged, b.N)
	}
}

// legacyAdd merges a decoded interval with hdrhistogram-go's Merge (the
// reference BenchmarkMerge256 measures).
func legacyAdd(m *merger, w, seq int, iv measure.Interval) {
	k := slotKey{phaseIndex(iv.Phase), seq}
	s := m.pending[k]
	if s == nil {
		s = &slot{iv: measure.Interval{Phase: iv.Phase, Start: iv.Start, End: iv.End}, from: make([]bool, m.n)}
		m.pending[k] = s
	}
	dst := &s.iv
	if iv.Lag != nil {
		if dst.Lag == nil {
			dst.Lag = measure.NewHistogram()
		}
		dst.Lag.Merge(iv.Lag)
	}
	for _, o := range iv.Ops {
		i := 0
		for i < len(dst.Ops) && dst.Ops[i].Op != o.Op {
			i++
		}
		if i == len(dst.Ops) {
			dst.Ops = append(dst.Ops, measure.OpInterval{Op: o.Op, Response: measure.NewHistogram(), Service: measure.NewHistogram()})
		}
		dst.Ops[i].Count += o.Count
		dst.Ops[i].Response.Merge(o.Response)
		dst.Ops[i].Service.Merge(o.Service)
	}
	s.from[w] = true
	if m.pos[w].less(k) {
		m.pos[w] = k
	}
	m.flush()
}
