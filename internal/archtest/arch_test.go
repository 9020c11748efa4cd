package archtest

import (
	"bufio"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/dbrig/dbrig"

// rule is one row of the package map: packages matching pkg may import
// packages matching any of allowed.
type rule struct {
	pkg     string
	allowed []string
	line    int
}

// match tells whether pattern names p: "x" is x alone, "x/..." is x and
// everything below it, "x/*" everything below x but not x.
func match(pattern, p string) bool {
	switch {
	case strings.HasSuffix(pattern, "/..."):
		base := strings.TrimSuffix(pattern, "/...")
		return p == base || strings.HasPrefix(p, base+"/")
	case strings.HasSuffix(pattern, "/*"):
		return strings.HasPrefix(p, strings.TrimSuffix(pattern, "*"))
	}
	return p == pattern
}

// readRules parses the table that follows the "## Package map" heading:
// | `pkg` | what it provides | `a`, `b/...` | — backticked names only.
func readRules(t *testing.T, doc string) []rule {
	f, err := os.Open(doc)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rules []rule
	in := false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			in = strings.HasPrefix(line, "## Package map")
			continue
		}
		if !in || !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) < 3 {
			t.Fatalf("%s:%d: expected | package | provides | may import |", doc, n)
		}
		r := rule{pkg: strings.Trim(strings.TrimSpace(cells[0]), "`"), line: n}
		for _, c := range strings.Split(cells[len(cells)-1], ",") {
			if c = strings.TrimSpace(c); strings.HasPrefix(c, "`") {
				r.allowed = append(r.allowed, strings.Trim(c, "`"))
			}
		}
		rules = append(rules, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rules) == 0 {
		t.Fatalf("%s: no package map found", doc)
	}
	return rules
}

// imports returns every package of the module (by path relative to the
// module root) with the dbrig packages its non-test files import.
func imports(t *testing.T, root string) map[string][]string {
	out := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		pkg := filepath.ToSlash(rel)
		seen := map[string]bool{}
		for _, old := range out[pkg] {
			seen[old] = true
		}
		if _, ok := out[pkg]; !ok {
			out[pkg] = nil
		}
		for _, imp := range f.Imports {
			ip := strings.Trim(imp.Path.Value, `"`)
			if ip == module || !strings.HasPrefix(ip, module+"/") {
				continue
			}
			ip = strings.TrimPrefix(ip, module+"/")
			if !seen[ip] {
				seen[ip] = true
				out[pkg] = append(out[pkg], ip)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestImportsFollowThePackageMap(t *testing.T) {
	root := filepath.Join("..", "..")
	doc := filepath.Join(root, "docs", "architecture.md")
	for _, v := range violations(readRules(t, doc), imports(t, root), doc) {
		t.Error(v)
	}
}

// violations lists every package missing from rules and every import rules
// do not allow.
func violations(rules []rule, pkgs map[string][]string, doc string) []string {
	names := make([]string, 0, len(pkgs))
	for p := range pkgs {
		names = append(names, p)
	}
	sort.Strings(names)
	var out []string
	for _, p := range names {
		// An exact row wins over a pattern; among patterns, the first.
		var r *rule
		for i := range rules {
			if rules[i].pkg == p {
				r = &rules[i]
				break
			}
		}
		for i := range rules {
			if r == nil && match(rules[i].pkg, p) {
				r = &rules[i]
			}
		}
		if r == nil {
			out = append(out, fmt.Sprintf("package %s is not in the package map of %s: add a row saying what it provides and may import", p, doc))
			continue
		}
		for _, ip := range pkgs[p] {
			ok := false
			for _, a := range r.allowed {
				if match(a, ip) {
					ok = true
					break
				}
			}
			if !ok {
				out = append(out, fmt.Sprintf("%s imports %s, which %s:%d (row %q) does not allow", p, ip, doc, r.line, r.pkg))
			}
		}
	}
	return out
}

func TestViolations(t *testing.T) {
	rules := []rule{
		{pkg: "measure", allowed: []string{"errclass"}},
		{pkg: "driver", allowed: []string{"spec", "errclass"}},
		{pkg: "driver/...", allowed: []string{"driver/..."}},
	}
	pkgs := map[string][]string{
		"measure":      {"errclass", "driver"}, // against the direction
		"driver":       {"spec"},
		"driver/redis": {"driver", "driver/internal/drvkit"},
		"newpkg":       nil, // not in the map
	}
	got := violations(rules, pkgs, "doc")
	want := []string{
		"measure imports driver, which doc:0 (row \"measure\") does not allow",
		"package newpkg is not in the package map of doc: add a row saying what it provides and may import",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The checker itself must be able to fail.
func TestMatch(t *testing.T) {
	cases := []struct {
		pattern, pkg string
		want         bool
	}{
		{"driver", "driver", true},
		{"driver", "driver/redis", false},
		{"driver/...", "driver", true},
		{"driver/...", "driver/redis", true},
		{"driver/...", "driverx", false},
		{"driver/*", "driver", false},
		{"driver/*", "driver/internal/drvkit", true},
	}
	for _, tc := range cases {
		if got := match(tc.pattern, tc.pkg); got != tc.want {
			t.Errorf("match(%q, %q) = %v, want %v", tc.pattern, tc.pkg, got, tc.want)
		}
	}
}
