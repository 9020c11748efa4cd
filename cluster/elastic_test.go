package cluster

import "testing"

func TestNextName(t *testing.T) {
	procs := func(nodes ...[2]string) []*proc {
		var out []*proc
		for _, n := range nodes {
			out = append(out, &proc{spec: &NodeSpec{Name: n[0], Role: n[1]}})
		}
		return out
	}
	for _, tc := range []struct {
		name           string
		procs, removed []*proc
		role, want     string
	}{
		{"etcd", procs([2]string{"etcd1", "member"}, [2]string{"etcd2", "member"}, [2]string{"etcd3", "member"}), nil, "member", "etcd4"},
		{"after a removal", procs([2]string{"etcd1", "member"}, [2]string{"etcd3", "member"}), procs([2]string{"etcd4", "member"}), "member", "etcd5"},
		{"redis replica", procs([2]string{"redis-primary", "primary"}, [2]string{"redis-replica1", "replica"}, [2]string{"sentinel1", "sentinel"}), nil, "replica", "redis-replica2"},
		{"no node of the role", procs([2]string{"redis-primary", "primary"}), nil, "replica", "redis-replica1"},
	} {
		c := &Cluster{system: "redis", procs: tc.procs, removed: tc.removed}
		if got := c.nextName(tc.role); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}
