package results

import (
	"testing"

	"github.com/dbrig/dbrig/spec"
)

// The store reads a PostgreSQL address exactly when spec calls it one:
// the two forms have one home.
func TestStoreAddrPostgresIsSpecs(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	for _, addr := range []string{
		"postgres://u@h/db", "PostgreSQL://h/db", "host=h dbname=db", " port=5432 host=h", "sslrootcert=/ca.pem host=h",
		"service=prod", "target_session_attrs=any host=h", "runs.db", "runs=1.db", "hostname=h.db", "file:x.db", "sqlite://x.db",
	} {
		a, err := parseStoreAddr(addr)
		if err != nil {
			t.Fatalf("%q: %v", addr, err)
		}
		want := spec.IsPostgresURL(addr) || spec.IsConnInfo(addr)
		if got := a.dialect.name == "postgres"; got != want {
			t.Errorf("%q: PostgreSQL %v, spec says %v", addr, got, want)
		}
	}
}
