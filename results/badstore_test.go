package results

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A --store that cannot be a results store is bad input (ErrBadStore: exit
// 2) saying what was expected, not SQLite's "out of memory (14)".
func TestOpenBadStore(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.txt")
	os.WriteFile(text, []byte("my notes, not a database\n"), 0o644)
	for _, path := range []string{dir, text} {
		s, err := Open(context.Background(), path)
		if err == nil {
			s.Close()
		}
		if !errors.Is(err, ErrBadStore) || !strings.Contains(err.Error(), "expected") {
			t.Errorf("%s: %v", path, err)
		}
	}
	if b, _ := os.ReadFile(text); string(b) != "my notes, not a database\n" {
		t.Errorf("notes.txt changed: %q", b)
	}
}
