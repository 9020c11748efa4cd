package postgres

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/spec"
)

// Cluster is the recipe of a primary ("pg-primary") and Replicas streaming replicas
// ("pg-replica1".."N") made with pg_basebackup -R. The superuser is
// postgres; the role dbrig (login, password Password) owns database dbrig
// and any further Databases. Servers listen on 127.0.0.1 only,
// with no Unix socket. Run as root, every PostgreSQL program runs as the OS
// user postgres (PostgreSQL refuses root) and data dirs belong to it.
type Cluster struct {
	Replicas int
	// BinDir holds initdb, postgres and pg_basebackup; default the newest
	// /usr/lib/postgresql/*/bin, else $PATH.
	BinDir   string
	Password string            // of postgres and dbrig; default "dbrig-secret" (cluster.Loopback only)
	Settings map[string]string // -c name=value for every server (e.g. fsync=off)
	OSUser   string            // default "postgres"
	// Databases are made besides dbrig, owned by role dbrig (for example
	// dbrig_results for the results store's tests). Names: lower-case
	// letters, digits and '_', not starting with a digit.
	Databases []string
	// Advertise, if set, routes each replica's replication connection
	// through an address it gives: Advertise(replica, "upstream", primary)
	// (a fault proxy of its own in front of the primary), written into the
	// replica's primary_conninfo, so a replica can be cut from its primary.
	Advertise cluster.Advertiser
}

func (p Cluster) databases() []string { return append([]string{"dbrig"}, p.Databases...) }

func (Cluster) System() string { return "postgres" }

func (p Cluster) password() string {
	if p.Password != "" {
		return p.Password
	}
	return "dbrig-secret"
}

// pgBinDir picks the newest /usr/lib/postgresql/N/bin.
func pgBinDir() string {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool {
		vi, _ := strconv.ParseFloat(filepath.Base(filepath.Dir(dirs[i])), 64)
		vj, _ := strconv.ParseFloat(filepath.Base(filepath.Dir(dirs[j])), 64)
		return vi < vj
	})
	if len(dirs) == 0 {
		return ""
	}
	return dirs[len(dirs)-1]
}

func (p Cluster) Layout(l *cluster.Layout) ([]cluster.Stage, error) {
	const install = "apt-get install postgresql"
	dir := p.BinDir
	if dir == "" {
		dir = pgBinDir()
	}
	bins := map[string]string{}
	for _, name := range []string{"postgres", "initdb", "pg_basebackup"} {
		override := ""
		if dir != "" {
			override = filepath.Join(dir, name)
		}
		b, err := l.Binary("postgres", override, install, name)
		if err != nil {
			return nil, err
		}
		bins[name] = b
	}
	version := l.Version(bins["postgres"], "--version") // "postgres (PostgreSQL) 15.14 (Debian 15.14-0+deb12u1)"
	if _, v, ok := strings.Cut(version, "(PostgreSQL) "); ok {
		version, _, _ = strings.Cut(v, " ")
	}
	for _, db := range p.Databases {
		if !cluster.ValidDatabaseName(db) {
			return nil, fmt.Errorf("cluster: postgres: database name %q: expected lower-case letters, digits and _", db)
		}
	}
	osUser := p.OSUser
	if osUser == "" {
		osUser = "postgres"
	}
	pw := p.password()
	node := func(name, role string) (*cluster.NodeSpec, error) {
		port, err := l.Port(name, "client")
		if err != nil {
			return nil, err
		}
		nd := l.NodeDir(name)
		args := []string{"-D", filepath.Join(nd, "data"), "-p", strconv.Itoa(port),
			"-c", "listen_addresses=" + cluster.Loopback, "-c", "unix_socket_directories=",
			// cluster_name is also a replica's application_name in pg_stat_replication.
			"-c", "cluster_name=" + name,
			// Dynamic shared memory in files of the data directory
			// (pg_dynshmem), not /dev/shm: a killed server (a kill fault)
			// cannot remove its segments, and Down removes the directory.
			// A setting of the user's (below) wins.
			"-c", "dynamic_shared_memory_type=mmap"}
		keys := make([]string, 0, len(p.Settings))
		for k := range p.Settings {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			args = append(args, "-c", k+"="+p.Settings[k])
		}
		return &cluster.NodeSpec{
			Name: name, Role: role, Binary: bins["postgres"], Version: version, Args: args,
			DataDir: nd, Log: l.LogPath(name), User: osUser, Durable: true,
			Ports: map[string]int{"client": port}, URL: pgURL("dbrig", pw, port, "dbrig"),
			// SIGINT is PostgreSQL's fast shutdown; SIGTERM (smart) waits for
			// every client to disconnect.
			StopSignal: syscall.SIGINT, StopLeaderOnly: true,
		}, nil
	}
	primary, err := node("pg-primary", "primary")
	if err != nil {
		return nil, err
	}
	pport := primary.Ports["client"]
	pwfile := filepath.Join(primary.DataDir, "pwfile")
	primary.Files = map[string]string{pwfile: pw + "\n"}
	primary.Setup = func(ctx context.Context, run cluster.RunFunc) error {
		err := run(ctx, bins["initdb"], "-D", filepath.Join(primary.DataDir, "data"), "-U", "postgres",
			"-E", "UTF8", "--locale=C", "--auth-local=trust", "--auth-host=scram-sha-256",
			"--pwfile="+pwfile, "--no-sync")
		os.Remove(pwfile)
		return err
	}
	superURL := func(port int) string { return pgURL("postgres", pw, port, "postgres") }
	primary.Ready = func(ctx context.Context) error { return pgQuery(ctx, superURL(pport), "SELECT 1") }
	stages := []cluster.Stage{{Name: "primary", Nodes: []*cluster.NodeSpec{primary},
		Ready: func(ctx context.Context) error { return pgSetupRole(ctx, superURL(pport), pw, p.databases()) }}}
	// Where each replica reaches its primary (its primary_conninfo).
	upstream := map[string][2]string{}
	for i := 1; i <= p.Replicas; i++ {
		name := fmt.Sprintf("pg-replica%d", i)
		host, port, err := p.upstream(name, pport)
		if err != nil {
			return nil, err
		}
		upstream[name] = [2]string{host, port}
	}
	if p.Replicas > 0 {
		st := cluster.Stage{Name: "replicas"}
		for i := 1; i <= p.Replicas; i++ {
			rep, err := node(fmt.Sprintf("pg-replica%d", i), "replica")
			if err != nil {
				return nil, err
			}
			// The password goes by the setup's environment, not the command
			// line (where ps and the node's log would show it); the server
			// itself reads it from primary_conninfo.
			rep.SetupEnv = []string{"PGPASSWORD=" + pw}
			rep.Setup = func(ctx context.Context, run cluster.RunFunc) error {
				// -R writes primary_conninfo (with the password) and standby.signal.
				return run(ctx, bins["pg_basebackup"], "-D", filepath.Join(rep.DataDir, "data"),
					"-R", "-X", "stream", "-c", "fast", "--no-sync",
					"-d", "host="+upstream[rep.Name][0]+" port="+upstream[rep.Name][1]+" user=postgres")
			}
			rep.Ready = func(ctx context.Context) error {
				return pgReplicaStreaming(ctx, superURL(rep.Ports["client"]), superURL(pport), rep.Name)
			}
			st.Nodes = append(st.Nodes, rep)
		}
		stages = append(stages, st)
	}
	return stages, nil
}

// upstream is the host and port a replica reaches its primary at: the
// primary's own, or the address Advertise gives.
func (p Cluster) upstream(replica string, pport int) (host, port string, err error) {
	if p.Advertise == nil {
		return cluster.Loopback, strconv.Itoa(pport), nil
	}
	addr, err := p.Advertise.Advertise(replica, "upstream", cluster.HostPort(pport))
	if err != nil {
		return "", "", fmt.Errorf("cluster: postgres: route %s's replication: %w", replica, err)
	}
	if host, port, err = net.SplitHostPort(addr); err != nil {
		return "", "", fmt.Errorf("cluster: postgres: route %s's replication: %w", replica, err)
	}
	return host, port, nil
}

func (p Cluster) Props(nodes []cluster.Node) map[string]string {
	for _, n := range nodes {
		if n.Role == "primary" {
			// Built from the password, not taken from the node's URL: a
			// state file keeps neither, and derives it again (cluster.State).
			return map[string]string{"pg.url": pgURL("dbrig", p.password(), n.Ports["client"], "dbrig")}
		}
	}
	return nil
}

func pgURL(user, pw string, port int, db string) string {
	u := url.URL{Scheme: "postgres", User: url.UserPassword(user, pw), Host: cluster.HostPort(port),
		Path: "/" + db, RawQuery: "sslmode=disable"}
	return u.String()
}

func pgQuery(ctx context.Context, url, q string, args ...any) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, q, args...)
	return err
}

// pgSetupRole makes role dbrig and the databases it owns (idempotent: it
// may be retried).
func pgSetupRole(ctx context.Context, superURL, pw string, dbs []string) error {
	conn, err := pgx.Connect(ctx, superURL)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_roles WHERE rolname = 'dbrig'").Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		if _, err := conn.Exec(ctx, "CREATE ROLE dbrig LOGIN PASSWORD "+pgQuote(pw)); err != nil {
			return err
		}
	}
	// PostgreSQL 15+: the role may CHECKPOINT, so a rating's settle step
	// (driver.Settler) writes the load's or reset's WAL out between
	// experiments instead of a checkpoint landing inside one.
	var v int
	if err := conn.QueryRow(ctx, "SELECT current_setting('server_version_num')::int").Scan(&v); err != nil {
		return err
	}
	if v >= 150000 {
		if _, err := conn.Exec(ctx, "GRANT pg_checkpoint TO dbrig"); err != nil {
			return fmt.Errorf("grant pg_checkpoint: %w", err)
		}
	}
	for _, db := range dbs {
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_database WHERE datname = $1", db).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{db}.Sanitize()+" OWNER dbrig"); err != nil {
				return fmt.Errorf("create database %s: %w", db, err)
			}
		}
	}
	return nil
}

func pgQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// pgReplicaStreaming: the replica is in recovery and the primary shows its
// WAL receiver streaming.
func pgReplicaStreaming(ctx context.Context, replicaURL, primaryURL, name string) error {
	conn, err := pgx.Connect(ctx, replicaURL)
	if err != nil {
		return err
	}
	var rec bool
	err = conn.QueryRow(ctx, "SELECT pg_is_in_recovery()").Scan(&rec)
	conn.Close(ctx)
	if err != nil {
		return err
	}
	if !rec {
		return errors.New("replica is not in recovery")
	}
	pc, err := pgx.Connect(ctx, primaryURL)
	if err != nil {
		return err
	}
	defer pc.Close(ctx)
	var state string
	err = pc.QueryRow(ctx, "SELECT state FROM pg_stat_replication WHERE application_name = $1", name).Scan(&state)
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("primary has no replication connection from %s", name)
	}
	if err != nil {
		return err
	}
	if state != "streaming" {
		return fmt.Errorf("replication state of %s is %s", name, state)
	}
	return nil
}

// newCluster builds the PostgreSQL recipe from system.cluster's options.
func newCluster(c spec.Cluster, given func(string) bool, refuse func(key, why string) error) (cluster.Recipe, error) {
	if k := driver.FirstGiven(given, "nodes", "sentinels"); k != "" {
		return nil, refuse(k, "postgres has a primary and streaming replicas: give replicas")
	}
	r := Cluster{Replicas: c.Replicas, Settings: c.Config}
	if c.Binary != "" {
		// A binary path names its directory: initdb, postgres and
		// pg_basebackup of one version live together.
		r.BinDir = c.Binary
		if st, err := os.Stat(c.Binary); err == nil && !st.IsDir() {
			r.BinDir = filepath.Dir(c.Binary)
		}
	}
	return r, nil
}

// Routed implements cluster.Routable: each replica reaches its primary at
// the address the Advertiser gives for its "upstream".
func (p Cluster) Routed(a cluster.Advertiser) cluster.Recipe { p.Advertise = a; return p }

// PartitionHint implements cluster.StarPeers.
func (Cluster) PartitionHint() string {
	return "a postgres cluster's peer links are each replica's link to its primary: partition a replica (or the primary, from every replica) with link: peer"
}

// Describe says what the cluster will be.
func (p Cluster) Describe() string {
	return fmt.Sprintf("postgres primary + %d streaming replicas", p.Replicas)
}

// WithDatabases implements cluster.DatabaseCreator.
func (p Cluster) WithDatabases(names []string) (cluster.Recipe, error) {
	p.Databases = append(p.Databases, names...)
	return p, nil
}

// WithPassword implements cluster.Passworded: the password of role dbrig.
func (p Cluster) WithPassword(pw string) cluster.Recipe { p.Password = pw; return p }
