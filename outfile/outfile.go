// Package outfile writes dbrig's output files (reports, HdrHistogram logs,
// PNGs) without ever destroying something else: each output is checked
// before the run starts (writable, not a directory or device, not the
// results store or a data path of the run, not another output), written to
// a temporary file beside it and renamed into place only when complete. A
// failed write removes only the temporary file dbrig created.
package outfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrConflict is wrapped when an output path names the same file as the
// results store, a data path of the run, or another output.
var ErrConflict = errors.New("output would overwrite")

// Path is a file path with what it is for, for messages ("-o", "results
// store", "sqlite.path").
type Path struct {
	Role string
	Path string
}

// Check verifies, before anything runs, that every output can be written
// and that no output is the same file as a protected path or another output,
// an existing file dbrig did not write, or a database. Outputs may not exist
// yet; their directory is created when missing (as -o and --png promise).
// Empty paths are skipped.
func Check(outputs []Path, protected []Path) error {
	return CheckForce(outputs, protected, false)
}

func check(outputs []Path, protected []Path) error {
	var seen []Path
	for _, p := range protected {
		if p.Path != "" {
			seen = append(seen, p)
		}
	}
	for _, o := range outputs {
		if o.Path == "" {
			continue
		}
		for _, s := range seen {
			if same(o.Path, s.Path) {
				return fmt.Errorf("%s %s: %w %s (%s)", o.Role, o.Path, ErrConflict, s.Role, s.Path)
			}
		}
		if err := writable(o.Path); err != nil {
			return fmt.Errorf("%s %s: %w", o.Role, o.Path, err)
		}
		seen = append(seen, o)
	}
	return nil
}

// same tells whether a and b name the same file: equal absolute paths, the
// same existing file (links), or a inside directory b (a data directory).
func same(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	if err1 == nil && err2 == nil {
		if aa == bb {
			return true
		}
		if rel, err := filepath.Rel(bb, aa); err == nil && rel != ".." && !filepath.IsAbs(rel) && len(rel) > 0 && rel[0] != '.' {
			if st, err := os.Stat(bb); err == nil && st.IsDir() {
				return true
			}
		}
	}
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// writable checks that path is (or can become) a regular file we may write.
func writable(path string) error {
	st, err := os.Stat(path)
	switch {
	case err == nil && st.IsDir():
		return errors.New("is a directory")
	case err == nil && !st.Mode().IsRegular():
		return fmt.Errorf("is not a regular file (%v)", st.Mode().Type())
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot create its directory: %w", err)
	}
	f, err := os.CreateTemp(dir, ".dbrig-check-*")
	if err != nil {
		return fmt.Errorf("directory is not writable: %w", err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// File is an output being written: a temporary file beside its final path.
type File struct {
	*os.File
	final string
	done  bool
}

// Create starts writing path: the data goes to a temporary file in the same
// directory (so the rename is atomic) until Commit.
func Create(path string) (*File, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, err
	}
	return &File{File: f, final: path}, nil
}

// Commit flushes the file to disk and renames it to its final path.
func (f *File) Commit() error {
	if f.done {
		return nil
	}
	f.done = true
	err := errors.Join(f.Sync(), f.Close())
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), f.final)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", f.final, err)
	}
	return nil
}

// Abort removes the temporary file; the final path is left as it was. It is
// safe to call after Commit (it then does nothing), so it can be deferred.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.Close()
	os.Remove(f.Name())
}

// Write writes path through a temporary file renamed into place only when
// write succeeded; prefix goes before the file's own errors.
func Write(path, prefix string, write func(io.Writer) error) error {
	f, err := Create(path)
	if err != nil {
		return Prefix(prefix, err)
	}
	defer f.Abort() // removes only the temporary file, never path
	if err := write(f); err != nil {
		return err
	}
	return Prefix(prefix, f.Commit())
}

// Prefix is err with prefix before its text; nil stays nil.
func Prefix(prefix string, err error) error {
	if err == nil || prefix == "" {
		return err
	}
	return fmt.Errorf("%s%w", prefix, err)
}
