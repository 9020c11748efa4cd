package spec

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// systemAxis is the matrix key whose values are whole system blocks: one
// experiment file compares systems, each with its own driver, cluster
// recipe and properties.
//
//	matrix:
//	  system:
//	    - {driver: redis, cluster: {recipe: redis}}
//	    - {driver: etcd, cluster: {recipe: etcd, nodes: 3}, props: {etcd.timeout: 1s}}
const systemAxis = "system"

// systemLabels checks every value of a matrix over systems as a system
// block (with its position, as matrix.system[i].key) and names each: its
// name if given, else its driver, else (two values share a driver) its
// cluster recipe. Two values with one label must be told apart by a name.
func systemLabels(file string, values []*yaml.Node) ([]string, error) {
	systems := make([]System, len(values))
	drivers := map[string]int{}
	for i, v := range values {
		path := fmt.Sprintf("matrix.system[%d]", i)
		d := &decoder{file: file, pos: map[string]Pos{}}
		if v.Kind != yaml.MappingNode {
			return nil, d.errorf(v, path, "expected a system block such as {driver: redis, cluster: {recipe: redis}}")
		}
		if err := d.system(v, path, &systems[i]); err != nil {
			return nil, err
		}
		if systems[i].Driver == "" {
			return nil, d.errorf(v, path, "missing driver: each value is a whole system block, e.g. {driver: etcd, cluster: {recipe: etcd, nodes: 3}}")
		}
		drivers[systems[i].Driver]++
	}
	labels := make([]string, len(values))
	first := map[string]int{}
	for i, s := range systems {
		switch {
		case s.Name != "":
			labels[i] = s.Name
		case drivers[s.Driver] > 1 && s.Cluster != nil && s.Cluster.Recipe != "":
			labels[i] = s.Cluster.Recipe
		default:
			labels[i] = s.Driver
		}
		if j, dup := first[labels[i]]; dup {
			return nil, &FileError{Pos: pos(file, values[i]), Path: fmt.Sprintf("matrix.system[%d]", i),
				Msg: fmt.Sprintf("labelled %q like matrix.system[%d]: give each a name (name: …) to tell them apart in the results", labels[i], j)}
		}
		first[labels[i]] = i
	}
	return labels, nil
}

// matrixKeys says what a matrix axis may be: the whole system, a short
// name, or any key path of the file.
func matrixKeys() string {
	return fmt.Sprintf("expected %s (whole system blocks), a short name (%s) or a key path (%s)",
		systemAxis, strings.Join(slices.Sorted(maps.Keys(aliases)), ", "), strings.Join(schemaPaths(), ", "))
}
