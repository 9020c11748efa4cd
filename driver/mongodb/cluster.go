package mongodb

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/postgres"
	"github.com/dbrig/dbrig/spec"
)

// FerretDBVersion is the FerretDB scripts/build-ferretdb.sh builds by
// default, and whose cached binary the recipe finds without a PATH entry.
const FerretDBVersion = "1.24.2"

// Cluster is the recipe of FerretDB on PostgreSQL: a PostgreSQL node
// ("pg-primary", driver/postgres's recipe without replicas) and, once it is
// ready, a FerretDB node ("ferretdb") that keeps its collections there and
// answers the MongoDB wire protocol on 127.0.0.1. It is not MongoDB: the
// same protocol over another engine, so what it measures is FerretDB and
// PostgreSQL. A MongoDB server cannot be installed here; a user's own is
// driven the same way through mongodb.url.
//
// FerretDB reaches PostgreSQL as role dbrig, its password in a passfile
// (0600, in the node's data dir) rather than on its command line or in its
// environment; clients connect without credentials. Telemetry and the
// debug HTTP listener are off.
type Cluster struct {
	// Binary is the ferretdb binary; default ferretdb on $PATH, else the one
	// scripts/build-ferretdb.sh caches.
	Binary string
	// PG is the PostgreSQL node's recipe (settings, password, binaries);
	// its Replicas must be 0.
	PG postgres.Cluster
}

// System names the recipe: FerretDB, whatever driver speaks to it.
func (Cluster) System() string { return "ferretdb" }

// Describe says what the cluster will be.
func (Cluster) Describe() string { return "FerretDB on one PostgreSQL node (MongoDB wire protocol)" }

// cachedFerretDB is where scripts/build-ferretdb.sh puts FerretDBVersion.
func cachedFerretDB() string {
	cache := os.Getenv("DBRIG_CACHE")
	if cache == "" {
		base := os.Getenv("XDG_CACHE_HOME")
		if base == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				return ""
			}
			base = filepath.Join(home, ".cache")
		}
		cache = filepath.Join(base, "dbrig")
	}
	return filepath.Join(cache, "ferretdb", FerretDBVersion, "ferretdb")
}

func (c Cluster) binary(l *cluster.Layout) (string, error) {
	const install = "scripts/build-ferretdb.sh " + FerretDBVersion + " (builds FerretDB from its Go module into dbrig's cache)"
	override := c.Binary
	if override == "" {
		if _, err := exec.LookPath("ferretdb"); err != nil {
			if p := cachedFerretDB(); p != "" {
				if st, err := os.Stat(p); err == nil && !st.IsDir() {
					override = p
				}
			}
		}
	}
	return l.Binary("ferretdb", override, install, "ferretdb")
}

// Layout lays out PostgreSQL's stage, then FerretDB's.
func (c Cluster) Layout(l *cluster.Layout) ([]cluster.Stage, error) {
	if c.PG.Replicas != 0 {
		return nil, fmt.Errorf("cluster: ferretdb: FerretDB uses one PostgreSQL node, not %d replicas", c.PG.Replicas)
	}
	bin, err := c.binary(l)
	if err != nil {
		return nil, err
	}
	stages, err := c.PG.Layout(l)
	if err != nil {
		return nil, err
	}
	pg := stages[0].Nodes[0]
	pgu, err := url.Parse(pg.URL)
	if err != nil {
		return nil, fmt.Errorf("cluster: ferretdb: the PostgreSQL node's URL: %w", err)
	}
	pw, _ := pgu.User.Password()
	user := pgu.User.Username()
	port, err := l.Port("ferretdb", "client")
	if err != nil {
		return nil, err
	}
	nd := l.NodeDir("ferretdb")
	passfile := filepath.Join(nd, "pgpass")
	// The URL FerretDB connects with carries no password: pgx reads it from
	// the passfile (host:port:database:user:password).
	pgu.User = url.User(user)
	q := pgu.Query()
	q.Set("passfile", passfile)
	pgu.RawQuery = q.Encode()
	version := l.Version(bin, "--version") // "version: v1.24.2"
	version = strings.TrimPrefix(strings.TrimPrefix(version, "version: "), "v")
	mongoURL := "mongodb://" + cluster.HostPort(port) + "/ycsb"
	fd := &cluster.NodeSpec{
		Name: "ferretdb", Role: "ferretdb", Binary: bin, Version: version,
		Args: []string{"--listen-addr=" + cluster.HostPort(port), "--handler=postgresql",
			"--postgresql-url=" + pgu.String(), "--state-dir=" + nd, "--debug-addr=-",
			"--telemetry=disable", "--log-level=error"},
		DataDir: nd, Log: l.LogPath("ferretdb"),
		Files: map[string]string{passfile: pgpassEscape(cluster.Loopback) + ":" + strconv.Itoa(pg.Ports["client"]) +
			":*:" + pgpassEscape(user) + ":" + pgpassEscape(pw) + "\n"},
		Ports: map[string]int{"client": port}, URL: mongoURL,
		Ready: func(ctx context.Context) error { return ping(ctx, mongoURL) },
	}
	return append(stages, cluster.Stage{Name: "ferretdb", Nodes: []*cluster.NodeSpec{fd}}), nil
}

// pgpassEscape escapes a passfile field (':' and '\').
func pgpassEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `:`, `\:`).Replace(s)
}

// ping is FerretDB's readiness: the MongoDB wire protocol answers a ping
// through the driver, and a write reaches PostgreSQL.
func ping(ctx context.Context, u string) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	c, err := mongo.Connect(options.Client().ApplyURI(u).SetServerSelectionTimeout(2 * time.Second))
	if err != nil {
		return err
	}
	defer c.Disconnect(context.Background())
	if err := c.Ping(ctx, nil); err != nil {
		return err
	}
	// listCollections goes to the backend: FerretDB is connected to it.
	_, err = c.Database("ycsb").ListCollectionNames(ctx, map[string]any{})
	return err
}

// Props point the mongodb driver at FerretDB.
func (Cluster) Props(nodes []cluster.Node) map[string]string {
	for _, n := range nodes {
		if n.Role == "ferretdb" {
			return map[string]string{"mongodb.url": n.URL + "?w=1"}
		}
	}
	return nil
}

// WithPassword implements cluster.Passworded: the password of the
// PostgreSQL role FerretDB connects as.
func (c Cluster) WithPassword(pw string) cluster.Recipe {
	c.PG = c.PG.WithPassword(pw).(postgres.Cluster)
	return c
}

// newCluster builds the FerretDB recipe from system.cluster's options:
// binary is FerretDB's, config are PostgreSQL's settings.
func newCluster(c spec.Cluster, given func(string) bool, refuse func(key, why string) error) (cluster.Recipe, error) {
	if k := driver.FirstGiven(given, "nodes", "replicas", "sentinels"); k != "" {
		return nil, refuse(k, "ferretdb is one FerretDB on one PostgreSQL node: give binary (ferretdb's) or config (PostgreSQL settings)")
	}
	return Cluster{Binary: c.Binary, PG: postgres.Cluster{Settings: c.Config}}, nil
}
