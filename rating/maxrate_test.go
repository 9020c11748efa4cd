package rating

import (
	"strings"
	"testing"

	"github.com/dbrig/dbrig/run"
)

// A rate search stays within what one process can pace: it is the default
// upper bound, and a larger one is refused before anything runs.
func TestSearchWithinMaxRate(t *testing.T) {
	o := Options{SLADuration: 10e9}
	o.SLA.Terms = append(o.SLA.Terms, mustSLA(t, "p95<10ms").Terms...)
	if err := o.check(); err != nil || o.Max != run.MaxRate {
		t.Errorf("default upper bound %g (%v), want %g", o.Max, err, float64(run.MaxRate))
	}
	o = Options{SLADuration: 10e9, Max: 1e9}
	o.SLA.Terms = append(o.SLA.Terms, mustSLA(t, "p95<10ms").Terms...)
	if err := o.check(); err == nil || !strings.Contains(err.Error(), "paces at most") {
		t.Errorf("--max 1e9: %v", err)
	}
}
