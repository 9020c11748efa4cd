package cluster

import (
	"maps"
	"os"
	"path/filepath"
)

// PlannedNode is a node as its recipe lays it out, before anything starts.
type PlannedNode struct {
	Name, Role, Stage string
	Ports             map[string]int
	Binary, Version   string
	// Durable: the node keeps everything in its data directory
	// (NodeSpec.Durable), so an image of it can be taken.
	Durable bool
}

// Plan lays r's nodes out without starting anything: it finds the binaries
// (a *BinaryMissingError when one is absent), takes the ports given in
// ports by "node.name" (each must be free: a *PortInUseError otherwise; a
// key no node has is an *UnknownPortError), and picks free ports for the
// rest. The returned map holds every node's ports; given to Up as
// Options.Ports it makes the cluster run on exactly the planned ports.
func Plan(r Recipe, ports map[string]int) ([]PlannedNode, map[string]int, error) {
	// Recipes only build paths from Dir here; nothing is created.
	l := newLayout(filepath.Join(os.TempDir(), "dbrig-"+r.System()+"-plan"), ports)
	stages, err := r.Layout(l)
	l.release()
	if err == nil {
		err = l.unused()
	}
	if err != nil {
		return nil, nil, err
	}
	var nodes []PlannedNode
	for _, st := range stages {
		for _, ns := range st.Nodes {
			nodes = append(nodes, PlannedNode{Name: ns.Name, Role: ns.Role, Stage: st.Name,
				Ports: maps.Clone(ns.Ports), Binary: ns.Binary, Version: ns.Version,
				Durable: ns.Durable && ns.DataDir != ""})
		}
	}
	return nodes, maps.Clone(l.assigned), nil
}
