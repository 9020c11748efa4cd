package results

import (
	"strings"
	"testing"
)

func TestParseStoreAddr(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	def, _ := DefaultPath()
	// A password that a pattern-based redactor cuts short.
	const nasty = `p a@s:s'"w ` + secret
	for _, tt := range []struct {
		addr                  string
		dialect, name, file   string
		driverPrefix, errPart string
		isDefault             bool
	}{
		{addr: "", dialect: "sqlite", name: def, file: def, driverPrefix: def + "?", isDefault: true},
		{addr: "runs.db", dialect: "sqlite", name: "runs.db", file: "runs.db", driverPrefix: "runs.db?"},
		{addr: "/var/lib/dbrig/runs.db", dialect: "sqlite", name: "/var/lib/dbrig/runs.db", file: "/var/lib/dbrig/runs.db", driverPrefix: "/var/lib/dbrig/runs.db?"},
		{addr: "runs=1.db", dialect: "sqlite", name: "runs=1.db", file: "runs=1.db", driverPrefix: "runs=1.db?"},
		{addr: "sqlite:///var/lib/x.db", dialect: "sqlite", name: "/var/lib/x.db", file: "/var/lib/x.db", driverPrefix: "/var/lib/x.db?"},
		{addr: "sqlite://rel/x.db", dialect: "sqlite", name: "rel/x.db", file: "rel/x.db", driverPrefix: "rel/x.db?"},
		{addr: "file:x.db?mode=rwc", dialect: "sqlite", name: "file:x.db?mode=rwc", driverPrefix: "file:x.db?mode=rwc&"},
		{addr: "file:x.db", dialect: "sqlite", name: "file:x.db", driverPrefix: "file:x.db?"},
		{addr: "postgres://u:" + secret + "@127.0.0.1/r", dialect: "postgres", name: "postgres://u:REDACTED@127.0.0.1/r", driverPrefix: "postgres://u:" + secret},
		{addr: "postgresql://127.0.0.1/r", dialect: "postgres", name: "postgresql://127.0.0.1/r", driverPrefix: "postgresql://"},
		{addr: "POSTGRES://h/r?sslmode=disable&password=" + secret, dialect: "postgres", name: "POSTGRES://h/r?password=REDACTED&sslmode=disable", driverPrefix: "POSTGRES://h/r?"},
		{addr: "postgres://u:p%20a%40s%3As%27%22w" + secret + "@h:5432/r", dialect: "postgres", name: "postgres://u:REDACTED@h:5432/r", driverPrefix: "postgres://u:p%20"},
		{addr: "postgres://u:p@s:s'w" + secret + "@h/r", dialect: "postgres", name: "postgres://u:REDACTED@h/r", driverPrefix: "postgres://u:p@s"},
		// Not a valid URL (a raw space): still no password in the name.
		{addr: "postgres://u:" + nasty + "@h/r?x=1", dialect: "postgres", name: "postgres://u:REDACTED@h/r?x=1", driverPrefix: "postgres://u:p a"},
		{addr: "host=127.0.0.1 user=x password=" + secret + " dbname=z", dialect: "postgres",
			name: "host=127.0.0.1 user=x password=REDACTED dbname=z", driverPrefix: "host=127.0.0.1 user=x password=" + secret},
		{addr: `  dbname = z password='` + strings.ReplaceAll(nasty, `'`, `\'`) + `' host=h`, dialect: "postgres",
			name: "dbname=z password=REDACTED host=h", driverPrefix: "  dbname = z"},
		{addr: `host=h application_name='my app' sslpassword=` + secret, dialect: "postgres",
			name: "host=h application_name='my app' sslpassword=REDACTED", driverPrefix: "host=h"},
		{addr: "host=h password='" + secret, errPart: "expected keyword=value"},
		{addr: "mysql://u:" + secret + "@h/db", errPart: "unknown scheme"},
		{addr: "mysql://u:" + nasty + "@h/db", errPart: "unknown scheme"},
		{addr: "sqlite://", errPart: "expected a file path"},
		{addr: "a?b.db", errPart: "cannot contain '?'"},
	} {
		t.Run(tt.addr, func(t *testing.T) {
			a, err := parseStoreAddr(tt.addr)
			if tt.errPart != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errPart) {
					t.Fatalf("err = %v, want one containing %q", err, tt.errPart)
				}
				assertNoSecret(t, "error", err.Error())
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if a.dialect.name != tt.dialect || a.name != tt.name || a.file != tt.file || a.isDefault != tt.isDefault ||
				!strings.HasPrefix(a.dsn, tt.driverPrefix) {
				t.Errorf("= %s %q file %q default %v, DSN %q; want %s %q file %q default %v, DSN %q…",
					a.dialect.name, a.name, a.file, a.isDefault, a.dsn, tt.dialect, tt.name, tt.file, tt.isDefault, tt.driverPrefix)
			}
			assertNoSecret(t, "name", a.name)
			if a.dialect.name == "postgres" && a.dsn != tt.addr {
				t.Errorf("PostgreSQL DSN %q, want the address as given", a.dsn)
			}
			if a.dialect.name == "sqlite" && (!strings.Contains(a.dsn, "busy_timeout") || !strings.Contains(a.dsn, "_txlock=immediate")) {
				t.Errorf("sqlite DSN %q lacks busy_timeout or _txlock", a.dsn)
			}
		})
	}
}
