package results

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"reflect"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
)

// forEachDialect runs f on a new SQLite store and on PostgreSQL. The
// PostgreSQL store lives in a schema of its own in dbrig_results (dropped
// afterwards), so a migration this branch adds never reaches the shared
// database other branches' tests use.
func forEachDialect(t *testing.T, f func(t *testing.T, s *Store)) {
	t.Run("sqlite", func(t *testing.T) { f(t, newSQLite(t)) })
	t.Run("postgres", func(t *testing.T) {
		base := pgResultsURL(t)
		schema := fmt.Sprintf("dbrig_test_%08x", rand.Uint32())
		admin, err := sql.Open("pgx", base)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if _, err := admin.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
			admin.Close()
			t.Fatalf("create schema: %v", err)
		}
		t.Cleanup(func() {
			defer admin.Close()
			if _, err := admin.ExecContext(context.Background(), "DROP SCHEMA "+schema+" CASCADE"); err != nil {
				t.Errorf("drop schema %s: %v", schema, err)
			}
		})
		u, err := url.Parse(base)
		if err != nil {
			t.Fatal(err)
		}
		q := u.Query()
		q.Set("search_path", schema)
		u.RawQuery = q.Encode()
		s, err := Open(ctx, u.String())
		if err != nil {
			t.Fatalf("open postgres store in schema %s: %v", schema, err)
		}
		defer s.Close()
		f(t, s)
	})
}

func newTestRun(t *testing.T, s *Store) int64 {
	t.Helper()
	id, err := s.CreateRun(context.Background(), RunInfo{System: "etcd", Start: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestVerificationAndFaultPlan(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		id := newTestRun(t, s)
		if _, err := s.Verification(ctx, id); !errors.Is(err, ErrNoVerification) {
			t.Fatalf("verification of a run without: %v", err)
		}
		v := Verification{InsertsAcked: 10, DeletesAcked: 3, Uncertain: 2, LostInserts: 1, ResurrectedDeletes: 2, Unreadable: 0, TookMS: 40}
		if err := s.AddVerification(ctx, id, v); err != nil {
			t.Fatal(err)
		}
		got, err := s.Verification(ctx, id)
		if err != nil || got != v || got.Lost() != 3 {
			t.Fatalf("verification read back %+v, %v; want %+v", got, err, v)
		}
		plan := []PlannedFault{
			{Name: "a", Fault: "kill", Target: "leader", AtMS: 1000, StableMS: 10000},
			{Name: "b", Fault: "partition", Target: "all", Link: "peer", Groups: [][]string{{"etcd1"}, {"etcd2", "etcd3"}}, AtMS: 2000, ForMS: 500},
			{Name: "c", Fault: "delay", Target: "etcd1", Link: "client", AtMS: 3000, ForMS: 100, DelayUS: 100000, JitterUS: 5000},
			{Name: "d", Fault: "drop", Target: "etcd2", Link: "client", Mode: "blackhole", Rate: 0, AtMS: 4000, ForMS: 1},
			{Name: "e", Fault: "command", Target: "primary", Run: "sha256:0a1b", Heal: "", AtMS: 5000},
		}
		if err := s.AddFaultPlan(ctx, id, plan); err != nil {
			t.Fatal(err)
		}
		back, err := s.FaultPlan(ctx, id)
		if err != nil || !reflect.DeepEqual(back, plan) {
			t.Fatalf("plan read back %+v, %v\nwant %+v", back, err, plan)
		}
	})
}

func TestTimeline(t *testing.T) {
	ops := []TimedOp{{StartUS: 2000, LatencyUS: 150, OK: true}, {StartUS: 1000, LatencyUS: 1 << 40, OK: false}, {StartUS: 1000, LatencyUS: 0, OK: true}}
	forEachDialect(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		id := newTestRun(t, s)
		if got, err := s.Timeline(ctx, id); got != nil || err != nil {
			t.Fatalf("timeline of a run without: %v, %v", got, err)
		}
		if err := s.AddTimeline(ctx, id, append([]TimedOp(nil), ops...)); err != nil {
			t.Fatal(err)
		}
		got, err := s.Timeline(ctx, id)
		want := []TimedOp{ops[1], ops[2], ops[0]}
		if err != nil || len(got) != 3 || got[0].StartUS != 1000 || got[2] != want[2] || got[0].LatencyUS+got[1].LatencyUS != 1<<40 {
			t.Fatalf("timeline read back %+v, %v; want %+v (sorted by start)", got, err, want)
		}
	})
}

func FuzzDecodeTimeline(f *testing.F) {
	f.Add(EncodeTimeline([]TimedOp{{StartUS: 5, LatencyUS: 7, OK: true}, {StartUS: 9, LatencyUS: 1}}))
	f.Add([]byte{0x80})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		ops, err := DecodeTimeline(b)
		if err != nil {
			return
		}
		// What decodes, encodes back to the same ops, sorted by start.
		sorted := append([]TimedOp(nil), ops...)
		again, err := DecodeTimeline(EncodeTimeline(sorted))
		if err != nil || !reflect.DeepEqual(again, sorted) && len(ops) > 0 {
			t.Fatalf("round trip of %+v: %+v, %v", ops, again, err)
		}
	})
}
