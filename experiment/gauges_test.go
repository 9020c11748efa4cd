package experiment

import (
	"testing"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/results"
)

// A recipe's gauge names are the ones the store and analysis know.
func TestGaugeNames(t *testing.T) {
	if cluster.GaugeReplayLag != results.GaugeReplayLag {
		t.Errorf("cluster.GaugeReplayLag %q, results.GaugeReplayLag %q", cluster.GaugeReplayLag, results.GaugeReplayLag)
	}
}
