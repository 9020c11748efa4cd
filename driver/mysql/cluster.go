package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/spec"
)

// Cluster is the recipe of one MariaDB server ("mariadb") from Debian's mariadb-server:
// mariadb-install-db initialises its data dir, and an init file creates
// user dbrig (password Password) with database dbrig (and Databases) at
// every start. It listens on 127.0.0.1 only, its
// socket in its own dir. Run as root, the server and its setup run as the
// OS user mysql (or, where there is none, mariadbd is told --user=root).
type Cluster struct {
	// Binary is mariadbd's path (default mariadbd or mysqld on $PATH);
	// mariadb-install-db is taken from beside it, else from $PATH.
	Binary   string
	Password string            // of user dbrig; default "dbrig-secret" (cluster.Loopback only)
	Settings map[string]string // server options, --name=value
	// Databases are made besides dbrig (user dbrig may use them all; it
	// may also make databases named dbrig_…). Names as cluster.ValidDatabaseName.
	Databases []string
}

func (Cluster) System() string { return "mariadb" }

func (m Cluster) password() string {
	if m.Password != "" {
		return m.Password
	}
	return "dbrig-secret"
}

func (m Cluster) Layout(l *cluster.Layout) ([]cluster.Stage, error) {
	const install = "apt-get install mariadb-server"
	bin, err := l.Binary("mariadb", m.Binary, install, "mariadbd", "mysqld")
	if err != nil {
		return nil, err
	}
	installDB, err := l.Binary("mariadb", "", install, filepath.Join(filepath.Dir(bin), "mariadb-install-db"),
		"mariadb-install-db", "mysql_install_db")
	if err != nil {
		return nil, err
	}
	version := l.Version(bin, "--version") // "/usr/sbin/mariadbd  Ver 10.11.14-MariaDB-0+deb12u2 for debian-linux-gnu …"
	if _, v, ok := strings.Cut(version, "Ver "); ok {
		version, _, _ = strings.Cut(v, " ")
	}
	const name = "mariadb"
	port, err := l.Port(name, "client")
	if err != nil {
		return nil, err
	}
	nd := l.NodeDir(name)
	data, initFile := filepath.Join(nd, "data"), filepath.Join(nd, "init.sql")
	// As root, mariadbd refuses to run unless told a user: the OS user mysql
	// when there is one (the process is started as it), else root itself.
	osUser, userArgs := "", []string(nil)
	if os.Geteuid() == 0 {
		if _, err := user.Lookup("mysql"); err == nil {
			osUser = "mysql"
		} else {
			userArgs = []string{"--user=root"}
		}
	}
	args := append([]string{"--no-defaults"}, userArgs...)
	args = append(args, "--datadir="+data, "--socket="+filepath.Join(nd, "mysqld.sock"),
		"--pid-file="+filepath.Join(nd, "mariadbd.pid"), "--port="+strconv.Itoa(port),
		"--bind-address="+cluster.Loopback, "--skip-name-resolve", "--init-file="+initFile)
	keys := make([]string, 0, len(m.Settings))
	for k := range m.Settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		args = append(args, "--"+k+"="+m.Settings[k]) // later options win over ours
	}
	pw := m.password()
	var extra strings.Builder
	for _, db := range m.Databases {
		if !cluster.ValidDatabaseName(db) {
			return nil, fmt.Errorf("cluster: mariadb: database name %q: expected lower-case letters, digits and _", db)
		}
		fmt.Fprintf(&extra, "CREATE DATABASE IF NOT EXISTS `%[1]s`;\nGRANT ALL PRIVILEGES ON `%[1]s`.* TO 'dbrig'@'%[2]s';\n", db, cluster.Loopback)
	}
	ns := &cluster.NodeSpec{
		Name: name, Role: "primary", Binary: bin, Version: version, Args: args,
		DataDir: nd, Log: l.LogPath(name), User: osUser, Durable: true,
		Ports: map[string]int{"client": port}, URL: fmt.Sprintf("mysql://%s/dbrig", cluster.HostPort(port)),
		// Idempotent, run by the server itself at every start: no root login
		// (socket authentication) is needed from dbrig.
		Files: map[string]string{initFile: fmt.Sprintf(
			"CREATE DATABASE IF NOT EXISTS dbrig;\n"+
				"CREATE USER IF NOT EXISTS 'dbrig'@'%[1]s' IDENTIFIED BY %[2]s;\n"+
				"GRANT ALL PRIVILEGES ON dbrig.* TO 'dbrig'@'%[1]s';\n"+
				"GRANT ALL PRIVILEGES ON `dbrig\\_%%`.* TO 'dbrig'@'%[1]s';\n", cluster.Loopback, sqlQuote(pw)) + extra.String()},
	}
	ns.Setup = func(ctx context.Context, run cluster.RunFunc) error {
		return run(ctx, installDB, append(append([]string{"--no-defaults"}, userArgs...),
			"--datadir="+data, "--auth-root-authentication-method=socket", "--skip-test-db")...)
	}
	dsn := mariaDBDSN(port, pw)
	ns.Ready = func(ctx context.Context) error { return mysqlPing(ctx, dsn) }
	return []cluster.Stage{{Name: "server", Nodes: []*cluster.NodeSpec{ns}}}, nil
}

// Props: gomysql.dsn as user dbrig on database dbrig.
func (m Cluster) Props(nodes []cluster.Node) map[string]string {
	for _, n := range nodes {
		if n.Role == "primary" {
			return map[string]string{"mysql.dsn": mariaDBDSN(n.Ports["client"], m.password())}
		}
	}
	return nil
}

func mariaDBDSN(port int, pw string) string {
	c := gomysql.NewConfig()
	c.User, c.Passwd, c.Net, c.Addr, c.DBName = "dbrig", pw, "tcp", cluster.HostPort(port), "dbrig"
	return c.FormatDSN()
}

func sqlQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, "'", "''").Replace(s) + "'"
}

// mysqlPing: user dbrig logs in over TCP and runs a query.
func mysqlPing(ctx context.Context, dsn string) error {
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	var one int
	return db.QueryRowContext(ctx, "SELECT 1").Scan(&one)
}

// clusterNamed builds the MariaDB recipe from system.cluster's options;
// name is the recipe name the file gives (mariadb or mysql).
func clusterNamed(name string) driver.ClusterFunc {
	return func(c spec.Cluster, given func(string) bool, refuse func(key, why string) error) (cluster.Recipe, error) {
		if k := driver.FirstGiven(given, "nodes", "replicas", "sentinels"); k != "" {
			return nil, refuse(k, "the "+name+" recipe is one server: replication is not there yet (give binary and config only)")
		}
		return Cluster{Binary: c.Binary, Settings: c.Config}, nil
	}
}

// Describe says what the cluster will be.
func (Cluster) Describe() string { return "mariadb, one server" }

// WithDatabases implements cluster.DatabaseCreator.
func (m Cluster) WithDatabases(names []string) (cluster.Recipe, error) {
	m.Databases = append(m.Databases, names...)
	return m, nil
}

// WithPassword implements cluster.Passworded: the password of user dbrig.
func (m Cluster) WithPassword(pw string) cluster.Recipe { m.Password = pw; return m }
