package outfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "r.db")
	os.WriteFile(store, []byte("db"), 0o644)
	link := filepath.Join(dir, "link.html")
	os.Symlink(store, link)
	pebble := filepath.Join(dir, "pebble")
	os.Mkdir(pebble, 0o755)
	ro := filepath.Join(dir, "ro")
	os.Mkdir(ro, 0o555)
	protected := []Path{{"results store", store}, {"pebble.dir", pebble}}
	cases := []struct {
		name    string
		outputs []Path
		want    string // "" = no error
	}{
		{"fresh file", []Path{{"-o", filepath.Join(dir, "r.html")}}, ""},
		{"missing directory is created", []Path{{"-o", filepath.Join(dir, "new", "r.html")}}, ""},
		{"the store itself", []Path{{"-o", store}}, "results store"},
		{"the store through a symlink", []Path{{"-o", link}}, "results store"},
		{"the store by a relative-looking path", []Path{{"--hdrlog", filepath.Join(dir, ".", "r.db")}}, "results store"},
		{"inside a data directory", []Path{{"--hdrlog", filepath.Join(pebble, "x.hlog")}}, "pebble.dir"},
		{"two outputs, one file", []Path{{"-o", filepath.Join(dir, "a")}, {"--hdrlog", filepath.Join(dir, "a")}}, "-o"},
		{"a directory", []Path{{"-o", dir}}, "is a directory"},
		{"a device", []Path{{"-o", "/dev/null"}}, "not a regular file"},
		{"empty is skipped", []Path{{"-o", ""}}, ""},
	}
	if os.Geteuid() != 0 { // root writes anywhere
		cases = append(cases, struct {
			name    string
			outputs []Path
			want    string
		}{"unwritable directory", []Path{{"-o", filepath.Join(ro, "r.html")}}, "not writable"})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := Check(tc.outputs, protected)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("Check: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("Check: %v, want an error mentioning %q", err, tc.want)
			}
		})
	}
	if err := Check([]Path{{"-o", store}}, protected); !errors.Is(err, ErrConflict) {
		t.Errorf("conflict is not ErrConflict: %v", err)
	}
	if b, _ := os.ReadFile(store); string(b) != "db" {
		t.Error("Check changed the store")
	}
}

func TestCreateCommitAbort(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.html")
	os.WriteFile(path, []byte("old"), 0o644)

	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("half")
	f.Abort()
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("after Abort the file holds %q, want the old content", b)
	}
	f, err = Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("new")
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("before Commit the file holds %q, want the old content", b)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	f.Abort() // deferred Abort after Commit does nothing
	if b, _ := os.ReadFile(path); string(b) != "new" {
		t.Errorf("after Commit the file holds %q, want new", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

// An existing file is replaced only when dbrig wrote it (or --force says
// so); a database never, even with --force.
func TestCheckExisting(t *testing.T) {
	dir := t.TempDir()
	var png bytes.Buffer
	w := TagPNG(&png)
	w.Write(pngHead())
	w.Write([]byte("rest of the image"))
	files := map[string]string{
		"notes.txt":       "my thesis\n",
		"other.db":        "SQLite format 3\x00" + strings.Repeat("x", 100),
		"duck.db":         "\x00\x00\x00\x00\x00\x00\x00\x00DUCK" + strings.Repeat("x", 100),
		"dump.rdb":        "REDIS0011" + strings.Repeat("x", 100),
		"empty.html":      "",
		"report-1.html":   "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"generator\" content=\"dbrig\">\n<title>dbrig report</title>",
		"rating-1.html":   "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>dbrig rating 1</title>",
		"out.hlog":        "#dbrig run 3\n#[Histogram log format version 1.3]\n#[StartTime: 1.000 (seconds since epoch), x]\n#[BaseTime: 1.000 (seconds since epoch)]\n#[values are response times in microseconds, tagged by operation]\n",
		"foreign.hlog":    "#[Histogram log format version 1.3]\n#[StartTime: 1.000 (seconds since epoch)]\n",
		"plot.png":        png.String(),
		"someone-els.png": string(pngHead()),
	}
	for name, content := range files {
		os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644)
	}
	cases := []struct {
		name  string
		force bool
		want  error // nil: may be replaced
	}{
		{"notes.txt", false, ErrForeign},
		{"notes.txt", true, nil},
		{"other.db", false, ErrDatabase},
		{"other.db", true, ErrDatabase},
		{"duck.db", true, ErrDatabase},
		{"dump.rdb", true, ErrDatabase},
		{"empty.html", false, nil},
		{"report-1.html", false, nil},
		{"rating-1.html", false, nil},
		{"out.hlog", false, nil},
		{"foreign.hlog", false, ErrForeign},
		{"plot.png", false, nil},
		{"someone-els.png", false, ErrForeign},
	}
	for _, tc := range cases {
		err := CheckForce([]Path{{"-o", filepath.Join(dir, tc.name)}}, nil, tc.force)
		if !errors.Is(err, tc.want) || (err == nil) != (tc.want == nil) {
			t.Errorf("%s force=%v: %v, want %v", tc.name, tc.force, err, tc.want)
		}
	}
	for name, content := range files {
		if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) != content {
			t.Errorf("%s changed by the check", name)
		}
	}
}

// pngHead is a PNG signature and an IHDR chunk.
func pngHead() []byte {
	b := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR")
	b = append(b, make([]byte, 13+4)...)
	return b
}
