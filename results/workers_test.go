package results

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

func TestWorkersSQLite(t *testing.T) {
	testWorkers(t, openSQLite(t, filepath.Join(t.TempDir(), "r.db")))
}

func TestWorkersPostgres(t *testing.T) { testWorkers(t, openPostgres(t)) }

func testWorkers(t *testing.T, s *Store) {
	ctx := context.Background()
	id, err := s.CreateRun(ctx, sampleInfo("workers", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Workers(ctx, id); err != nil || len(got) != 0 {
		t.Fatalf("Workers of a run without workers = %v, %v; want none", got, err)
	}
	lost := time.Date(2026, 1, 2, 3, 4, 9, 250000000, time.UTC)
	want := []Worker{
		{Index: 0, Host: "a", PID: 11, ClockOffset: -37 * time.Microsecond, RTT: 120 * time.Microsecond, Ops: 1000, Records: 50, Status: WorkerDone,
			Clients: 3, RespP50: 210, RespP99: 1900, LagP99: 45},
		{Index: 1, Host: "b", PID: 12, ClockOffset: 2 * time.Millisecond, RTT: 90 * time.Microsecond, Ops: 400, Records: 50, Status: WorkerLost, LostAt: lost, Detail: "connection lost: EOF"},
	}
	if err := s.AddWorkers(ctx, id, want); err != nil {
		t.Fatal(err)
	}
	got, err := s.Workers(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Workers = %+v\nwant %+v", got, want)
	}
	ivs := []WorkerInterval{
		{Index: 0, Phase: "measure", Seq: 0, Ops: 500, Errors: 1, Dropped: 2, LagP99: 30, RespP99: 1700, TargetRate: 512.5},
		{Index: 1, Phase: "measure", Seq: 0, Ops: 400, LagP99: 0},
		{Index: 0, Phase: "measure", Seq: 1, Ops: 500},
	}
	if err := s.AddWorkerIntervals(ctx, id, ivs); err != nil {
		t.Fatal(err)
	}
	gotIvs, err := s.WorkerIntervals(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gotIvs, ivs) {
		t.Errorf("WorkerIntervals = %+v\nwant %+v", gotIvs, ivs)
	}
	// A second row for the same worker is refused (primary key).
	if err := s.AddWorkers(ctx, id, want[:1]); err == nil {
		t.Error("AddWorkers accepted worker 0 twice")
	}
}
