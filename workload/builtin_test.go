package workload

import (
	"slices"
	"testing"
	"testing/fstest"
)

func TestFiles(t *testing.T) {
	f := Files{FS: fstest.MapFS{
		"workloads/workloadb": {Data: []byte("b")},
		"workloads/workloada": {Data: []byte("a")},
		"other/workloadc":     {Data: []byte("c")},
	}, Dir: "workloads"}
	for _, c := range []struct {
		name, want string
		ok         bool
	}{
		{"workloada", "a", true},
		{"workloads/workloadb", "b", true},
		{"/some/checkout/workloads/workloada", "a", true},
		{"workloadc", "", false}, // not in Dir
		{"nosuch", "", false},
	} {
		b, ok := f.Get(c.name)
		if ok != c.ok || string(b) != c.want {
			t.Errorf("Get(%q) = %q, %v; want %q, %v", c.name, b, ok, c.want, c.ok)
		}
	}
	if got := f.Names(); !slices.Equal(got, []string{"workloada", "workloadb"}) {
		t.Errorf("Names() = %v", got)
	}
}
