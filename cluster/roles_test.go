package cluster

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"
)

// The leader is asked from etcd; after it is killed another member leads;
// restarted on its data dir, the killed member is ready again and all three
// serve.
func TestEtcdRolesKillAndRestart(t *testing.T) {
	c := up(t, Etcd{}, Options{Dir: t.TempDir()})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	leaders, err := c.Resolve(ctx, "leader")
	if err != nil || len(leaders) != 1 {
		t.Fatalf("leader: %v, %v", leaders, err)
	}
	followers, err := c.Resolve(ctx, "all-follower")
	if err != nil || len(followers) != 2 {
		t.Fatalf("all-follower: %v, %v", followers, err)
	}
	if one, _ := c.Resolve(ctx, "follower"); len(one) != 1 {
		t.Errorf("follower (one node of the role) gave %d nodes", len(one))
	}
	old := leaders[0]
	if err := syscall.Kill(old.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var next []Node
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if next, err = c.Resolve(ctx, "leader"); err == nil && next[0].Name != old.Name {
			break
		}
	}
	if len(next) != 1 || next[0].Name == old.Name {
		t.Fatalf("no new leader after killing %s: %v, %v", old.Name, next, err)
	}
	n, err := c.Restart(ctx, old.Name)
	if err != nil || n.PID == old.PID || !n.Alive() {
		t.Fatalf("restart %s: %+v, %v", old.Name, n, err)
	}
	if all, err := c.Resolve(ctx, "all-member"); err != nil || len(all) != 3 {
		t.Errorf("after the restart: %d members alive (%v), want 3", len(all), err)
	}
	if _, err := c.Resolve(ctx, "primary"); !errors.Is(err, ErrNoTarget) {
		t.Errorf("etcd has no primary, but: %v", err)
	}
	if err := c.Down(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n.Alive() {
		t.Errorf("restarted node %s (pid %d) outlived Down", n.Name, n.PID)
	}
}
