package measure

import (
	"slices"
	"testing"
)

func TestPhases(t *testing.T) {
	want := []string{PhaseLoad, PhaseWarmup, PhaseMeasure}
	if got := Phases(); !slices.Equal(got, want) {
		t.Fatalf("Phases() = %q, want %q", got, want)
	}
	Phases()[0] = "changed" // a caller's copy: the list stays
	for i, ph := range want {
		if got := PhaseRank(ph); got != i {
			t.Errorf("PhaseRank(%q) = %d, want %d", ph, got, i)
		}
	}
	for _, p := range []string{"", "Measure", "other"} {
		if got := PhaseRank(p); got != -1 {
			t.Errorf("PhaseRank(%q) = %d, want -1", p, got)
		}
	}
}
