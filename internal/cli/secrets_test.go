package cli

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/dbrig/dbrig/internal/testenv"
	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/web"
)

// javaEscape writes a value for a property file so that Java reads it back
// unchanged.
func javaEscape(v string) string {
	var b strings.Builder
	for i, r := range v {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == ' ' && i == 0:
			b.WriteString(`\ `)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startRedis runs a redis-server that requires pw, on a free loopback port.
func startRedis(t *testing.T, pw string) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server not installed (scripts/test installs it)")
	}
	port := freePort(t)
	cmd := exec.Command(bin, "--port", fmt.Sprint(port), "--bind", "127.0.0.1", "--requirepass", pw,
		"--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for i := 0; ; i++ {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return addr
		}
		if i > 100 {
			t.Fatalf("redis-server on %s did not start", addr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// dumpStore returns every value of every table of an SQLite store as text.
func dumpStore(t *testing.T, path string) string {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table'`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var n string
		rows.Scan(&n)
		tables = append(tables, n)
	}
	rows.Close()
	var b strings.Builder
	for _, tb := range tables {
		rows, err := db.Query(`SELECT * FROM "` + tb + `"`)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rows.Next() {
			rows.Scan(ptrs...)
			for _, v := range vals {
				if bs, ok := v.([]byte); ok {
					v = string(bs)
				}
				fmt.Fprintf(&b, "%v\t", v)
			}
			b.WriteByte('\n')
		}
		rows.Close()
	}
	return b.String()
}

// Passwords are never stored or printed, whatever their shape and however
// they were given: in a property file with a space as separator, with -p,
// in a URL, a libpq key/value string or a MySQL DSN. Every output is
// searched: stdout, stderr, --json, the HDR log, every column of the store,
// the HTML report and the dashboard's pages.
func TestSecretsNeverShow(t *testing.T) {
	for i, pw := range testenv.Passwords() {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			dir := t.TempDir()
			addr := startRedis(t, pw)
			store := filepath.Join(dir, "r.db")
			propFile := filepath.Join(dir, "secret.properties")
			// A space separates key and value; a continuation line splits it.
			half := len(pw) / 2
			for half > 0 && !utf8.RuneStart(pw[half]) {
				half--
			}
			text := "recordcount=50\nredis.password " + javaEscape(pw[:half]) + "\\\n    " + javaEscape(pw[half:]) + "\n"
			if strings.HasPrefix(pw[half:], " ") {
				text = "recordcount=50\nredis.password " + javaEscape(pw) + "\n"
			}
			if err := os.WriteFile(propFile, []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
			var outputs strings.Builder
			for _, how := range [][]string{
				{"-P", propFile},
				{"-p", "redis.password=" + pw, "-p", "recordcount = 50"},
			} {
				args := append([]string{"run", "--driver", "redis", "-p", "redis.addr=" + addr, "-P", "workloadc",
					"-p", "operationcount=200", "--store", store, "--json", "--hdrlog", filepath.Join(dir, "h.hlog")}, how...)
				code, out, errOut := dbrig(t, context.Background(), args...)
				if code != 0 {
					t.Fatalf("run with a password: exit %d\n%s", code, errOut)
				}
				hlog, _ := os.ReadFile(filepath.Join(dir, "h.hlog"))
				outputs.WriteString(out + errOut + string(hlog))
			}
			outputs.WriteString(dumpStore(t, store))
			code, out, errOut := dbrig(t, context.Background(), "report", "1", "2", "--store", store, "-o", filepath.Join(dir, "r.html"))
			if code != 0 {
				t.Fatalf("report: %d %s", code, errOut)
			}
			html, _ := os.ReadFile(filepath.Join(dir, "r.html"))
			outputs.WriteString(out + errOut + string(html))
			code, out, errOut = dbrig(t, context.Background(), "runs", "show", "1", "--store", store)
			outputs.WriteString(out + errOut)
			s, err := results.OpenExisting(context.Background(), store)
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(web.NewServer(s))
			for _, page := range []string{"/", "/run/1", "/run/2", "/compare?ids=1,2", "/history?system=redis&workload=workloadc"} {
				resp, err := http.Get(srv.URL + page)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				outputs.WriteString(string(b))
			}
			srv.Close()
			s.Close()
			// Connection strings of other systems: the run fails to connect
			// (port 1), and its error must not carry the password either.
			quoted := "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(pw) + "'"
			for _, bad := range [][]string{
				{"--driver", "postgres", "-p", "pg.url=postgres://dbrig:" + pw + "@127.0.0.1:1/db?connect_timeout=1"},
				{"--driver", "postgres", "-p", "pg.url=host=127.0.0.1 port=1 user=dbrig connect_timeout=1 password=" + quoted},
				{"--driver", "mysql", "-p", "mysql.dsn=dbrig:" + pw + "@tcp(127.0.0.1:1)/dbrig?timeout=1s"},
				{"--driver", "mongodb", "-p", "mongodb.url=mongodb://dbrig:" + pw + "@127.0.0.1:1/ycsb?w=1", "-p", "mongodb.timeout=300ms"},
				{"--driver", "mongodb", "-p", "mongodb.url=mongodb://dbrig:" + url.QueryEscape(pw) + "@127.0.0.1:1/ycsb", "-p", "mongodb.timeout=300ms"},
				{"--driver", "redis", "-p", "redis.addr=" + addr, "-p", "redis.password=wrong" + pw},
				{"--driver", "cassandra", "-p", "hosts=127.0.0.1:1", "-p", "cassandra.connecttimeoutmillis=500",
					"-p", "cassandra.username=dbrig", "-p", "cassandra.password=" + pw},
			} {
				_, out, errOut := dbrig(t, context.Background(), append([]string{"run", "--store", store, "-p", "recordcount=10"}, bad...)...)
				outputs.WriteString(out + errOut)
			}
			if got := testenv.Leak(outputs.String(), pw); got != "" {
				i := strings.Index(outputs.String(), got)
				t.Fatalf("the password %q shows (as %q) in the outputs, near:\n%s", pw, got, outputs.String()[max(0, i-200):min(len(outputs.String()), i+100)])
			}
			if !strings.Contains(outputs.String(), "REDACTED") {
				t.Error("no REDACTED anywhere: were the secrets stored at all?")
			}
		})
	}
}
