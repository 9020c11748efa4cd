package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/analysis"
	"github.com/dbrig/dbrig/format"
)

func TestImpactsShareLine(t *testing.T) {
	im := analysis.Impact{Fault: "kill-etcd2", Detail: "kill etcd2", Outcome: "injected",
		Shares: []analysis.NodeShare{{Node: "etcd1", Baseline: 33.4, During: 49.6, After: 50}, {Node: "etcd2", Baseline: 33.3, During: 0.4, After: -1}}}
	want := "etcd1 33% → 50% → 50%, etcd2 33% → 0% → –"
	if got := ShareLine(im); got != want {
		t.Errorf("ShareLine = %q, want %q", got, want)
	}
	var b bytes.Buffer
	if err := Impacts(&b, []analysis.Impact{im}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "client traffic by node, before → during → after: "+want) {
		t.Errorf("impact table without the shares:\n%s", b.String())
	}
	im.Shares = nil
	if ShareLine(im) != "" {
		t.Error("no shares: want an empty line")
	}
}

func TestImpactsLagLine(t *testing.T) {
	d := 92 * time.Millisecond
	im := analysis.Impact{Lags: []analysis.ReplicaLag{{Node: "pg-replica1", Normal: 12 * 1024, Max: 448 * 1024, CaughtUp: &d}, {Node: "pg-replica2", Max: 2048}}}
	want := "pg-replica1 at most 448 KiB (normal 12 KiB), back within normal " + format.MicrosInt(92000) + " after the fault ended; " +
		"pg-replica2 at most 2 KiB (normal 0 KiB), not back within normal before the window ended"
	if got := LagLine(im); got != want {
		t.Errorf("LagLine = %q\nwant %q", got, want)
	}
	var b bytes.Buffer
	if err := Impacts(&b, []analysis.Impact{im}); err != nil || !strings.Contains(b.String(), "replication lag: "+want) {
		t.Errorf("impact table without the lag: %v\n%s", err, b.String())
	}
}
