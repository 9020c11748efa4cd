package cassandra

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/dbrig/dbrig/cluster"
)

// libDir is where Cassandra version's jars are cached: in dir (default
// $XDG_CACHE_HOME/dbrig, i.e. ~/.cache/dbrig) under cassandra/VERSION/lib,
// with a manifest of each jar's SHA-1 beside it.
func libDir(dir, version string) (string, error) {
	if dir == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("cluster: cache dir for cassandra: %w", err)
		}
		dir = filepath.Join(c, "dbrig")
	}
	return filepath.Join(dir, "cassandra", version, "lib"), nil
}

// manifest is the file listing the cached jars and their SHA-1s, written
// only once every jar is in place: a cache without it is incomplete.
func manifest(lib string) string { return lib + ".sha1" }

// cached reports whether lib holds every jar its manifest lists, each
// matching its SHA-1.
func cached(lib string) bool {
	f, err := os.Open(manifest(lib))
	if err != nil {
		return false
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok || strings.ContainsRune(name, '/') {
			return false
		}
		if got, err := cluster.FileSHA1(filepath.Join(lib, name)); err != nil || got != sum {
			return false
		}
		n++
	}
	return sc.Err() == nil && n > 0
}

// pom is a project whose runtime dependencies are Cassandra's: Maven
// resolves them (checking Maven Central's checksums) and copies them out.
func pom(version string) string {
	return `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>dev.dbrig</groupId><artifactId>cassandra-runtime</artifactId><version>1</version>
  <dependencies>
    <dependency><groupId>org.apache.cassandra</groupId><artifactId>cassandra-all</artifactId><version>` + version + `</version></dependency>
  </dependencies>
</project>
`
}

// fetchLib makes sure lib holds Cassandra version and its runtime
// dependencies: mvn (at mvnPath, run by run) copies them into a temporary
// directory beside lib, which is renamed into place with its manifest once
// complete.
func fetchLib(ctx context.Context, run func(ctx context.Context, bin string, args ...string) error, mvnPath, lib, version string) error {
	if cached(lib) {
		return nil
	}
	parent := filepath.Dir(lib)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, ".fetch-*")
	if err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := os.WriteFile(filepath.Join(tmp, "pom.xml"), []byte(pom(version)), 0o644); err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	out := filepath.Join(tmp, "lib")
	if err := run(ctx, mvnPath, "-B", "-q", "-f", filepath.Join(tmp, "pom.xml"),
		"--strict-checksums", "dependency:copy-dependencies", "-DincludeScope=runtime", "-DoutputDirectory="+out); err != nil {
		return &FetchError{Version: version, Err: err}
	}
	jars, err := filepath.Glob(filepath.Join(out, "*.jar"))
	if err != nil || len(jars) == 0 {
		return &FetchError{Version: version, Err: fmt.Errorf("no jars in %s (%v)", out, err)}
	}
	sort.Strings(jars)
	var m strings.Builder
	for _, j := range jars {
		sum, err := cluster.FileSHA1(j)
		if err != nil {
			return fmt.Errorf("cluster: %w", err)
		}
		fmt.Fprintf(&m, "%s  %s\n", sum, filepath.Base(j))
	}
	os.RemoveAll(lib) // an incomplete earlier copy
	if err := os.Rename(out, lib); err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	return os.WriteFile(manifest(lib), []byte(m.String()), 0o644)
}

// FetchError says Cassandra's jars could not be resolved.
type FetchError struct {
	Version string
	Err     error
}

func (e *FetchError) Error() string {
	return fmt.Sprintf("cluster: fetching Cassandra %s and its dependencies with Maven: %v (no network? give a directory of its jars as the recipe's binary)", e.Version, e.Err)
}

func (e *FetchError) Unwrap() error { return e.Err }
