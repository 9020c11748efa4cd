package experiment

import (
	"os"
	"path/filepath"
	"testing"
)

// The driver's connection properties are read from the variables `dbrig
// cluster env` exports, below every property file, -p and flag.
func TestResolveReadsEnv(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "etcd.properties")
	if err := os.WriteFile(file, []byte("etcd.endpoints=127.0.0.1:3000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"DBRIG_ETCD_ENDPOINTS": "127.0.0.1:4000,127.0.0.1:4001", "DBRIG_PG_URL": "postgres://x@127.0.0.1:1/db", "DBRIG_ETCD_PREFIX": "nope/"}
	getenv := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	tests := []struct {
		name    string
		opts    Options
		want    string // etcd.endpoints
		wantSrc string
	}{
		{"from the environment", Options{Getenv: getenv}, "127.0.0.1:4000,127.0.0.1:4001", "environment DBRIG_ETCD_ENDPOINTS"},
		{"-p wins", Options{Getenv: getenv, Props: []string{"etcd.endpoints=127.0.0.1:5000"}}, "127.0.0.1:5000", "flag -p"},
		{"a -P file wins", Options{Getenv: getenv, PropFiles: []string{"workloada", file}}, "127.0.0.1:3000", file + ":1"},
		{"no Getenv: the default", Options{}, "127.0.0.1:2379", "default"},
		{"its own cluster: not the environment", Options{Getenv: getenv, Cluster: &ClusterPlan{}}, "127.0.0.1:2379", "default"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Driver = "etcd"
			p, err := Resolve(tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			v, src, ok := p.Props.Lookup("etcd.endpoints")
			if !ok {
				v = "127.0.0.1:2379" // the driver's default: not set
			}
			if v != tt.want || src.String() != tt.wantSrc {
				t.Errorf("etcd.endpoints = %q from %s, want %q from %s", v, src, tt.want, tt.wantSrc)
			}
			// Only the driver's own table is read: not another driver's
			// variable, nor a property that is not a connection property.
			if p.Props.Has("pg.url") || p.Props.Has("etcd.prefix") {
				t.Errorf("read more than the etcd table: %v", p.Props.Map())
			}
		})
	}
}
