package ycsb

import (
	"bytes"
	"context"
	"errors"
	"testing"
)

// Originals regenerates exactly what the load wrote, for loaded keys only.
func TestOriginalsMatchTheLoad(t *testing.T) {
	w, err := New(props("recordcount=50", "dataintegrity=true", "fieldcount=3", "fieldlength=16"))
	if err != nil {
		t.Fatal(err)
	}
	db := newMemDB()
	c := w.NewClient(0, 1).(*Client)
	for {
		n, err := c.Load(context.Background(), db, 10)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
	}
	keys := []string{w.Key(0), w.Key(17), w.Key(49), w.Key(50), "nokey"}
	got, err := w.Originals(keys)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("%d originals, want the 3 loaded keys of %v", len(got), keys)
	}
	for _, k := range keys[:3] {
		want := db.rows[k]
		if len(want) != 3 || len(got[k]) != 3 {
			t.Fatalf("key %s: loaded %d fields, regenerated %d", k, len(want), len(got[k]))
		}
		for f, v := range want {
			if !bytes.Equal(got[k][f], v) {
				t.Errorf("key %s field %s: regenerated %q, loaded %q", k, f, got[k][f], v)
			}
		}
	}
	w2, err := New(props("recordcount=50"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w2.Originals(keys); !errors.Is(err, ErrNotRegenerable) {
		t.Errorf("random values: %v, want ErrNotRegenerable", err)
	}
}
