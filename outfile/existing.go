package outfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
)

// ErrForeign is wrapped when an output path names an existing file that
// dbrig did not write: it is replaced only when the user says --force.
var ErrForeign = errors.New("exists and was not written by dbrig (say --force to replace it)")

// ErrDatabase is wrapped when an output path names a database file: that is
// never replaced, not even with --force.
var ErrDatabase = errors.New("is a database file; dbrig never writes over one")

// dbMagic are the first bytes (at an offset) of database files dbrig may
// meet: its own results store and the stores it benchmarks.
var dbMagic = []struct {
	off   int
	magic string
}{
	{0, "SQLite format 3\x00"},
	{0, "** This file contains an SQLite"}, // SQLite 2
	{8, "DUCK"},                            // DuckDB
	{0, "REDIS"},                           // Redis RDB dump
	{0, "PGDMP"},                           // pg_dump custom format
	{16, "\xed\xda\x0c\xed"},               // bbolt (etcd), little-endian magic
	{12, "\x00\x06\x15\x61"},               // Berkeley DB btree
	{12, "\x61\x15\x06\x00"},
	{0, "\xde\xc0\xef\xbe"}, // LMDB
}

// ownMarks say "dbrig wrote this": its HTML pages, HdrHistogram logs,
// tagged PNGs and dbrig check's JUnit XML (gate.JUnitMark).
var ownMarks = [][]byte{
	[]byte(`<meta name="generator" content="dbrig">`),
	[]byte("<title>dbrig "),
	[]byte("#[values are response times in microseconds, tagged by operation]"),
	pngTag(),
	[]byte(`<testsuites name="dbrig check"`),
}

// existing checks an existing regular file before it is replaced.
func existing(path string, force bool) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return err
	}
	head = head[:n]
	for _, m := range dbMagic {
		if len(head) >= m.off+len(m.magic) && string(head[m.off:m.off+len(m.magic)]) == m.magic {
			return ErrDatabase
		}
	}
	if n == 0 || force {
		return nil
	}
	for _, m := range ownMarks {
		if bytes.Contains(head, m) {
			return nil
		}
	}
	return ErrForeign
}

const pngSig = "\x89PNG\r\n\x1a\n"

// pngTag is a PNG tEXt chunk "Software: dbrig", which TagPNG puts after the
// header so that a later run recognises the image as its own.
func pngTag() []byte {
	data := []byte("tEXtSoftware\x00dbrig")
	b := binary.BigEndian.AppendUint32(nil, uint32(len(data)-4))
	b = append(b, data...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(data))
}

// TagPNG returns a writer that passes a PNG stream on to w with dbrig's
// tEXt chunk inserted after the IHDR chunk. Call Flush when done.
func TagPNG(w io.Writer) *PNGTagger { return &PNGTagger{w: w} }

// PNGTagger is TagPNG's writer.
type PNGTagger struct {
	w    io.Writer
	head []byte
	done bool
}

// ihdrEnd is where the IHDR chunk ends: signature, length, type, 13 bytes
// of data, CRC.
const ihdrEnd = 8 + 4 + 4 + 13 + 4

func (t *PNGTagger) Write(p []byte) (int, error) {
	if t.done {
		return t.w.Write(p)
	}
	t.head = append(t.head, p...)
	if len(t.head) < ihdrEnd {
		return len(p), nil
	}
	t.done = true
	out := t.head
	if string(out[:8]) == pngSig && string(out[12:16]) == "IHDR" {
		out = append(append(append([]byte{}, out[:ihdrEnd]...), pngTag()...), out[ihdrEnd:]...)
	}
	t.head = nil
	if _, err := t.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what is held back (a stream shorter than a PNG header).
func (t *PNGTagger) Flush() error {
	if t.done || len(t.head) == 0 {
		return nil
	}
	t.done = true
	_, err := t.w.Write(t.head)
	return err
}

// CheckForce is Check, with force allowing to replace an existing file dbrig
// did not write (never a database).
func CheckForce(outputs, protected []Path, force bool) error {
	if err := check(outputs, protected); err != nil {
		return err
	}
	for _, o := range outputs {
		if o.Path == "" {
			continue
		}
		st, err := os.Stat(o.Path)
		if err != nil || !st.Mode().IsRegular() {
			continue // writable() has judged it
		}
		if err := existing(o.Path, force); err != nil {
			return fmt.Errorf("%s %s: %w", o.Role, o.Path, err)
		}
	}
	return nil
}

// Overlap returns an ErrConflict error when a and b name the same file (or
// a lies in directory b): a benchmark's data path must not be the results
// store.
func Overlap(a, b Path) error {
	if a.Path != "" && b.Path != "" && (same(a.Path, b.Path) || same(b.Path, a.Path)) {
		return fmt.Errorf("%s %s: %w %s (%s)", a.Role, a.Path, ErrConflict, b.Role, b.Path)
	}
	return nil
}
