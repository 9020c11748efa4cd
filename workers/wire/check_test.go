package wire

import (
	"math"
	"testing"
)

// Every figure a worker sends is checked before it is merged: counts ≥ 0,
// errors within the count, known operations and phases.
func TestIntervalCheck(t *testing.T) {
	ops := []string{"READ", "UPDATE", "load"} // the caller adds run.LoadOp
	good := func() *Interval {
		return &Interval{Phase: "measure", Ops: []Op{{Op: "READ", Count: 10, Errors: 1}}}
	}
	cases := []struct {
		name string
		mod  func(*Interval)
		ok   bool
	}{
		{"good", func(*Interval) {}, true},
		{"load op in the load phase", func(iv *Interval) { iv.Phase = "load"; iv.Ops[0].Op = "load" }, true},
		{"negative count", func(iv *Interval) { iv.Ops[0].Count = -2992594173 }, false},
		{"negative errors", func(iv *Interval) { iv.Ops[0].Errors = -1 }, false},
		{"more errors than operations", func(iv *Interval) { iv.Ops[0].Errors = 11 }, false},
		{"negative class", func(iv *Interval) { iv.Ops[0].Classes = map[string]int64{"timeout": -1} }, false},
		{"unknown operation", func(iv *Interval) { iv.Ops[0].Op = "DROP TABLE" }, false},
		{"unknown phase", func(iv *Interval) { iv.Phase = "bogus" }, false},
		{"negative seq", func(iv *Interval) { iv.Seq = -1 }, false},
		{"negative dropped", func(iv *Interval) { iv.Dropped = -5 }, false},
		{"negative late", func(iv *Interval) { iv.Late = -5 }, false},
		{"NaN rate", func(iv *Interval) { iv.TargetRate = math.NaN() }, false},
	}
	for _, tc := range cases {
		iv := good()
		tc.mod(iv)
		if err := iv.Check(ops); (err == nil) != tc.ok {
			t.Errorf("%s: %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
	if err := (&PhaseDone{Phase: "load", Records: -1}).Check(); err == nil {
		t.Error("PhaseDone with negative records accepted")
	}
}
