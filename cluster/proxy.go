package cluster

// Advertiser routes a node's traffic through something dbrig controls (the
// fault proxies of package inject/proxy): a recipe that supports it asks,
// while laying its nodes out, for the address to advertise for a port of a
// node (its "client" or "peer" port, listening at addr) and gives that to the
// node's peers and clients instead of addr. The proxies must forward to addr
// before the node starts. A PostgreSQL replica asks for its "upstream": the
// address it reaches its primary at, for its replication connection.
type Advertiser interface {
	Advertise(node, port, addr string) (string, error)
}

// AddrAdvertiser is an Advertiser that also puts a proxy at an address the
// recipe chooses (listen: a loopback address and port) in front of target.
// A Cassandra node is known to its peers at its broadcast address and its
// own storage port: its peer proxy must listen on that port, of another
// loopback address than the node's.
type AddrAdvertiser interface {
	Advertiser
	AdvertiseAt(node, port, listen, target string) error
}

// Routable is implemented by recipes whose nodes' peer traffic can be
// routed through an Advertiser (etcd: members reach each other through the
// advertised peer URLs; PostgreSQL replicas reach their primary that way).
type Routable interface {
	// Routed returns the recipe set to advertise through a.
	Routed(a Advertiser) Recipe
}

// StarPeers is implemented by a Routable recipe whose peer links are not a
// mesh but each replica's link to its primary, so a partition of the
// nodes into groups has no links of its own to cut. PartitionHint says
// what to partition instead.
type StarPeers interface {
	PartitionHint() string
}

// WithAdvertiser returns r set to advertise through a, and whether r routes
// peer traffic that way (a Routable recipe). Client traffic of any recipe
// can go through proxies without the recipe's help: point the driver at
// them.
func WithAdvertiser(r Recipe, a Advertiser) (Recipe, bool) {
	if rr, ok := r.(Routable); ok {
		return rr.Routed(a), true
	}
	return r, false
}
