package archtest

import (
	"bufio"
	"flag"
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

var update = flag.Bool("update", false, "rewrite README.md's layout block from the package map")

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

// pkgImports are the dbrig packages one package imports, each with the
// first file that imports it: from its non-test files (code) and from its
// _test.go files, internal and external test packages alike (test).
type pkgImports struct {
	code, test map[string]string
}

// graph is the module's import graph by package path relative to the root.
type graph map[string]*pkgImports

// readGraph parses the imports of every Go file under root.
func readGraph(root string) (graph, error) {
	g := graph{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		pkg := filepath.ToSlash(rel)
		pi := g[pkg]
		if pi == nil {
			pi = &pkgImports{code: map[string]string{}, test: map[string]string{}}
			g[pkg] = pi
		}
		into := pi.code
		if strings.HasSuffix(name, "_test.go") {
			into = pi.test
		}
		for _, imp := range f.Imports {
			ip := strings.Trim(imp.Path.Value, `"`)
			if !strings.HasPrefix(ip, module+"/") {
				continue
			}
			ip = strings.TrimPrefix(ip, module+"/")
			if _, ok := into[ip]; !ok {
				into[ip] = pkg + "/" + name
			}
		}
		return nil
	})
	return g, err
}

// imports returns every package of the module with the dbrig packages its
// non-test files import.
func imports(t *testing.T, root string) map[string][]string {
	g, err := readGraph(root)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for p, pi := range g {
		out[p] = sortedKeys(pi.code)
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ranking resolves packages to the entries of a layer list.
type ranking struct {
	layers []layer
	index  map[string]int // entry → layer index
}

func newRanking(ls []layer) (ranking, []string) {
	r := ranking{layers: ls, index: map[string]int{}}
	var errs []string
	for i, l := range ls {
		for _, e := range l.pkgs {
			if j, dup := r.index[e]; dup {
				errs = append(errs, fmt.Sprintf("layers.go: %s is in layers %s and %s", e, ls[j].name, l.name))
			}
			r.index[e] = i
		}
	}
	return r, errs
}

// entry is the entry that ranks p: its own, else the closest family
// above it ("" when none).
func (r ranking) entry(p string) string {
	if _, ok := r.index[p]; ok {
		return p
	}
	best := ""
	for e := range r.index {
		if strings.HasSuffix(e, "/...") && match(e, p) && len(e) > len(best) {
			best = e
		}
	}
	return best
}

// may tells whether package from may import package to: to is from
// itself (an external test package), ranks lower, or is of from's family.
func (r ranking) may(from, to string) bool {
	ef, et := r.entry(from), r.entry(to)
	return from == to || r.index[et] < r.index[ef] || ef == et && strings.HasSuffix(ef, "/...")
}

func (r ranking) describe(p string) string {
	return fmt.Sprintf("%s (layer %s)", p, r.layers[r.index[r.entry(p)]].name)
}

// checkImports lists every import that goes against the layers, every
// package without a layer and every entry of the lists that names nothing.
func checkImports(ls []layer, helpers []string, excs []testException, g graph) []string {
	r, out := newRanking(ls)
	isHelper := map[string]bool{}
	for _, h := range helpers {
		isHelper[h] = true
		if g[h] == nil {
			out = append(out, fmt.Sprintf("layers.go: test helper %s is no package", h))
		}
	}
	used := make([]bool, len(excs))
	exception := func(p, ip string) bool {
		for i, e := range excs {
			if e.pkg == p && e.imports == ip {
				used[i] = true
				return true
			}
		}
		return false
	}
	named := map[string]bool{}
	for _, p := range sortedPkgs(g) {
		e := r.entry(p)
		if e == "" {
			out = append(out, fmt.Sprintf("package %s has no layer: add it to the lowest fitting layer in internal/archtest/layers.go and give it a row in docs/architecture.md's package map", p))
			continue
		}
		named[e] = true
		for _, ip := range sortedKeys(g[p].code) {
			if r.entry(ip) != "" && !r.may(p, ip) {
				out = append(out, fmt.Sprintf("%s: %s imports %s: a package may import only lower layers", g[p].code[ip], r.describe(p), r.describe(ip)))
			}
		}
		for _, ip := range sortedKeys(g[p].test) {
			if r.entry(ip) != "" && !r.may(p, ip) && !isHelper[ip] && !exception(p, ip) {
				out = append(out, fmt.Sprintf("%s: test of %s imports %s: a test may import what its package may and the test helpers", g[p].test[ip], r.describe(p), r.describe(ip)))
			}
		}
	}
	for _, l := range ls {
		for _, e := range l.pkgs {
			if !named[e] {
				out = append(out, fmt.Sprintf("layers.go: %s (layer %s) names no package", e, l.name))
			}
		}
	}
	for i, e := range excs {
		if !used[i] {
			out = append(out, fmt.Sprintf("layers.go: the test exception %s → %s is not needed any more: remove it", e.pkg, e.imports))
		}
	}
	return out
}

func sortedPkgs(g graph) []string {
	out := make([]string, 0, len(g))
	for p := range g {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// row is one row of the package map: | `pkg` | layer | provides |.
type row struct {
	pkg, layer, provides string
	line                 int
}

// readMap parses the table that follows the "## Package map" heading.
func readMap(doc, text string) ([]row, error) {
	var rows []row
	in := false
	sc := bufio.NewScanner(strings.NewReader(text))
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
		if len(cells) != 3 {
			return nil, fmt.Errorf("%s:%d: expected | `package` | layer | provides |", doc, n)
		}
		rows = append(rows, row{
			pkg:      strings.Trim(strings.TrimSpace(cells[0]), "`"),
			layer:    strings.TrimSpace(cells[1]),
			provides: strings.TrimSpace(cells[2]),
			line:     n,
		})
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: no package map found", doc)
	}
	return rows, sc.Err()
}

// checkMap lists where the package map disagrees with the layers: a row
// naming neither an entry nor a package, a row whose layer is not its
// package's, rows out of layer order, an entry without a row.
func checkMap(ls []layer, rows []row, g graph, doc string) []string {
	r, _ := newRanking(ls)
	var out []string
	hasRow := map[string]bool{}
	last := -1
	for _, rw := range rows {
		hasRow[rw.pkg] = true
		_, entry := r.index[rw.pkg]
		if !entry && g[rw.pkg] == nil {
			out = append(out, fmt.Sprintf("%s:%d: %s is neither a package nor an entry of internal/archtest/layers.go", doc, rw.line, rw.pkg))
			continue
		}
		e := r.entry(rw.pkg)
		if e == "" {
			continue // checkImports reports it
		}
		i := r.index[e]
		if want := ls[i].name; rw.layer != want {
			out = append(out, fmt.Sprintf("%s:%d: %s is in layer %s (internal/archtest/layers.go), not %q", doc, rw.line, rw.pkg, want, rw.layer))
		}
		if i < last {
			out = append(out, fmt.Sprintf("%s:%d: %s (layer %s) is below a row of layer %s: keep the rows in layer order", doc, rw.line, rw.pkg, ls[i].name, ls[last].name))
		}
		last = max(last, i)
	}
	for _, l := range ls {
		for _, e := range l.pkgs {
			if !hasRow[e] {
				out = append(out, fmt.Sprintf("%s: %s (layer %s) has no row in the package map", doc, e, l.name))
			}
		}
	}
	return out
}

const (
	layoutBegin = "<!-- layout:begin (generated from docs/architecture.md by `go test ./internal/archtest -update`; do not edit) -->"
	layoutEnd   = "<!-- layout:end -->"
)

// short is the first clause of a provides cell: up to its first ": " or
// "; " (a colon in file:line or `NAME:ORD` does not end it).
func short(provides string) string {
	for _, sep := range []string{": ", "; "} {
		if i := strings.Index(provides, sep); i >= 0 {
			provides = provides[:i]
		}
	}
	return strings.TrimSpace(provides)
}

// layout is README's layout block: one line per row, in layer order.
func layout(rows []row) string {
	var b strings.Builder
	for _, rw := range rows {
		fmt.Fprintf(&b, "- `%s` — %s\n", rw.pkg, short(rw.provides))
	}
	return b.String()
}

// withLayout returns readme with the block between the layout markers
// replaced by block.
func withLayout(readme, block string) (string, error) {
	i := strings.Index(readme, "<!-- layout:begin")
	j := strings.Index(readme, layoutEnd)
	if i < 0 || j < i {
		return "", fmt.Errorf("README.md: no layout block: add the lines\n%s\n%s\nto its layout section and run go test ./internal/archtest -update", layoutBegin, layoutEnd)
	}
	return readme[:i] + layoutBegin + "\n" + block + readme[j:], nil
}

func root() string { return filepath.Join("..", "..") }

func realMap(t *testing.T) []row {
	doc := filepath.Join(root(), "docs", "architecture.md")
	b, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := readMap(doc, string(b))
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func realGraph(t *testing.T) graph {
	g, err := readGraph(root())
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestImportsFollowTheLayers(t *testing.T) {
	for _, v := range checkImports(layers(), testHelpers(), testExceptions(), realGraph(t)) {
		t.Error(v)
	}
}

func TestPackageMapAgreesWithTheLayers(t *testing.T) {
	doc := filepath.Join(root(), "docs", "architecture.md")
	for _, v := range checkMap(layers(), realMap(t), realGraph(t), doc) {
		t.Error(v)
	}
}

func TestReadmeLayout(t *testing.T) {
	path := filepath.Join(root(), "README.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := withLayout(string(b), layout(realMap(t)))
	if err != nil {
		t.Fatal(err)
	}
	if want == string(b) {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README.md's layout block differs from docs/architecture.md's package map: run go test ./internal/archtest -update")
}

// The synthetic module below is small, but its layers are the real ones'
// shape: measure under driver, a family, a test helper.
func synthetic() ([]layer, graph) {
	ls := []layer{
		{"base", []string{"errclass"}},
		{"primitives", []string{"measure"}},
		{"drivers", []string{"driver/..."}},
		{"top", []string{"cli"}},
	}
	g := graph{
		"errclass":          {code: map[string]string{}, test: map[string]string{}},
		"measure":           {code: map[string]string{"errclass": "measure/m.go"}, test: map[string]string{}},
		"driver":            {code: map[string]string{"errclass": "driver/d.go"}, test: map[string]string{}},
		"driver/redis":      {code: map[string]string{"driver": "driver/redis/r.go"}, test: map[string]string{"driver/drivertest": "driver/redis/r_test.go"}},
		"driver/drivertest": {code: map[string]string{"driver": "driver/drivertest/t.go"}, test: map[string]string{}},
		"cli":               {code: map[string]string{"driver/redis": "cli/c.go", "measure": "cli/c.go"}, test: map[string]string{}},
	}
	return ls, g
}

func TestSyntheticModuleFollowsItsLayers(t *testing.T) {
	ls, g := synthetic()
	if v := checkImports(ls, []string{"driver/drivertest"}, nil, g); len(v) > 0 {
		t.Fatalf("a module that follows its layers: %q", v)
	}
}

func TestUpwardImportFails(t *testing.T) {
	cases := []struct {
		name string
		edit func(graph)
		want string
	}{
		{"code", func(g graph) { g["measure"].code["driver"] = "measure/m.go" },
			"measure/m.go: measure (layer primitives) imports driver (layer drivers): a package may import only lower layers"},
		{"same layer", func(g graph) {
			g["errclass"].code["spec"] = "errclass/e.go"
			g["spec"] = &pkgImports{}
		},
			"errclass/e.go: errclass (layer base) imports spec (layer base)"},
		{"test file", func(g graph) { g["measure"].test["cli"] = "measure/m_test.go" },
			"measure/m_test.go: test of measure (layer primitives) imports cli (layer top)"},
		{"external test package", func(g graph) { g["driver/redis"].test["cli"] = "driver/redis/x_test.go" },
			"driver/redis/x_test.go: test of driver/redis (layer drivers) imports cli (layer top)"},
		{"no layer", func(g graph) { g["newpkg"] = &pkgImports{} },
			"package newpkg has no layer"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ls, g := synthetic()
			if tc.name == "same layer" {
				ls[0].pkgs = append(ls[0].pkgs, "spec")
			}
			tc.edit(g)
			v := checkImports(ls, []string{"driver/drivertest"}, nil, g)
			if len(v) != 1 || !strings.HasPrefix(v[0], tc.want) {
				t.Errorf("got %q, want one starting %q", v, tc.want)
			}
		})
	}
}

// A row edited to put measure above the drivers fails the map check, and
// the import it was meant to allow still fails: the doc does not decide.
func TestEditedDocRowDoesNotLegalise(t *testing.T) {
	ls, g := synthetic()
	good := "## Package map\n\n| package | layer | provides |\n|---|---|---|\n" +
		"| `errclass` | base | error classes |\n" +
		"| `measure` | primitives | the recorder |\n" +
		"| `driver/...` | drivers | drivers |\n" +
		"| `cli` | top | commands |\n"
	rows, err := readMap("doc", good)
	if err != nil {
		t.Fatal(err)
	}
	if v := checkMap(ls, rows, g, "doc"); len(v) > 0 {
		t.Fatalf("a map that agrees: %q", v)
	}
	edited := strings.Replace(good, "| `measure` | primitives |", "| `measure` | top |", 1)
	rows, err = readMap("doc", edited)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"doc:6: measure is in layer primitives (internal/archtest/layers.go), not \"top\""}
	if v := checkMap(ls, rows, g, "doc"); strings.Join(v, "\n") != strings.Join(want, "\n") {
		t.Errorf("edited row: %q, want %q", v, want)
	}
	g["measure"].code["driver"] = "measure/m.go"
	if v := checkImports(ls, []string{"driver/drivertest"}, nil, g); len(v) != 1 {
		t.Errorf("measure → driver with the edited map: %q, want one violation", v)
	}
}

func TestMapChecks(t *testing.T) {
	ls, g := synthetic()
	head := "## Package map\n| package | layer | provides |\n"
	cases := []struct{ name, rows, want string }{
		{"missing row", "| `errclass` | base | e |\n| `measure` | primitives | m |\n| `cli` | top | c |\n",
			"doc: driver/... (layer drivers) has no row in the package map"},
		{"unknown row", "| `errclass` | base | e |\n| `measure` | primitives | m |\n| `driver/...` | drivers | d |\n| `gone` | top | g |\n| `cli` | top | c |\n",
			"doc:6: gone is neither a package nor an entry"},
		{"out of order", "| `measure` | primitives | m |\n| `errclass` | base | e |\n| `driver/...` | drivers | d |\n| `cli` | top | c |\n",
			"doc:4: errclass (layer base) is below a row of layer primitives"},
		{"member row", "| `errclass` | base | e |\n| `measure` | primitives | m |\n| `driver/...` | drivers | d |\n| `driver/redis` | top | r |\n| `cli` | top | c |\n",
			"doc:6: driver/redis is in layer drivers (internal/archtest/layers.go), not \"top\""},
	}
	for _, tc := range cases {
		rows, err := readMap("doc", head+tc.rows)
		if err != nil {
			t.Fatal(err)
		}
		v := checkMap(ls, rows, g, "doc")
		if len(v) != 1 || !strings.HasPrefix(v[0], tc.want) {
			t.Errorf("%s: got %q, want one starting %q", tc.name, v, tc.want)
		}
	}
}

func TestListChecks(t *testing.T) {
	ls, g := synthetic()
	ls = append(ls, layer{"extra", []string{"gone/..."}})
	excs := []testException{{"measure", "cli", "no test needs it"}}
	v := checkImports(ls, []string{"driver/drivertest", "nohelper"}, excs, g)
	want := []string{
		"layers.go: test helper nohelper is no package",
		"layers.go: gone/... (layer extra) names no package",
		"layers.go: the test exception measure → cli is not needed any more: remove it",
	}
	if strings.Join(v, "\n") != strings.Join(want, "\n") {
		t.Errorf("got %q, want %q", v, want)
	}
}

func TestLayout(t *testing.T) {
	rows := []row{
		{pkg: "spec", provides: "what the user specified (file:line:column): properties; experiment files"},
		{pkg: "errclass", provides: "error classes; `Wrap`: `Of`"},
		{pkg: "format", provides: "one set of formatters"},
	}
	want := "- `spec` — what the user specified (file:line:column)\n- `errclass` — error classes\n- `format` — one set of formatters\n"
	if got := layout(rows); got != want {
		t.Errorf("layout:\n%s\nwant:\n%s", got, want)
	}
	readme := "# x\n\n## Layout\n\n<!-- layout:begin old -->\n- stale\n<!-- layout:end -->\n\nmore\n"
	got, err := withLayout(readme, want)
	if err != nil {
		t.Fatal(err)
	}
	if wantReadme := "# x\n\n## Layout\n\n" + layoutBegin + "\n" + want + layoutEnd + "\n\nmore\n"; got != wantReadme {
		t.Errorf("withLayout:\n%s\nwant:\n%s", got, wantReadme)
	}
	if _, err := withLayout("# x\n", want); err == nil {
		t.Error("withLayout without markers: no error")
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
