package sim

import (
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/dbrig/dbrig/spec"
)

const ms = time.Millisecond

// TestPredictClassicValidation is the SickStore validation: an open model at
// λ = 1000 ops/s for N = 90 000 ops against a server of capacity μ = 1250
// ops/s (service S = 0.8 ms, utilisation ρ = 0.8) with one hiccup of H = 1 s
// inside the run.
//
// Hand calculation (fluid approximation): outside the hiccup nobody queues,
// so every op takes S. During the hiccup λH = 1000 ops pile up; afterwards
// the backlog drains at μ − λ = 250 ops/s, i.e. in 4 s, so the disturbed
// period lasts H/(1−ρ) = 5 s and holds λH/(1−ρ) = 5000 ops, whose extra wait
// falls linearly from H to 0: on average H/2 = 0.5 s. So
//
//	mean = S + (λH/(1−ρ) · H/2) / N = 0.8 ms + 2500 s / 90 000 = 28.58 ms
//
// and the p99 is the op at rank 900 from the top of the disturbed ones:
//
//	p99 = S + H · (1 − 0.01·N / (λH/(1−ρ))) = 0.8 ms + 1 s · (1 − 900/5000) = 820.8 ms.
func TestPredictClassicValidation(t *testing.T) {
	const (
		lambda = 1000.0 // arrivals per second
		n      = 90000
		mu     = 1250.0 // capacity
		H      = 1.0    // hiccup seconds
	)
	m := Model{Capacity: mu, Hiccups: []Hiccup{{Start: 10 * time.Second, Duration: time.Duration(H * float64(time.Second))}}}
	p := m.Predict(ConstantArrivals(n, lambda, 0))

	S := 1 / mu
	rho := lambda / mu
	disturbed := lambda * H / (1 - rho)
	wantMean := S + disturbed*H/2/n
	wantP99 := S + H*(1-0.01*n/disturbed)

	if got := p.Mean.Seconds(); math.Abs(got-wantMean) > 0.01*wantMean {
		t.Errorf("mean = %.3f ms, hand calculation %.3f ms (±1%%)", got*1e3, wantMean*1e3)
	}
	if math.Abs(wantMean-0.02858) > 0.00005 {
		t.Errorf("hand calculation drifted: %.4f ms, the classic figure is 28.6 ms", wantMean*1e3)
	}
	if got := p.Percentile(99).Seconds(); math.Abs(got-wantP99) > 0.002 {
		t.Errorf("p99 = %.1f ms, hand calculation %.1f ms (±2 ms)", got*1e3, wantP99*1e3)
	}
	if got := p.Percentile(50); got != m.ServiceTime() {
		t.Errorf("p50 = %v, want the bare service time %v", got, m.ServiceTime())
	}
	if got := p.Max.Seconds(); math.Abs(got-(H+S)) > 0.001 {
		t.Errorf("max = %v, want about H + S = %.4f s", p.Max, H+S)
	}
	t.Logf("mean %v p50 %v p99 %v max %v", p.Mean, p.Percentile(50), p.Percentile(99), p.Max)
}

// Without a hiccup and below capacity nobody waits: every response is S.
func TestPredictNoQueueBelowCapacity(t *testing.T) {
	m := Model{Capacity: 1250, Latency: 100 * time.Microsecond}
	p := m.Predict(ConstantArrivals(5000, 1000, 0))
	want := 800*time.Microsecond + 100*time.Microsecond
	if p.Max != want || p.Percentile(0) != want {
		t.Fatalf("responses %v..%v, want all %v", p.Percentile(0), p.Max, want)
	}
}

// Above capacity the queue grows without bound: op i waits for i ops ahead.
func TestPredictOverload(t *testing.T) {
	m := Model{Capacity: 100} // S = 10 ms
	p := m.Predict(ConstantArrivals(100, 200, 0))
	// op i arrives at 5i ms and is done at 10(i+1) ms: response 5i + 10 ms.
	for i, r := range p.Responses {
		if want := time.Duration(5*i+10) * ms; r != want {
			t.Fatalf("op %d response %v, want %v", i, r, want)
		}
	}
	if p.End != time.Second {
		t.Fatalf("last op done at %v, want 1s", p.End)
	}
}

func TestAdmit(t *testing.T) {
	tests := []struct {
		name     string
		m        Model
		arrivals []time.Duration
		want     []time.Duration // done times
	}{
		{"unlimited, no latency", Model{}, []time.Duration{0, 0, 5 * ms}, []time.Duration{0, 0, 5 * ms}},
		{"unlimited with latency: no queue", Model{Latency: 2 * ms}, []time.Duration{0, 0, 1 * ms}, []time.Duration{2 * ms, 2 * ms, 3 * ms}},
		{"FIFO queue", Model{Capacity: 1000}, []time.Duration{0, 0, 0, 10 * ms}, []time.Duration{1 * ms, 2 * ms, 3 * ms, 11 * ms}},
		{"latency does not occupy the server", Model{Capacity: 1000, Latency: 5 * ms}, []time.Duration{0, 0}, []time.Duration{6 * ms, 7 * ms}},
		{"arrival inside hiccup waits for its end",
			Model{Capacity: 1000, Hiccups: []Hiccup{{10 * ms, 20 * ms}}},
			[]time.Duration{15 * ms, 15 * ms, 40 * ms},
			[]time.Duration{31 * ms, 32 * ms, 41 * ms}},
		{"hiccup suspends the op in service",
			Model{Capacity: 100, Hiccups: []Hiccup{{5 * ms, 20 * ms}}},
			[]time.Duration{0, 0},
			[]time.Duration{30 * ms, 40 * ms}},
		{"op ending exactly at a hiccup's start is not delayed",
			Model{Capacity: 100, Hiccups: []Hiccup{{10 * ms, 20 * ms}}},
			[]time.Duration{0},
			[]time.Duration{10 * ms}},
		{"unlimited capacity still stalls in a hiccup",
			Model{Hiccups: []Hiccup{{10 * ms, 20 * ms}}},
			[]time.Duration{5 * ms, 10 * ms, 29 * ms, 30 * ms},
			[]time.Duration{5 * ms, 30 * ms, 30 * ms, 30 * ms}},
		{"unsorted, overlapping and empty hiccups act as their union",
			Model{Capacity: 100, Hiccups: []Hiccup{{12 * ms, 3 * ms}, {1 * ms, 0}, {5 * ms, 8 * ms}}},
			[]time.Duration{6 * ms},
			[]time.Duration{25 * ms}},
		{"a queue spanning two hiccups",
			Model{Capacity: 100, Hiccups: []Hiccup{{5 * ms, 10 * ms}, {20 * ms, 10 * ms}}},
			[]time.Duration{0, 0},
			[]time.Duration{20 * ms, 40 * ms}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := newQueue(tt.m)
			var got []time.Duration
			for _, a := range tt.arrivals {
				_, done := q.admit(a)
				got = append(got, done)
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("done = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestParseHiccups(t *testing.T) {
	tests := []struct {
		in   string
		want []Hiccup
		bad  bool
	}{
		{in: "", want: nil},
		{in: "10s+1s,40s+500ms", want: []Hiccup{{10 * time.Second, time.Second}, {40 * time.Second, 500 * ms}}},
		{in: " 40s+1s , 10+0.5 ", want: []Hiccup{{10 * time.Second, 500 * ms}, {40 * time.Second, time.Second}}},
		{in: "0+1s,500ms+1s,3s+1s", want: []Hiccup{{0, 1500 * ms}, {3 * time.Second, time.Second}}}, // overlapping merge
		{in: "10s", bad: true},
		{in: "10s+0s", bad: true},
		{in: "-1s+1s", bad: true},
		{in: "ten+1s", bad: true},
		{in: "1s+soon", bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseHiccups(tt.in)
			if tt.bad {
				if err == nil {
					t.Fatalf("got %v, want an error", got)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Fatalf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func TestModelFromProps(t *testing.T) {
	tests := []struct {
		name    string
		props   map[string]string
		want    Model
		badProp string // the property a *spec.PropError must name
	}{
		{name: "defaults", want: Model{}},
		{name: "all set", props: map[string]string{"sim.capacity": "1250", "sim.latency": "100us", "sim.hiccups": "10s+1s"},
			want: Model{Capacity: 1250, Latency: 100 * time.Microsecond, Hiccups: []Hiccup{{10 * time.Second, time.Second}}}},
		{name: "capacity not a number", props: map[string]string{"sim.capacity": "lots"}, badProp: "sim.capacity"},
		{name: "negative capacity", props: map[string]string{"sim.capacity": "-5"}, badProp: "sim.capacity"},
		{name: "infinite capacity", props: map[string]string{"sim.capacity": "+Inf"}, badProp: "sim.capacity"},
		{name: "negative latency", props: map[string]string{"sim.latency": "-1ms"}, badProp: "sim.latency"},
		{name: "bad hiccups", props: map[string]string{"sim.hiccups": "10s-1s"}, badProp: "sim.hiccups"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := spec.NewProps()
			for k, v := range tt.props {
				p.Set(k, v, spec.Source{File: "x.properties", Line: 3})
			}
			m, err := ModelFromProps(p)
			if tt.badProp != "" {
				var pe *spec.PropError
				if !errors.As(err, &pe) || pe.Key != tt.badProp || pe.Src.Line != 3 {
					t.Fatalf("error %v, want a *spec.PropError for %s at x.properties:3", err, tt.badProp)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if m.Capacity != tt.want.Capacity || m.Latency != tt.want.Latency || !slices.Equal(m.Hiccups, tt.want.Hiccups) {
				t.Fatalf("model %+v, want %+v", m, tt.want)
			}
			if err := p.Unknown(); err != nil {
				t.Fatalf("sim.* properties not marked known: %v", err)
			}
		})
	}
}

// M/D/1 check of the Poisson schedule and the queue together: with Poisson
// arrivals at utilisation ρ and a deterministic service S, the mean wait in
// queue is ρS / (2(1−ρ)) (Pollaczek–Khinchine), so the mean response is
// S + ρS/(2(1−ρ)): 1 ms + 2 ms = 3 ms at ρ = 0.8, S = 1 ms.
func TestPredictPoissonMD1(t *testing.T) {
	const rate, capacity = 800.0, 1000.0
	arr := PoissonArrivals(400000, rate, 0, 42)
	if !slices.Equal(arr[:100], PoissonArrivals(100, rate, 0, 42)) {
		t.Fatal("the same seed gave a different schedule")
	}
	if got := arr[len(arr)-1].Seconds() / float64(len(arr)); math.Abs(got*rate-1) > 0.01 {
		t.Fatalf("mean inter-arrival %.4f ms, want %.4f ms", got*1e3, 1e3/rate)
	}
	p := Model{Capacity: capacity}.Predict(arr)
	S, rho := 1/capacity, rate/capacity
	want := S + rho*S/(2*(1-rho))
	if got := p.Mean.Seconds(); math.Abs(got-want) > 0.05*want {
		t.Fatalf("mean response %.3f ms, M/D/1 gives %.3f ms (±5%%)", got*1e3, want*1e3)
	}
}
