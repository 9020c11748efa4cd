package scenario

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/inject"
)

func TestRandomTarget(t *testing.T) {
	for _, tc := range []struct {
		target     string
		n          int
		role       string
		random, ok bool
	}{
		{"random-follower", 1, "follower", true, true},
		{"random-2-follower", 2, "follower", true, true},
		{"random-3-any", 3, "any", true, true},
		{"random-0-follower", 0, "", true, false},
		{"random-100-member", 0, "", true, false},
		{"random-2-boss", 0, "", true, false},
		{"random-", 0, "", true, false},
		{"etcd1", 0, "", false, true},
		{"all-follower", 0, "", false, true},
	} {
		n, role, random, err := randomTarget(tc.target)
		if random != tc.random || (err == nil) != tc.ok || n != tc.n || role != tc.role {
			t.Errorf("%s: got %d %q random=%v err=%v", tc.target, n, role, random, err)
		}
	}
}

// fakeNodes is a cluster of named nodes with static roles.
type fakeNodes []cluster.Node

func (f fakeNodes) Resolve(_ context.Context, target string) ([]cluster.Node, error) {
	var out []cluster.Node
	role, all := strings.CutPrefix(target, "all-")
	for _, n := range f {
		if n.Name == target || n.Role == role || target == "all" {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return nil, cluster.ErrNoTarget
	}
	if !all && target != "all" {
		out = out[:1]
	}
	return out, nil
}

func (f fakeNodes) Restart(context.Context, string) (cluster.Node, error) { return cluster.Node{}, nil }

func names(ns []cluster.Node) string {
	var s []string
	for _, n := range ns {
		s = append(s, n.Name)
	}
	return strings.Join(s, ",")
}

// The choice is seeded: the same seed and name pick the same nodes
// whatever order the cluster lists them in; over many seeds every node is
// picked, about equally often; never more nodes than live.
func TestPickRandom(t *testing.T) {
	var c fakeNodes
	for i := 1; i <= 5; i++ {
		c = append(c, cluster.Node{Name: fmt.Sprintf("n%d", i), Role: "member"})
	}
	reversed := slices.Clone(c)
	slices.Reverse(reversed)
	ctx := context.Background()
	counts := map[string]int{}
	for seed := int64(0); seed < 500; seed++ {
		a, err := resolveRandom(ctx, c, 2, "member", seed, "kill")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := resolveRandom(ctx, reversed, 2, "member", seed, "kill")
		if names(a) != names(b) || len(a) != 2 || a[0].Name == a[1].Name {
			t.Fatalf("seed %d: %s, then %s from the reversed list", seed, names(a), names(b))
		}
		for _, n := range a {
			counts[n.Name]++
		}
	}
	for _, n := range c {
		// 500 draws of 2 of 5: 200 each expected; 130 is far out (p < 1e-6).
		if counts[n.Name] < 130 || counts[n.Name] > 270 {
			t.Errorf("picked %v: not spread evenly", counts)
		}
	}
	one, _ := resolveRandom(ctx, c, 1, "member", 7, "a")
	other, _ := resolveRandom(ctx, c, 1, "member", 7, "b")
	t.Logf("seed 7: fault a hits %s, fault b %s", names(one), names(other))
	if _, err := resolveRandom(ctx, c, 6, "member", 1, "x"); err == nil || !strings.Contains(err.Error(), "only 5 live member") {
		t.Errorf("6 of 5 members: %v", err)
	}
	if got, _ := resolveRandom(ctx, c, 5, "any", 3, "x"); len(got) != 5 {
		t.Errorf("random-5-any picked %s", names(got))
	}
}

// The injector hits the nodes the seed picks, and says so in its event.
func TestInjectorRandomTarget(t *testing.T) {
	var c fakeNodes
	for i := 1; i <= 3; i++ {
		c = append(c, cluster.Node{Name: fmt.Sprintf("m%d", i), Role: "member", PID: 1 << 22})
	}
	cmd, err := inject.NewCommand("true", "")
	if err != nil {
		t.Fatal(err)
	}
	evs := newEvents()
	in := newInjector([]Injection{{Name: "r", Fault: cmd, Target: "random-2-member", At: 0}}, c, nil, evs.emit)
	in.seed = 11
	done := make(chan struct{})
	go func() { defer close(done); in.Run(context.Background()) }()
	in.MeasureStarted(time.Now())
	ev := evs.next(t, EventFault)
	<-done
	want := pickRandom(c, 2, 11, "r")
	for _, n := range want {
		if !strings.Contains(ev.Detail, n.Name+" (member") {
			t.Errorf("event %q does not name %s (the seed's pick %s)", ev.Detail, n.Name, names(want))
		}
	}
	if ev.Outcome != "injected" {
		t.Errorf("outcome %q", ev.Outcome)
	}
}

func TestScenarioRandomBadInput(t *testing.T) {
	e, path := scenarioFile(t, `
  - {fault: kill, target: random-0-follower, at: 1s}`)
	_, err := scenarioPlan(e, 30*time.Second)
	if err == nil || !strings.Contains(err.Error(), filepath.Base(path)+":9:") || !strings.Contains(err.Error(), "N must be 1 to 99") {
		t.Errorf("error %v", err)
	}
	e, _ = scenarioFile(t, `
  - {fault: pause, target: random-2-follower, at: 1s, for: 5s}
  - {fault: pause, target: random-2-follower, at: 2s, for: 1s}`)
	if _, err := scenarioPlan(e, 30*time.Second); err != nil {
		t.Errorf("random targets are resolved when they fire, no overlap check: %v", err)
	}
}
