package mysql

import (
	gomysql "github.com/go-sql-driver/mysql"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/spec"
)

// Driver is the mysql driver with the properties Open reads.
func Driver() driver.Driver {
	return driver.Driver{Type: (*DB)(nil), EnvProps: []string{"mysql.dsn"}, Open: Open, Clusters: map[string]driver.ClusterFunc{"mariadb": clusterNamed("mariadb"), "mysql": clusterNamed("mysql")}, Doc: "MySQL / MariaDB (github.com/go-sql-driver/mysql)", Props: []spec.Decl{
		{Key: "mysql.dsn", Type: "dsn", Doc: "Go MySQL DSN (required), e.g. user:secret@tcp(127.0.0.1:3306)/db", Secret: RedactDSN},
		{Key: "mysql.timeout", Type: "duration", Default: "10s", Doc: "per-operation timeout (0 = none), as the socket's read and write timeouts (unless the DSN sets readTimeout/writeTimeout); an interrupted run's operations end by it"},
		{Key: "mysql.poolsize", Type: "int", Default: "max(threadcount, 4)", Doc: "connections"},
	}}
}

// RedactDSN removes the password from a Go MySQL DSN by parsing it as the
// driver does (the password may hold '@', ':', '/' or spaces) and writing
// it back; a DSN that does not parse is hidden whole.
func RedactDSN(dsn string) string {
	cfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		return spec.RedactWhole(dsn)
	}
	if cfg.Passwd != "" {
		cfg.Passwd = spec.Redacted
	}
	return cfg.FormatDSN()
}
