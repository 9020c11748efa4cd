package workers

import (
	"testing"

	"github.com/dbrig/dbrig/measure"
)

// Each worker runs its share of the target rate: the merged interval asks
// for the sum of the shares of the workers that sent it (a lost worker's
// share is not asked for any more), per phase and second.
func TestMergeTargetRates(t *testing.T) {
	shares := []float64{100, 250, 650} // 1,000 ops/s split unevenly
	var got []measure.Interval
	m := newMerger(len(shares), func(iv measure.Interval) { got = append(got, iv) })
	for seq := 0; seq < 3; seq++ {
		for w, rate := range shares {
			if w == 2 && seq == 2 {
				continue // worker 2 is lost before its third second
			}
			iv := synthetic(w, seq, measure.PhaseMeasure, 10)
			iv.TargetRate = rate
			if seq == 1 {
				iv.TargetRate = 2 * rate // a schedule's step: every share doubles
			}
			send(t, m, w, seq, iv)
		}
	}
	m.lose(2)
	m.close()
	want := []float64{1000, 2000, 350}
	if len(got) != len(want) {
		t.Fatalf("%d merged intervals, want %d", len(got), len(want))
	}
	for i, iv := range got {
		if iv.TargetRate != want[i] {
			t.Errorf("merged second %d asks for %g ops/s, want %g (the shares of the workers that sent it)", i, iv.TargetRate, want[i])
		}
	}
}
