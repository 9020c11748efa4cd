package results

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

func TestNodesAndMetricsRoundTrip(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	start := time.Now().Truncate(time.Millisecond)
	id, err := s.CreateRun(ctx, RunInfo{System: "etcd", Driver: "etcd", Start: start})
	if err != nil {
		t.Fatal(err)
	}
	nodes := []Node{
		{Name: "etcd1", Role: "member", System: "etcd", PID: 11, Ports: map[string]int{"client": 2379, "peer": 2380}, Addr: "127.0.0.1:2379", DataDir: "/d/1", Log: "/d/1.log", Binary: "/usr/bin/etcd", Version: "3.4.23"},
		{Name: "etcd2", Role: "member", System: "etcd", PID: 12, Ports: map[string]int{"client": 3379}, Addr: "127.0.0.1:3379", DataDir: "/d/2", Log: "/d/2.log", Binary: "/usr/bin/etcd"},
	}
	if err := s.AddNodes(ctx, id, nodes); err != nil {
		t.Fatal(err)
	}
	ms := []Metric{
		{Node: "etcd1", Time: start.Add(time.Second), CPUUser: 12.5, CPUSys: 3, RSS: 1 << 20, ReadBytes: 7, WriteBytes: 4096, CtxSwitches: 99, FDs: 20},
		{Node: "dbrig", Time: start.Add(1500 * time.Millisecond), CPUUser: 50, RSS: 2 << 20, FDs: 9},
		{Node: "etcd1", Time: start.Add(2 * time.Second), Gone: true},
	}
	if err := s.AddMetrics(ctx, id, ms); err != nil {
		t.Fatal(err)
	}
	gotNodes, err := s.Nodes(ctx, id)
	if err != nil || !reflect.DeepEqual(gotNodes, nodes) {
		t.Errorf("nodes = %+v, %v; want %+v", gotNodes, err, nodes)
	}
	got, err := s.Metrics(ctx, id)
	if err != nil || len(got) != 3 {
		t.Fatalf("metrics = %+v, %v", got, err)
	}
	if got[0].Node != "etcd1" || got[0].T != time.Second || got[0].CPUUser != 12.5 || got[0].WriteBytes != 4096 || got[0].CtxSwitches != 99 ||
		got[1].Node != "dbrig" || got[1].T != 1500*time.Millisecond || !got[2].Gone {
		t.Errorf("metrics read back: %+v", got)
	}
}

func TestTargetRateRoundTrip(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	start := time.Now()
	id, err := s.CreateRun(ctx, RunInfo{System: "null", Start: start})
	if err != nil {
		t.Fatal(err)
	}
	iv := interval(t, "measure", start, 10, 0, 0)
	iv.TargetRate = 1234.5
	if err := s.AddInterval(ctx, id, iv); err != nil {
		t.Fatal(err)
	}
	rows, err := s.Intervals(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	last := rows[len(rows)-1]
	if last.Op != "OVERALL" || last.TargetRate != 1234.5 {
		t.Errorf("OVERALL row %s target %v, want 1234.5", last.Op, last.TargetRate)
	}
}

func TestImpactsRoundTrip(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	id, err := s.CreateRun(ctx, RunInfo{System: "etcd", Start: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	rec := int64(3000)
	in := []Impact{
		{Fault: "kill-leader", Target: "kill leader: [etcd2]", Outcome: "injected", StartMS: 10000, EndMS: 10000,
			BaselineP99: 5650, FaultP99: 2560, AfterP99: 1940000, ThroughputChangePct: -99, Errors: 40, UnavailableMS: 1000, RecoveryMS: &rec},
		{Fault: "pause", StartMS: 20000, EndMS: 22000, RecoveryMS: nil, RecoveryCut: "end of run"},
	}
	if err := s.AddImpacts(ctx, id, in); err != nil {
		t.Fatal(err)
	}
	got, err := s.Impacts(ctx, id)
	if err != nil || len(got) != 2 || *got[0].RecoveryMS != 3000 || got[1].RecoveryMS != nil || got[0].FaultP99 != 2560 || got[0].ThroughputChangePct != -99 ||
		got[0].RecoveryCut != "" || got[1].RecoveryCut != "end of run" {
		t.Errorf("impacts read back: %+v, %v", got, err)
	}
}
