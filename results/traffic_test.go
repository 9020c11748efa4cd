package results

import (
	"context"
	"reflect"
	"testing"
	"time"
)

func TestNodeTraffic(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		id := newTestRun(t, s)
		d, err := s.Run(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		// Half a millisecond in: the stored start may be rounded to the µs.
		at := func(ms int) time.Time { return d.Start.Add(time.Duration(ms)*time.Millisecond + 500*time.Microsecond) }
		in := []NodeTraffic{
			{Node: "etcd2", Time: at(1000), BytesUp: 2000, BytesDown: 9000, Conns: 1},
			{Node: "etcd1", Time: at(1000), BytesUp: 1000, BytesDown: 8000, Conns: 1},
			{Node: "etcd1", Time: at(2001), BytesUp: 0, BytesDown: 0, Conns: 0},
		}
		if err := s.AddNodeTraffic(ctx, id, in); err != nil {
			t.Fatal(err)
		}
		got, err := s.NodeTraffic(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		want := []NodeTraffic{
			{Node: "etcd1", T: time.Second, BytesUp: 1000, BytesDown: 8000, Conns: 1},
			{Node: "etcd2", T: time.Second, BytesUp: 2000, BytesDown: 9000, Conns: 1},
			{Node: "etcd1", T: 2001 * time.Millisecond},
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("got %+v\nwant %+v", got, want)
		}
		if other, err := s.NodeTraffic(ctx, id+1000); err != nil || len(other) != 0 {
			t.Errorf("another run: %v, %v", other, err)
		}
	})
}

func TestGauges(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		id := newTestRun(t, s)
		d, err := s.Run(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		at := func(ms int) time.Time { return d.Start.Add(time.Duration(ms)*time.Millisecond + 500*time.Microsecond) }
		in := []Gauge{{Node: "pg-replica1", Name: "replay_lag_bytes", Time: at(200), Value: 459128},
			{Node: "pg-replica1", Name: "replay_lag_bytes", Time: at(0), Value: 0.5}}
		if err := s.AddGauges(ctx, id, in); err != nil {
			t.Fatal(err)
		}
		got, err := s.Gauges(ctx, id)
		want := []Gauge{{Node: "pg-replica1", Name: "replay_lag_bytes", Value: 0.5},
			{Node: "pg-replica1", Name: "replay_lag_bytes", T: 200 * time.Millisecond, Value: 459128}}
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("got %+v, %v\nwant %+v", got, err, want)
		}
	})
}
