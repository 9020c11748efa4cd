package hazelcast

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/dbrig/dbrig/cluster"
)

// mavenCentral is where jars come from (HTTPS only).
const mavenCentral = "https://repo1.maven.org/maven2"

// mavenJar is where group:artifact:version's jar is cached (in dir,
// default $XDG_CACHE_HOME/dbrig, i.e. ~/.cache/dbrig, laid out as the
// repository is) and where it comes from.
func mavenJar(dir, group, artifact, version string) (path, url string, err error) {
	if dir == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			return "", "", fmt.Errorf("cluster: cache dir for %s: %w", artifact, err)
		}
		dir = filepath.Join(c, "dbrig")
	}
	rel := strings.ReplaceAll(group, ".", "/") + "/" + artifact + "/" + version + "/" + artifact + "-" + version + ".jar"
	return filepath.Join(dir, "maven", filepath.FromSlash(rel)), mavenCentral + "/" + rel, nil
}

// FetchError says a jar could not be fetched or failed its checksum.
type FetchError struct {
	URL string
	Err error
}

func (e *FetchError) Error() string {
	return fmt.Sprintf("cluster: fetch %s: %v (no network? put the jar there yourself, or give its path as the recipe's binary)", e.URL, e.Err)
}

func (e *FetchError) Unwrap() error { return e.Err }

// fetchMavenJar makes sure the jar at path is there and matches its SHA-1
// from url+".sha1", kept beside it as
// path.sha1. A cached jar that matches its cached .sha1 needs no network; a
// download goes to a temporary file and is renamed into place only once its
// SHA-1 matches, so a reader never sees a partial jar.
func fetchMavenJar(ctx context.Context, path, url string) (fetched bool, err error) {
	if want, err := os.ReadFile(path + ".sha1"); err == nil {
		if got, err := cluster.FileSHA1(path); err == nil && got == sha1Field(want) {
			return false, nil
		}
	}
	if local := mavenLocal(url); local != "" && copyIfMatches(local, path) {
		return false, nil
	}
	sum, err := httpGet(ctx, url+".sha1", 1<<10, io.Discard)
	if err != nil {
		return false, &FetchError{URL: url + ".sha1", Err: err}
	}
	want := sha1Field(sum)
	if len(want) != 40 {
		return false, &FetchError{URL: url + ".sha1", Err: fmt.Errorf("not a SHA-1: %q", sum)}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, fmt.Errorf("cluster: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".download-*")
	if err != nil {
		return false, fmt.Errorf("cluster: %w", err)
	}
	defer os.Remove(tmp.Name()) // after the rename, a no-op
	h := sha1.New()
	_, err = httpGet(ctx, url, 1<<30, io.MultiWriter(tmp, h))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, &FetchError{URL: url, Err: err}
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		return false, &FetchError{URL: url, Err: fmt.Errorf("SHA-1 %s, want %s", got, want)}
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return false, fmt.Errorf("cluster: %w", err)
	}
	if err := os.WriteFile(path+".sha1", []byte(want+"\n"), 0o644); err != nil {
		return false, fmt.Errorf("cluster: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return false, fmt.Errorf("cluster: %w", err)
	}
	return true, nil
}

// mavenLocal is where Maven's own local repository (~/.m2/repository)
// keeps the file at url, or "" when there is no home.
func mavenLocal(url string) string {
	home, err := os.UserHomeDir()
	rel, ok := strings.CutPrefix(url, mavenCentral+"/")
	if err != nil || !ok {
		return ""
	}
	return filepath.Join(home, ".m2", "repository", filepath.FromSlash(rel))
}

// copyIfMatches copies the jar at src (with its src.sha1, as Maven keeps
// them) to path when it matches that SHA-1: a jar Maven fetched before
// needs no network.
func copyIfMatches(src, path string) bool {
	want, err := os.ReadFile(src + ".sha1")
	if err != nil {
		return false
	}
	if got, err := cluster.FileSHA1(src); err != nil || got != sha1Field(want) {
		return false
	}
	b, err := os.ReadFile(src)
	if err != nil || os.MkdirAll(filepath.Dir(path), 0o755) != nil {
		return false
	}
	tmp := path + ".copy"
	if os.WriteFile(tmp, b, 0o644) != nil || os.WriteFile(path+".sha1", []byte(sha1Field(want)+"\n"), 0o644) != nil ||
		os.Rename(tmp, path) != nil {
		os.Remove(tmp)
		return false
	}
	return true
}

// httpGet copies url's body to w (at most limit bytes) and returns the body
// when it is small (the .sha1 file), else nil.
func httpGet(ctx context.Context, url string, limit int64, w io.Writer) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, errors.New(resp.Status)
	}
	if limit <= 1<<10 {
		return io.ReadAll(io.LimitReader(resp.Body, limit))
	}
	n, err := io.Copy(w, io.LimitReader(resp.Body, limit+1))
	if err == nil && n > limit {
		err = fmt.Errorf("larger than %d bytes", limit)
	}
	return nil, err
}

// sha1Field is the checksum in a .sha1 file: its first word, lower case
// (some hold "SUM  filename").
func sha1Field(b []byte) string {
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return ""
	}
	return strings.ToLower(f[0])
}

func readable(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	return f.Close()
}
