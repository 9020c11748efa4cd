package cluster

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFileSHA1(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	// SHA-1("abc"), FIPS 180-2's example.
	if got, err := FileSHA1(p); err != nil || got != "a9993e364706816aba3e25717850c26c9cd0d89d" {
		t.Errorf("FileSHA1 = %q, %v", got, err)
	}
	if _, err := FileSHA1(p + ".missing"); err == nil {
		t.Error("a missing file has no SHA-1")
	}
}
