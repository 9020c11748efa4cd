package cluster

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

	"github.com/go-sql-driver/mysql"
)

// MariaDB is one MariaDB server ("mariadb") from Debian's mariadb-server:
// mariadb-install-db initialises its data dir, and an init file creates
// user dbrig (password Password) with database dbrig (and Databases) at
// every start. It listens on 127.0.0.1 only, its
// socket in its own dir. Run as root, the server and its setup run as the
// OS user mysql (or, where there is none, mariadbd is told --user=root).
type MariaDB struct {
	// Binary is mariadbd's path (default mariadbd or mysqld on $PATH);
	// mariadb-install-db is taken from beside it, else from $PATH.
	Binary   string
	Password string            // of user dbrig; default "dbrig-secret" (loopback only)
	Settings map[string]string // server options, --name=value
	// Databases are made besides dbrig (user dbrig may use them all; it
	// may also make databases named dbrig_…). Names as ValidDatabaseName.
	Databases []string
}

func (MariaDB) System() string { return "mariadb" }

func (m MariaDB) password() string {
	if m.Password != "" {
		return m.Password
	}
	return "dbrig-secret"
}

func (m MariaDB) Layout(l *Layout) ([]Stage, error) {
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
		"--bind-address="+loopback, "--skip-name-resolve", "--init-file="+initFile)
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
		if !ValidDatabaseName(db) {
			return nil, fmt.Errorf("cluster: mariadb: database name %q: expected lower-case letters, digits and _", db)
		}
		fmt.Fprintf(&extra, "CREATE DATABASE IF NOT EXISTS `%[1]s`;\nGRANT ALL PRIVILEGES ON `%[1]s`.* TO 'dbrig'@'%[2]s';\n", db, loopback)
	}
	ns := &NodeSpec{
		Name: name, Role: "primary", Binary: bin, Version: version, Args: args,
		DataDir: nd, Log: l.LogPath(name), User: osUser, Durable: true,
		Ports: map[string]int{"client": port}, URL: fmt.Sprintf("mysql://%s/dbrig", hostPort(port)),
		// Idempotent, run by the server itself at every start: no root login
		// (socket authentication) is needed from dbrig.
		Files: map[string]string{initFile: fmt.Sprintf(
			"CREATE DATABASE IF NOT EXISTS dbrig;\n"+
				"CREATE USER IF NOT EXISTS 'dbrig'@'%[1]s' IDENTIFIED BY %[2]s;\n"+
				"GRANT ALL PRIVILEGES ON dbrig.* TO 'dbrig'@'%[1]s';\n"+
				"GRANT ALL PRIVILEGES ON `dbrig\\_%%`.* TO 'dbrig'@'%[1]s';\n", loopback, sqlQuote(pw)) + extra.String()},
	}
	ns.Setup = func(ctx context.Context, run RunFunc) error {
		return run(ctx, installDB, append(append([]string{"--no-defaults"}, userArgs...),
			"--datadir="+data, "--auth-root-authentication-method=socket", "--skip-test-db")...)
	}
	dsn := mariaDBDSN(port, pw)
	ns.Ready = func(ctx context.Context) error { return mysqlPing(ctx, dsn) }
	return []Stage{{Name: "server", Nodes: []*NodeSpec{ns}}}, nil
}

// Props: mysql.dsn as user dbrig on database dbrig.
func (m MariaDB) Props(nodes []Node) map[string]string {
	for _, n := range nodes {
		if n.Role == "primary" {
			return map[string]string{"mysql.dsn": mariaDBDSN(n.Ports["client"], m.password())}
		}
	}
	return nil
}

func mariaDBDSN(port int, pw string) string {
	c := mysql.NewConfig()
	c.User, c.Passwd, c.Net, c.Addr, c.DBName = "dbrig", pw, "tcp", hostPort(port), "dbrig"
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
