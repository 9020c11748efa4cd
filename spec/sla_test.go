package spec

import (
	"errors"
	"strings"
	"testing"
	"time"
)

const rateFile = `system: {driver: sim}
workload: {files: [workloada]}
sla: ["p95<100ms", 'errors<0.1%', dropped=0]
rate:
  by: clients
  precision: 10%
  reset: snapshot
  sla_duration: 30s
  step: 5s
  start: 2
  max: 64
  early_stop: false
  probe: false
  votes: 5
  min_tail: 20
  warmup: 500ms
  settle: false
`

func TestSLAAndRateBlock(t *testing.T) {
	exps, err := ParseExperiment("r.yaml", []byte(rateFile), nil)
	if err != nil {
		t.Fatal(err)
	}
	e := exps[0]
	want := []struct {
		text, at string
	}{{"p95<100ms", "r.yaml:3:8"}, {"errors<0.1%", "r.yaml:3:21"}, {"dropped=0", "r.yaml:3:35"}}
	if len(e.SLA) != len(want) {
		t.Fatalf("sla = %+v", e.SLA)
	}
	for i, w := range want {
		if e.SLA[i].Text != w.text || e.SLA[i].Pos.String() != w.at {
			t.Errorf("sla[%d] = %q at %v, want %q at %s", i, e.SLA[i].Text, e.SLA[i].Pos, w.text, w.at)
		}
	}
	// Column 4 of "p95<100ms" is the '<'.
	if got := e.SLA[0].At(4).String(); got != "r.yaml:3:11" {
		t.Errorf("At(4) = %s, want r.yaml:3:11", got)
	}
	r := e.Rate
	if r == nil || r.By != "clients" || r.Precision != "10%" || r.Reset != "snapshot" || r.SLADuration != 30*time.Second ||
		r.Step != 5*time.Second || r.Start != 2 || r.Max != 64 || r.EarlyStop || r.Probe || !r.Set["max"] || r.Set["nothing"] ||
		r.Votes != 5 || r.MinTail != 20 || r.Warmup != 500*time.Millisecond || r.Settle || !r.Set["settle"] {
		t.Errorf("rate = %+v", r)
	}
	// A single string is one expression; no rate block is nil.
	exps, err = ParseExperiment("r.yaml", []byte("system: {driver: sim}\nworkload: {files: [workloada]}\nsla: p99<1s, errors=0\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(exps[0].SLA) != 1 || exps[0].SLA[0].Text != "p99<1s, errors=0" || exps[0].SLA[0].Pos.String() != "r.yaml:3:6" || exps[0].Rate != nil {
		t.Errorf("sla = %+v, rate %+v", exps[0].SLA, exps[0].Rate)
	}
	// --set and matrix reach the rate block.
	exps, err = ParseExperiment("r.yaml", []byte(rateFile), []string{"rate.reset=keep"})
	if err != nil || exps[0].Rate.Reset != "keep" {
		t.Errorf("--set rate.reset=keep: %v, %+v", err, exps[0].Rate)
	}
	exps, err = ParseExperiment("r.yaml", []byte(rateFile), []string{"rate.votes=1", "rate.settle=true"})
	if err != nil {
		t.Fatalf("--set rate.votes=1 rate.settle=true: %v", err)
	}
	if exps[0].Rate.Votes != 1 || !exps[0].Rate.Settle {
		t.Errorf("--set rate.votes=1 rate.settle=true: %v, %+v", err, exps[0].Rate)
	}
	// Left out, settle is on.
	exps, err = ParseExperiment("r.yaml", []byte("system: {driver: sim}\nworkload: {files: [workloada]}\nrate: {by: rate}\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !exps[0].Rate.Settle || exps[0].Rate.Set["settle"] {
		t.Errorf("rate without settle: %v, %+v", err, exps[0].Rate)
	}
}

func TestRateBlockErrors(t *testing.T) {
	head := "system: {driver: sim}\nworkload: {files: [workloada]}\n"
	for _, tc := range []struct {
		name, body, at, msg string
	}{
		{"by", "rate: {by: speed}\n", "f.yaml:3:12", "expected rate"},
		{"unknown key", "rate: {bye: rate}\n", "f.yaml:3:8", `did you mean "by"`},
		{"zero duration", "rate:\n  sla_duration: 0s\n", "f.yaml:4:17", "duration > 0"},
		{"zero step", "rate:\n  step: 0s\n", "f.yaml:4:9", "duration > 0"},
		{"bad duration", "rate:\n  step: soon\n", "f.yaml:4:9", "expected a duration"},
		{"range", "rate: {start: 100, max: 10}\n", "f.yaml:3:25", "cannot contain"},
		{"even votes", "rate: {votes: 2}\n", "f.yaml:3:15", "odd number"},
		{"zero votes", "rate: {votes: 0}\n", "f.yaml:3:15", "≥ 1"},
		{"negative min_tail", "rate: {min_tail: -1}\n", "f.yaml:3:18", "≥ 0"},
		{"bad warmup", "rate:\n  warmup: soon\n", "f.yaml:4:11", "expected a duration"},
		{"bad settle", "rate: {settle: maybe}\n", "f.yaml:3:16", "true or false"},
		{"fractional clients", "rate: {by: clients, start: 1.5}\n", "f.yaml:3:28", "whole number"},
		{"sla mapping", "sla: {p95: 1}\n", "f.yaml:3:6", "expected a list"},
		{"sla empty list", "sla: []\n", "f.yaml:3:6", "expected a list"},
		{"sla item", "sla: [[p95<1s]]\n", "f.yaml:3:7", "expected an SLA"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseExperiment("f.yaml", []byte(head+tc.body), nil)
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v, want a FileError", err)
			}
			if fe.Pos.String() != tc.at || !strings.Contains(fe.Msg, tc.msg) {
				t.Errorf("%v, want at %s containing %q", err, tc.at, tc.msg)
			}
		})
	}
}
