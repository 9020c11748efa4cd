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

// WithAdvertiser returns r set to advertise through a, and whether r routes
// peer traffic that way (etcd: members reach each other through the
// advertised peer URLs; PostgreSQL replicas reach their primary that way).
// Client traffic of any recipe can go through proxies
// without the recipe's help: point the driver at them.
func WithAdvertiser(r Recipe, a Advertiser) (Recipe, bool) {
	switch e := r.(type) {
	case Etcd:
		e.Advertise = a
		return e, true
	case *Etcd:
		c := *e
		c.Advertise = a
		return c, true
	case Postgres:
		e.Advertise = a
		return e, true
	case *Postgres:
		c := *e
		c.Advertise = a
		return c, true
	}
	return r, false
}
