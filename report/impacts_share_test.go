package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/dbrig/dbrig/analysis"
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
