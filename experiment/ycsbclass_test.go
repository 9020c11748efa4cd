package experiment

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// YCSB's class names: the core workload and binding classes dbrig has a
// driver for are honoured; the rest are refused at their file:line, never
// silently replaced by the core workload or by Pebble.
func TestYCSBClassNames(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, file, driver string
		want               string // driver chosen, or the error's text
		ok                 bool
	}{
		{"core workload, old package", "workload=com.yahoo.ycsb.workloads.CoreWorkload\n", "", "pebble", true},
		{"core workload", "workload=site.ycsb.workloads.CoreWorkload\n", "", "pebble", true},
		{"a workload class dbrig lacks", "workload=site.ycsb.workloads.RestWorkload\n", "", "p.properties:2: property workload", false},
		{"redis binding", "db=site.ycsb.db.RedisClient\nredis.addr=127.0.0.1:1\n", "", "redis", true},
		{"basic db", "db=site.ycsb.BasicDB\n", "", "null", true},
		{"dbrig's own name", "db=null\n", "", "null", true},
		{"a binding dbrig lacks", "db=site.ycsb.db.CassandraCQLClient\n", "", "p.properties:2: property db", false},
		{"binding against --driver", "db=site.ycsb.db.RedisClient\n", "null", "--driver null", false},
		{"a binding's property dbrig does not read", "cassandra.maxconnections=4\n", "null", "null", true},
		{"a typo of a property the driver reads", "mongodb.ulr=mongodb://127.0.0.1:1/ycsb\n", "mongodb", `p.properties:2: unknown property "mongodb.ulr" (did you mean "mongodb.url"?)`, false},
	}
	for _, tc := range cases {
		path := filepath.Join(dir, "p.properties")
		if err := os.WriteFile(path, []byte("recordcount=10\n"+tc.file), 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := Resolve(Options{Driver: tc.driver, PropFiles: []string{path}, Store: filepath.Join(dir, "r.db")})
		switch {
		case tc.ok && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.ok && p.Driver != tc.want:
			t.Errorf("%s: driver %s, want %s", tc.name, p.Driver, tc.want)
		case !tc.ok && (err == nil || !IsInput(err) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want bad input with %q", tc.name, err, tc.want)
		}
	}
}

// YCSB's own template runs unchanged; a property only some YCSB binding
// uses is one warning line, not a refusal.
func TestYCSBTemplateRuns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "workload_template")
	tmpl := "workload=site.ycsb.workloads.CoreWorkload\nrecordcount=1000000\noperationcount=3000000\ninsertstart=0\nfieldcount=10\nfieldlength=100\n" +
		"readallfields=true\nwriteallfields=false\nfieldlengthdistribution=constant\nreadproportion=0.95\nupdateproportion=0.05\n" +
		"insertproportion=0\nreadmodifywriteproportion=0\nscanproportion=0\nmaxscanlength=1000\nscanlengthdistribution=uniform\n" +
		"insertorder=hashed\nrequestdistribution=zipfian\nhotspotdatafraction=0.2\nhotspotopnfraction=0.8\ntable=usertable\n" +
		"measurementtype=histogram\nhistogram.buckets=1000\ntimeseries.granularity=1000\ncolumnfamily=family\nhosts=127.0.0.1\n"
	if err := os.WriteFile(path, []byte(tmpl), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Resolve(Options{Driver: "null", PropFiles: []string{path}, Store: filepath.Join(t.TempDir(), "r.db")})
	if err != nil {
		t.Fatalf("YCSB's template refused: %v", err)
	}
	n := 0
	for _, w := range p.Warnings {
		if strings.Contains(w, "columnfamily") && strings.Contains(w, "hosts") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("want one warning line naming columnfamily and hosts; got %q", p.Warnings)
	}
}
