// Package testenv connects tests to the real servers that scripts/test starts.
//
// scripts/test starts them as dbrig's own local clusters (scripts/test-servers:
// `dbrig cluster up`) and exports their addresses with `dbrig cluster env`
// (DBRIG_REDIS_ADDR, DBRIG_PG_URL, ...: "DBRIG_" + the driver property in
// upper case, '.' as '_'). Under the test
// script DBRIG_REQUIRE_SERVERS=1 is set and a missing server fails the test;
// run by hand (plain `go test ./...`) such a test is skipped with a loud
// message instead.
package testenv

import (
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"unicode"
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

// Passwords are passwords of every awkward shape, for tests that a secret
// never shows: spaces, both quotes, '@', ':', '/', '=', '#', '%',
// backslashes, unicode, and a few generated from those (seeded). Each holds
// a distinctive core of letters and digits, so Leak finds a partial leak.
func Passwords() []string {
	pws := []string{
		"Kq8xZr2mWp with spaces",
		`it's "Vb7nQ2xLk" quoted`,
		"u@ser:pa/ss@Hy6tR4wQz@tcp(x)/y",
		`back\slash=Pm3sX8vKq#%2F`,
		"ünïcødé-Jd9wF5tNb-密码",
	}
	r := rand.New(rand.NewPCG(7, 11))
	awkward := []rune(` '"@:/=#%\&?;üé密`)
	const alnum = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghjkmnpqrstuvwxyz23456789"
	for range 3 {
		var b strings.Builder
		for range 4 {
			b.WriteRune(awkward[r.IntN(len(awkward))])
		}
		for range 10 {
			b.WriteByte(alnum[r.IntN(len(alnum))])
		}
		for range 4 {
			b.WriteRune(awkward[r.IntN(len(awkward))])
		}
		pws = append(pws, b.String())
	}
	return pws
}

// Leak returns the part of pw that text shows: the whole password or any
// run of six or more of its letters and digits; "" when none.
func Leak(text, pw string) string {
	if strings.Contains(text, pw) {
		return pw
	}
	for _, f := range strings.FieldsFunc(pw, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len([]rune(f)) >= 6 && strings.Contains(text, f) {
			return f
		}
	}
	return ""
}

// StarveCPU starts goroutines that spin on every core (8 per GOMAXPROCS),
// so that code under test is starved of CPU; the returned func stops them
// and waits until they have stopped.
func StarveCPU() (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range 8 * runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for x := 0; ; x++ {
				select {
				case <-done:
					return
				default:
				}
				for i := 0; i < 1e5; i++ {
					x ^= i
				}
			}
		}()
	}
	return func() {
		close(done)
		wg.Wait()
	}
}
