package rating

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/internal/testenv"
)

// On PostgreSQL (a driver.KeyRestorer) --reset snapshot puts back only the
// keys the last experiment wrote: the image is taken after the load, before
// the first experiment, so every later step restores the keys written.
func TestSnapshotRestoresWrittenKeysOnPostgres(t *testing.T) {
	url := testenv.Need(t, "DBRIG_PG_URL")
	dir := t.TempDir()
	r, err := Rate(context.Background(), Options{
		Base: experiment.Options{Driver: "postgres", Store: filepath.Join(dir, "r.db"), Recreate: true,
			Props: []string{"recordcount=2000", "pg.url=" + url, "table=r10b_snapkeys"}},
		SLA: mustSLA(t, "p99<5s"), Step: time.Second, SLADuration: time.Second,
		Start: 100, Max: 200, Reset: ResetSnapshot,
		Votes: 1, Warmup: -1, MinTail: -1, // the resets are under test here, not the verdicts
	}, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Steps) < 3 {
		t.Fatalf("%d steps, want 100, 200 and the final run", len(r.Steps))
	}
	for _, s := range r.Steps[1:] {
		t.Logf("%s %g reset %s keys %d %.3fs", s.Kind, s.Target, s.Reset, s.Keys, s.ResetS)
		if s.Reset != ResetSnapshot {
			t.Errorf("step at %g: reset %q, want snapshot", s.Target, s.Reset)
		}
		if s.Keys < 10 {
			t.Errorf("step at %g restored %d keys, want those workload A's updates wrote (about half of 100+ operations)", s.Target, s.Keys)
		}
	}
}
