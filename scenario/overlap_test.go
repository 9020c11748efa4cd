package scenario

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/cluster"
)

func TestPlannedOverlaps(t *testing.T) {
	etcd := []cluster.PlannedNode{{Name: "etcd1", Role: "member"}, {Name: "etcd2", Role: "member"}, {Name: "etcd3", Role: "member"}}
	redis := []cluster.PlannedNode{{Name: "redis-primary", Role: "primary"}, {Name: "redis-replica1", Role: "replica"},
		{Name: "redis-replica2", Role: "replica"}, {Name: "sentinel1", Role: "sentinel"}}
	for _, tc := range []struct {
		name     string
		nodes    []cluster.PlannedNode
		scenario string
		msg      string // "" accepted
	}{
		{"all members paused while one is killed", etcd, `
  - {fault: pause, target: all-member, at: 1s, for: 5s}
  - {fault: kill, target: etcd2, at: 3s}`, ":10:" + "|etcd2 (the target of all-member and of etcd2) is under"},
		{"anything after a kill, on all", etcd, `
  - {fault: kill, target: etcd2, at: 1s}
  - {fault: pause, target: all, at: 5s, for: 1s}`, ":10:" + "|etcd2 (the target of etcd2 and of all) is down for the rest of the run"},
		{"the only primary, by role and by name", redis, `
  - {fault: pause, target: primary, at: 1s, for: 5s}
  - {fault: stop, target: redis-primary, at: 2s}`, ":10:" + "|redis-primary (the target of primary and of redis-primary) is under"},
		{"one of two replicas is not known before the run", redis, `
  - {fault: kill, target: replica, at: 1s}
  - {fault: pause, target: redis-replica2, at: 5s, for: 1s}`, ""},
		{"a role the system decides", etcd, `
  - {fault: pause, target: leader, at: 1s, for: 5s}
  - {fault: kill, target: etcd2, at: 2s}`, ""},
		{"different nodes", etcd, `
  - {fault: pause, target: etcd1, at: 1s, for: 5s}
  - {fault: kill, target: etcd2, at: 2s}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, path := scenarioFile(t, tc.scenario)
			plan, err := scenarioPlan(e, 30*time.Second)
			if err != nil {
				t.Fatalf("scenario: %v", err)
			}
			err = CheckLayout(e, plan, tc.nodes)
			if tc.msg == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			where, msg, _ := strings.Cut(tc.msg, "|")
			if err == nil || !strings.Contains(err.Error(), filepath.Base(path)+where) || !strings.Contains(err.Error(), msg) {
				t.Fatalf("error %v\nwant %s and %q", err, where, msg)
			}
		})
	}
}
