package rating

import (
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
