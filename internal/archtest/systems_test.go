package archtest

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/dbrig/dbrig/driver/all"
)

// What dbrig knows about a system lives in the system's home (driver/NAME,
// with its cluster recipe); orchestration asks through capabilities. So no
// non-test Go file of these trees names a system in a string literal or
// imports a database client library.
var orchestration = []string{"experiment", "scenario", "rating", "workers", "analysis", "report", "web", "internal/cli"}

// dbClients are the modules of go.mod that speak to a database under test.
// The results store's own PostgreSQL client (results/) is not in the trees
// checked.
var dbClients = []string{
	"github.com/cockroachdb/pebble",
	"github.com/go-sql-driver/mysql",
	"github.com/hazelcast/hazelcast-go-client",
	"github.com/jackc/pgx",
	"github.com/redis/go-redis",
	"github.com/redis/rueidis",
	"go.etcd.io/etcd",
	"modernc.org/sqlite",
}

// otherSense are literals that spell a system's name in another sense.
var otherSense = map[string]string{
	"analysis/chart.go null": "JSON null",
}

// systemNames are the registry's drivers and their recipes' names.
func systemNames() map[string]bool {
	names := map[string]bool{}
	for name, d := range all.Registry() {
		names[name] = true
		for recipe := range d.Clusters {
			names[recipe] = true
		}
	}
	return names
}

func TestSystemsStayHome(t *testing.T) {
	root := filepath.Join("..", "..")
	checkDBClientsInGoMod(t, root)
	for _, dir := range orchestration {
		if _, err := os.Stat(filepath.Join(root, dir)); err != nil {
			t.Errorf("orchestration tree %s: %v (moved? update the list)", dir, err)
		}
	}
	bad := systemLeaks(t, root, systemNames())
	for _, b := range bad {
		t.Error(b)
	}
}

// checkDBClientsInGoMod keeps dbClients true: each is required by go.mod.
func checkDBClientsInGoMod(t *testing.T, root string) {
	f, err := os.Open(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var required []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fields := strings.Fields(sc.Text()); len(fields) >= 2 && strings.Contains(fields[0], ".") {
			required = append(required, fields[0])
		}
	}
	for _, m := range dbClients {
		found := false
		for _, r := range required {
			found = found || r == m || strings.HasPrefix(r, m+"/")
		}
		if !found {
			t.Errorf("dbClients lists %s, which go.mod does not require: update the list", m)
		}
	}
}

// systemLeaks lists, as file:line: what, every system name in a string
// literal and every database client import in the orchestration trees
// under root. Test files and test-helper packages (…test) are not checked.
func systemLeaks(t *testing.T, root string, names map[string]bool) []string {
	var bad []string
	fset := token.NewFileSet()
	for _, dir := range orchestration {
		if _, err := os.Stat(filepath.Join(root, dir)); os.IsNotExist(err) {
			continue
		}
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && strings.HasSuffix(d.Name(), "test") {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			rel, _ := filepath.Rel(root, path)
			rel = filepath.ToSlash(rel)
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				for _, m := range dbClients {
					if p == m || strings.HasPrefix(p, m+"/") {
						bad = append(bad, fset.Position(imp.Pos()).String()+": imports the database client "+p+": ask the system's home (driver/…) through a capability")
					}
				}
			}
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil || !names[s] || otherSense[rel+" "+s] != "" {
					return true
				}
				bad = append(bad, fset.Position(lit.Pos()).String()+": names the system "+lit.Value+": ask its home (driver/"+s+", its recipe) through a capability instead")
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	sort.Strings(bad)
	return bad
}

// The check finds a planted name and import, and passes over test files,
// test-helper packages and a name in another sense.
func TestSystemLeaksFound(t *testing.T) {
	root := t.TempDir()
	write := func(rel, src string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("experiment/leak.go", "package experiment\n\nimport _ \"github.com/jackc/pgx/v5\"\n\nvar recipe = \"etcd\"\n")
	write("experiment/leak_test.go", "package experiment\n\nvar _ = \"etcd\"\n")
	write("web/webtest/fixture.go", "package webtest\n\nvar _ = \"redis\"\n")
	write("analysis/chart.go", "package analysis\n\nvar _ = \"null\"\n")
	write("rating/ok.go", "package rating\n\nvar _ = \"etcd.endpoints\"\n")
	bad := systemLeaks(t, root, systemNames())
	if len(bad) != 2 || !strings.Contains(bad[0], "leak.go:3:") || !strings.Contains(bad[0], "pgx") ||
		!strings.Contains(bad[1], "leak.go:5:") || !strings.Contains(bad[1], `"etcd"`) {
		t.Errorf("leaks found: %q\nwant the pgx import (leak.go:3) and \"etcd\" (leak.go:5)", bad)
	}
}
