// Package testenv connects tests to the real servers that scripts/test starts.
//
// scripts/servers/*.sh write the addresses of the servers they started to
// environment variables (DBRIG_REDIS_ADDR, DBRIG_PG_URL, ...). Under the test
// script DBRIG_REQUIRE_SERVERS=1 is set and a missing server fails the test;
// run by hand (plain `go test ./...`) such a test is skipped with a loud
// message instead.
package testenv

import (
	"os"
	"testing"
)

// Need returns the value of the environment variable that names a server, or
// fails (under the test script) or skips (otherwise) the test.
func Need(t testing.TB, envVar string) string {
	t.Helper()
	if v := os.Getenv(envVar); v != "" {
		return v
	}
	if os.Getenv("DBRIG_REQUIRE_SERVERS") == "1" {
		t.Fatalf("%s is not set, but DBRIG_REQUIRE_SERVERS=1: the test script should have started this server", envVar)
	}
	t.Skipf("SKIPPED: %s is not set; run scripts/test to start the real server this test needs", envVar)
	return ""
}
