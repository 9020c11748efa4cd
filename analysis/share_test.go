package analysis

import (
	"math"
	"testing"
	"time"

	"github.com/dbrig/dbrig/results"
)

// By hand: baseline seconds 1-2 (a:100+100, b:300+300 → a 25 %, b 75 %);
// the fault's second 3 (a: 50, b: 0 → a 100 %, b 0 %); after, seconds 4-5
// (no traffic at second 4; at 5 a: 10, b: 20, c: 10 → 25 %, 50 %, 25 %).
// A node first seen later gets 0 % of the earlier windows.
func TestShares(t *testing.T) {
	s := func(node string, sec int, up, down int64) results.NodeTraffic {
		return results.NodeTraffic{Node: node, T: time.Duration(sec) * time.Second, BytesUp: up, BytesDown: down}
	}
	traffic := []results.NodeTraffic{
		s("a", 1, 60, 40), s("b", 1, 100, 200),
		s("a", 2, 100, 0), s("b", 2, 300, 0),
		s("a", 3, 25, 25), s("b", 3, 0, 0),
		s("a", 4, 0, 0), s("b", 4, 0, 0), s("c", 4, 0, 0),
		s("a", 5, 10, 0), s("b", 5, 0, 20), s("c", 5, 5, 5),
	}
	got := shares(traffic, [3]span{{0, 2 * time.Second}, {2 * time.Second, 3 * time.Second}, {3 * time.Second, 6 * time.Second}})
	want := []NodeShare{{"a", 25, 100, 25}, {"b", 75, 0, 50}, {"c", 0, 0, 25}}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Node != w.Node || math.Abs(g.Baseline-w.Baseline) > 1e-9 || math.Abs(g.During-w.During) > 1e-9 || math.Abs(g.After-w.After) > 1e-9 {
			t.Errorf("%d: got %+v, want %+v", i, g, w)
		}
	}
	// A window without any traffic: −1, not a division by zero.
	none := shares([]results.NodeTraffic{s("a", 1, 0, 0), s("a", 4, 10, 0)}, [3]span{{0, 2 * time.Second}, {2 * time.Second, 3 * time.Second}, {3 * time.Second, 4 * time.Second}})
	if len(none) != 1 || none[0].Baseline != -1 || none[0].During != -1 || none[0].After != 100 {
		t.Errorf("no traffic: %+v", none)
	}
	if shares(nil, [3]span{}) != nil {
		t.Error("no samples: want nil")
	}
}

// Sentinels' bytes are no share of the load; with only those, or no bytes
// at all, there is no share to tell.
func TestDataTraffic(t *testing.T) {
	traffic := []results.NodeTraffic{{Node: "redis-primary", T: time.Second}, {Node: "sentinel1", T: time.Second, BytesUp: 500, BytesDown: 900}}
	nodes := []results.Node{{Name: "redis-primary", Role: "primary"}, {Name: "sentinel1", Role: "sentinel"}}
	data := dataTraffic(traffic, nodes)
	if len(data) != 1 || data[0].Node != "redis-primary" {
		t.Fatalf("data traffic %+v", data)
	}
	if got := shares(data, [3]span{{0, 2 * time.Second}, {2 * time.Second, 3 * time.Second}, {3 * time.Second, 4 * time.Second}}); got != nil {
		t.Errorf("shares of no bytes: %+v, want none", got)
	}
	if got := dataTraffic(traffic, nil); len(got) != 2 {
		t.Errorf("without node roles: %+v", got)
	}
}
