package results

import (
	"context"
	"maps"
	"slices"
	"testing"
	"time"
)

func testFaultRuns(t *testing.T, s *Store) {
	ctx := context.Background()
	start := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	add := func(system, workload string, kinds ...string) int64 {
		info := sampleInfo("f", start)
		info.System, info.Workload = system, workload
		id, err := s.CreateRun(ctx, info)
		if err != nil {
			t.Fatal(err)
		}
		for i, k := range kinds {
			if err := s.AddEvent(ctx, id, Event{Time: start.Add(time.Duration(i+1) * time.Second), Kind: k, Name: "x"}); err != nil {
				t.Fatal(err)
			}
		}
		return id
	}
	calm := add("redis", "ycsb/workloada", "phase_start", "phase_end")
	killed := add("redis", "ycsb/workloada", "phase_start", "fault", "phase_end")
	paused := add("redis", "ycsb/workloada", "fault_start", "fault_end", "fault_start", "fault_end")
	add("redis", "ycsb/workloadb", "fault")
	add("etcd", "ycsb/workloada", "fault_start")
	got, err := s.FaultRuns(ctx, "redis", "ycsb/workloada")
	if err != nil {
		t.Fatal(err)
	}
	if ids := slices.Sorted(maps.Keys(got)); !slices.Equal(ids, []int64{killed, paused}) || got[calm] {
		t.Errorf("runs with faults %v, want %d and %d only", ids, killed, paused)
	}
}

func TestFaultRunsSQLite(t *testing.T) { testFaultRuns(t, newSQLite(t)) }

func TestFaultRunsPostgres(t *testing.T) { testFaultRuns(t, openPostgres(t)) }
