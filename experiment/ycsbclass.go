package experiment

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/all"
	"github.com/dbrig/dbrig/spec"
	"github.com/dbrig/dbrig/workload/tpcc"
)

// coreWorkloads are YCSB's names of the workload dbrig implements.
var coreWorkloads = map[string]bool{
	"": true, "site.ycsb.workloads.CoreWorkload": true, "com.yahoo.ycsb.workloads.CoreWorkload": true,
	"core": true, tpcc.Name: true,
}

// checkWorkloadClass refuses a workload= that dbrig does not implement
// (YCSB's TimeSeriesWorkload, RestWorkload, …) instead of running the core
// workload in its place.
func checkWorkloadClass(p *spec.Props) error {
	v, _, ok := p.Lookup("workload")
	if !ok || coreWorkloads[v] {
		return nil
	}
	return p.Errorf("workload", "a workload dbrig implements: YCSB's CoreWorkload (site.ycsb.workloads.CoreWorkload), its TimeSeriesWorkload, or %s", tpcc.Name)
}

// chooseDriver resolves the driver from --driver (given: "" when not) and
// YCSB's db= property: a binding class dbrig maps, or a dbrig driver name.
// The two must agree; neither given is Pebble.
func chooseDriver(given string, p *spec.Props, reg driver.Registry) (string, error) {
	v, _, ok := p.Lookup("db")
	if !ok || v == "" {
		if given == "" {
			return all.Default, nil
		}
		return given, nil
	}
	bindings := all.YCSBBindings()
	name, mapped := bindings[v]
	if !mapped {
		if _, own := reg[v]; !own {
			return "", p.Errorf("db", "a dbrig driver (%s) or a YCSB binding class dbrig has a driver for (%s); choose the driver with --driver", strings.Join(reg.Names(), ", "), strings.Join(slices.Sorted(maps.Keys(bindings)), ", "))
		}
		name = v
	}
	if given != "" && given != name {
		return "", p.Errorf("db", "the driver --driver %s names (db=%s means %s); remove one", given, v, name)
	}
	return name, nil
}

// ycsbBindingProps are property names (or prefixes, ending in '.') that
// only some YCSB binding reads: YCSB's files carry them, and they must not
// stop a run; they are named in one warning line.
var ycsbBindingProps = []string{
	"columnfamily", "hosts", "port", "batchsize", "debug",
	"db.", "jdbc.", "cassandra.", "hbase.", "mongodb.", "couchbase.", "dynamodb.", "elasticsearch.", "es.",
	"accumulo.", "aerospike.", "arangodb.", "azurecosmos.", "bigtable.", "cloudspanner.", "foundationdb.",
	"geode.", "googledatastore.", "griddb.", "ignite.", "infinispan.", "kudu.", "memcached.", "orientdb.",
	"rados.", "rest.", "riak.", "rocksdb.", "s3.", "scylla.", "solr.", "tarantool.", "voldemort.", "zookeeper.",
	"redis.host", "redis.port", "redis.cluster",
}

// bindingWarning declares the YCSB binding properties set in p that no
// reader declared, and returns one warning line naming them ("" if none).
func bindingWarning(p *spec.Props, declared func(string) bool) string {
	var set []string
	for k := range p.Map() {
		if declared(k) || p.Typo(k) != "" { // a typo of a declared property is refused, as unknown
			continue
		}
		for _, b := range ycsbBindingProps {
			if k == b || strings.HasSuffix(b, ".") && strings.HasPrefix(k, b) {
				set = append(set, k)
				p.Known(k)
				break
			}
		}
	}
	if len(set) == 0 {
		return ""
	}
	sort.Strings(set)
	return fmt.Sprintf("properties only some YCSB binding reads, ignored: %s", strings.Join(set, ", "))
}
