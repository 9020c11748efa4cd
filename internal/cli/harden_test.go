package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func needEtcd(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("etcd"); err != nil {
		t.Skip("SKIPPED: no etcd")
	}
}

// cluster up on a node directory holding the user's files: exit 2, the
// files stay.
func TestClusterUpForeignDir(t *testing.T) {
	needEtcd(t)
	d := t.TempDir()
	thesis := filepath.Join(d, "etcd1", "thesis.txt")
	os.MkdirAll(filepath.Dir(thesis), 0o755)
	writeFile(t, thesis, "mine\n")
	state := filepath.Join(d, "s.json")
	code, _, errOut := dbrig(t, context.Background(), "cluster", "up", "etcd", "--nodes", "1", "--dir", d, "--state", state)
	if code == 0 {
		dbrig(t, context.Background(), "cluster", "down", "--state", state)
	}
	if code != 2 || !strings.Contains(errOut, "not created by dbrig") {
		t.Errorf("exit %d, want 2 and why; stderr: %s", code, errOut)
	}
	if b, err := os.ReadFile(thesis); err != nil || string(b) != "mine\n" {
		t.Fatalf("user's file: %q, %v", b, err)
	}
}

// cluster up interrupted (its context ends) exits 130, like every other
// interrupted command.
func TestClusterUpInterrupted(t *testing.T) {
	needEtcd(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	d := t.TempDir()
	code, _, errOut := dbrig(t, ctx, "cluster", "up", "etcd", "--nodes", "1", "--state", filepath.Join(d, "s.json"))
	if code != 130 {
		t.Errorf("exit %d, want 130; stderr: %s", code, errOut)
	}
}

// Output paths never replace a file dbrig did not write (--force allows it,
// except for a database); its own outputs are replaced.
func TestOutputsRefuseForeignFiles(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "r.db")
	ctx := context.Background()
	code, _, errOut := dbrig(t, ctx, "run", "--driver", "null", "--store", store, "-p", "recordcount=10", "-p", "operationcount=100", "--quiet")
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	other := filepath.Join(dir, "other-results.db")
	code, _, errOut = dbrig(t, ctx, "run", "--driver", "null", "--store", other, "-p", "recordcount=10", "-p", "operationcount=100", "--quiet")
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	otherBefore, _ := os.ReadFile(other)
	notes := filepath.Join(dir, "notes.txt")
	writeFile(t, notes, "mine\n")
	rep := filepath.Join(dir, "rep.html")
	cases := []struct {
		name string
		args []string
		code int
	}{
		{"report over another database", []string{"report", "1", "--store", store, "-o", other}, 2},
		{"report over it with --force", []string{"report", "1", "--store", store, "-o", other, "--force"}, 2},
		{"report over a user's file", []string{"report", "1", "--store", store, "-o", notes}, 2},
		{"hdrlog over a user's file", []string{"run", "--driver", "null", "--store", store, "-p", "recordcount=10", "-p", "operationcount=10", "--quiet", "--hdrlog", notes}, 2},
		{"a report", []string{"report", "1", "--store", store, "-o", rep}, 0},
		{"the same report again", []string{"report", "1", "--store", store, "-o", rep}, 0},
		{"sqlite.path is the results store", []string{"run", "--driver", "sqlite", "--store", store, "-p", "sqlite.path=" + store, "-p", "recordcount=10", "-p", "operationcount=10", "--quiet"}, 2},
	}
	for _, tc := range cases {
		code, _, errOut := dbrig(t, ctx, tc.args...)
		if code != tc.code {
			t.Errorf("%s: exit %d, want %d; stderr: %s", tc.name, code, tc.code, errOut)
		}
	}
	if b, _ := os.ReadFile(notes); string(b) != "mine\n" {
		t.Errorf("notes.txt replaced: %q", b)
	}
	if b, _ := os.ReadFile(other); string(b) != string(otherBefore) {
		t.Errorf("other results database replaced")
	}
	code, _, errOut = dbrig(t, ctx, "run", "--driver", "null", "--store", store, "-p", "recordcount=10", "-p", "operationcount=10", "--quiet", "--hdrlog", notes, "--force")
	if code != 0 {
		t.Errorf("--hdrlog notes.txt --force: exit %d: %s", code, errOut)
	}
}

// bench --hdrlog out.hlog numbers the second run's log out-2.hlog: a user's
// file of that name is refused before the first run.
func TestBenchNumberedHDRLogForeign(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "exp.yaml")
	writeFile(t, file, "name: b\nsystem: {driver: null}\ndataset: {records: 10}\nworkload: {files: [workloada]}\nload: {clients: 1, duration: 1s}\nrepeat: 2\n")
	second := filepath.Join(dir, "out-2.hlog")
	writeFile(t, second, "keep me\n")
	store := filepath.Join(dir, "r.db")
	code, _, errOut := dbrig(t, context.Background(), "bench", file, "--store", store, "--hdrlog", filepath.Join(dir, "out.hlog"), "--quiet")
	if code != 2 || !strings.Contains(errOut, "out-2.hlog") {
		t.Errorf("exit %d, want 2 naming out-2.hlog; stderr: %s", code, errOut)
	}
	if b, _ := os.ReadFile(second); string(b) != "keep me\n" {
		t.Errorf("out-2.hlog replaced: %q", b)
	}
}

// A rate dbrig cannot pace is bad input: exit 2, nothing stored.
func TestRateOutOfBounds(t *testing.T) {
	store := filepath.Join(t.TempDir(), "r.db")
	for _, rate := range []string{"1e9", "1e308", "1e-10", "1e8"} {
		code, _, errOut := dbrig(t, context.Background(), "run", "--driver", "null", "--store", store, "-p", "recordcount=10",
			"--rate", rate, "--duration", "1s", "--quiet")
		if code != 2 || !strings.Contains(errOut, "ops/s from") {
			t.Errorf("--rate %s: exit %d, want 2; stderr: %s", rate, code, errOut)
		}
	}
}

// Workers started by hand (--spawn=false) without DBRIG_TOKEN get a
// generated token, printed with how to pass it: no worker joins without it.
func TestWorkersByHandGetAToken(t *testing.T) {
	t.Setenv("DBRIG_TOKEN", "")
	store := filepath.Join(t.TempDir(), "r.db")
	code, _, errOut := dbrig(t, context.Background(), "run", "--driver", "null", "--store", store, "-p", "recordcount=10",
		"-p", "operationcount=10", "--workers", "1", "--spawn=false", "--connect-timeout", "200ms", "--quiet")
	if code == 0 || !strings.Contains(errOut, "DBRIG_TOKEN=") {
		t.Errorf("exit %d; stderr lacks the token to pass: %s", code, errOut)
	}
}

// k8s manifests: comments are not configuration and never reach the
// ConfigMap (an old password commented out, in a -P file or in YAML).
func TestK8sManifestsDropComments(t *testing.T) {
	dir := t.TempDir()
	props := filepath.Join(dir, "my.properties")
	writeFile(t, props, "recordcount=10\n# redis.password=OLDPASSWORD1\n! also=OLDPASSWORD2\nfieldcount=2\n")
	code, out, errOut := dbrig(t, context.Background(), "k8s", "manifests", "--driver", "redis", "-P", props, "-p", "redis.addr=r:6379",
		"-p", "redis.password=NEW", "--clients", "2", "--duration", "5s", "--workers", "2", "--image", "i")
	if code != 0 || strings.Contains(out+errOut, "OLDPASSWORD") || !strings.Contains(out, "fieldcount=2") {
		t.Errorf("-P: exit %d, stderr %q, stdout %q", code, errOut, out)
	}
	file := filepath.Join(dir, "exp.yaml")
	writeFile(t, file, "name: k\nsystem:\n  driver: redis\n  props:\n    redis.addr: r:6379 # redis.password: OLDPASSWORD3\n    # redis.password: OLDPASSWORD4\ndataset:\n  records: 100\nworkload:\n  files: [workloada]\nload:\n  clients: 2\n  duration: 5s\n")
	code, out, errOut = dbrig(t, context.Background(), "k8s", "manifests", file, "--workers", "2", "--image", "i")
	if code != 0 || strings.Contains(out+errOut, "OLDPASSWORD") {
		t.Errorf("yaml: exit %d, stderr %q, stdout %q", code, errOut, out)
	}
}

// Small messages: drivers -h is help, a directory or a text file as --store
// is bad input saying what was expected, a malformed pg.url is bad input.
func TestMessages(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.txt")
	writeFile(t, notes, "mine\n")
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"drivers", "-h"}, 0, "usage: dbrig drivers"},
		{[]string{"run", "--driver", "null", "--store", dir, "-p", "recordcount=10", "--quiet"}, 2, "is a directory, expected an SQLite file"},
		{[]string{"runs", "list", "--store", notes}, 2, "not an SQLite database"},
		{[]string{"run", "--driver", "postgres", "-p", "pg.url=::nonsense", "-p", "recordcount=10", "--store", filepath.Join(dir, "r.db"), "--quiet"}, 2, "expected a PostgreSQL URL"},
	}
	for _, tc := range cases {
		code, out, errOut := dbrig(t, context.Background(), tc.args...)
		if code != tc.code || !strings.Contains(out+errOut, tc.want) {
			t.Errorf("%v: exit %d, want %d and %q; stdout %q stderr %q", tc.args, code, tc.code, tc.want, out, errOut)
		}
	}
}

// report --png DIR replaces the PNGs an earlier report wrote there, never a
// file of the user's that has one of their names (unless --force).
func TestReportPNGsRefuseForeignFiles(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "r.db")
	ctx := context.Background()
	if code, _, errOut := dbrig(t, ctx, "run", "--driver", "null", "--store", store, "-p", "recordcount=10", "--duration", "2s", "--quiet"); code != 0 {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	pngs := filepath.Join(dir, "png")
	report := func() (int, string) {
		code, _, errOut := dbrig(t, ctx, "report", "1", "--store", store, "-o", filepath.Join(dir, "r.html"), "--png", pngs)
		return code, errOut
	}
	for i := range 2 { // the second replaces the first's PNGs
		if code, errOut := report(); code != 0 {
			t.Fatalf("report %d: exit %d: %s", i+1, code, errOut)
		}
	}
	written, _ := filepath.Glob(filepath.Join(pngs, "*.png"))
	if len(written) == 0 {
		t.Fatal("no PNG written")
	}
	writeFile(t, written[0], "mine\n")
	if code, errOut := report(); code != 2 || !strings.Contains(errOut, filepath.Base(written[0])) {
		t.Errorf("over a user's file: exit %d, want 2 naming it; stderr: %s", code, errOut)
	}
	if b, _ := os.ReadFile(written[0]); string(b) != "mine\n" {
		t.Errorf("the user's file was replaced (%d bytes)", len(b))
	}
}
