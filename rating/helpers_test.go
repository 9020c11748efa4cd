package rating

import (
	"flag"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/dbrig/dbrig/sla"
)

func mustSLA(t testing.TB, exprs ...string) sla.SLA {
	t.Helper()
	s, err := sla.Parse(exprs...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestMain runs up to 8 tests at once unless -parallel says otherwise (the
// default is GOMAXPROCS, 2 here): the real-time ratings spend their time
// waiting for 1 s experiments, not on the CPU, and their SLAs are loose
// enough for a loaded machine; the rest run on the queue model in virtual
// time (qsim_test.go).
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		if err := flag.Set("test.parallel", "8"); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}
