package workers

import (
	"testing"

	"github.com/dbrig/dbrig/measure"
)

// The merge orders phases as measure does: one list of them.
func TestPhaseIndexFollowsMeasure(t *testing.T) {
	phases := measure.Phases()
	for i, ph := range phases {
		if got := phaseIndex(ph); got != i {
			t.Errorf("phaseIndex(%q) = %d, want %d (its place in measure.Phases)", ph, got, i)
		}
	}
	if got := phaseIndex("other"); got < len(phases) {
		t.Errorf("phaseIndex(other) = %d, want after every phase", got)
	}
}
