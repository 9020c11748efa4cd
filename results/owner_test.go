package results

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// A run whose recording process is gone (a kill -9) is marked abandoned by
// the next Open; one whose process runs, or that another boot recorded
// (unprovable), stays running.
func TestOpenMarksAbandonedRuns(t *testing.T) {
	here, ok := thisProcess()
	if !ok {
		t.Skip("SKIPPED: no /proc")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "r.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]int64{}
	for _, name := range []string{"live", "killed", "other boot", "old row"} {
		id, err := s.CreateRun(ctx, RunInfo{Name: name, Start: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		ids[name] = id
	}
	// The same PID started at another time: the process that recorded it is gone.
	set := func(name, q string, args ...any) {
		if _, err := s.exec(ctx, q, append(args, ids[name])...); err != nil {
			t.Fatal(err)
		}
	}
	set("killed", `UPDATE runs SET owner_start = ? WHERE id = ?`, int64(here.Start)+1)
	set("other boot", `UPDATE runs SET owner_start = ?, owner_boot = ? WHERE id = ?`, int64(here.Start)+1, "another-boot")
	set("old row", `UPDATE runs SET owner_pid = NULL, owner_start = NULL, owner_boot = NULL, owner_pidns = NULL WHERE id = ?`)
	s.Close()

	s, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want := map[string]string{"live": StatusRunning, "killed": StatusAbandoned, "other boot": StatusRunning, "old row": StatusRunning}
	rows, err := s.ListRuns(ctx, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Status != want[r.Name] {
			t.Errorf("run %q: status %s, want %s", r.Name, r.Status, want[r.Name])
		}
		if r.Name == "killed" && (r.End.IsZero() || r.DisplayStatus() != "abandoned") {
			t.Errorf("killed run: end %v, shown %s", r.End, r.DisplayStatus())
		}
	}
}
