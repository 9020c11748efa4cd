package spec

import (
	"fmt"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v3"
)

// An experiment file may hold an SLA and a rating:
//
//	sla: ["p95<100ms", "errors<0.1%"]   # checked on every run
//	rate:                               # dbrig rate FILE (and dbrig bench FILE)
//	  by: rate                          # or clients
//	  precision: 5%
//	  reset: snapshot                   # reload, snapshot, keep, repair
//	  sla_duration: 60s                 # Δ: the final run's length
//	  step: 15s                         # δ: each search experiment's length
//	  start: 500                        # first target (none: half the capacity a probe measures)
//	  probe: true                       # without start, by rate: probe the capacity first
//	  max: 20000                        # highest target to try
//	  early_stop: true
//	  votes: 3                          # odd: a verdict is a majority of up to this many runs
//	  min_tail: 10                      # operations beyond the SLA's percentile per experiment (0: none)
//	  warmup: 1s                        # each experiment's unevaluated warmup (0s: none)
//	  settle: true                      # let the store settle after the load and each reset
//
// Package spec keeps their text and positions; package sla parses the
// terms (spec imports nothing of dbrig), and SLAExpr.At turns a column
// inside an expression into the file's line:column.

// SLAExpr is one SLA expression as written in the file (one or more
// comma-separated terms).
type SLAExpr struct {
	Text string
	Pos  Pos    // where Text's first character is (inside the quotes)
	Path string // sla[0]
}

// At is the file position of byte column col (1-based) of the expression.
func (x SLAExpr) At(col int) Pos {
	p := x.Pos
	if col > 0 {
		p.Col += col - 1
	}
	return p
}

// Rate is an experiment file's rate block: what `dbrig rate FILE` does.
// Zero values mean the command's defaults; Set tells which were written.
type Rate struct {
	By          string
	Precision   string // "5%" or "0.05", checked by the command
	Reset       string
	SLADuration time.Duration
	Step        time.Duration
	Start, Max  float64
	EarlyStop   bool
	Probe       bool          // by rate without start: start at half the capacity a probe measures
	Votes       int           // odd, ≥ 1
	MinTail     int           // 0: no minimum
	Warmup      time.Duration // 0: none
	Settle      bool
	Budget      time.Duration   // 0: none
	Reference   bool            // the reference probe before and after
	Set         map[string]bool // key → written
}

func (d *decoder) slaExprs(dst *[]SLAExpr) func(*yaml.Node, string) error {
	one := func(n *yaml.Node, p string) error {
		text, err := d.scalar(n, p, `an SLA such as "p95<100ms" or "READ.p99<10ms, errors<0.1%"`)
		if err != nil {
			return err
		}
		at := pos(d.file, n)
		if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
			at.Col++ // the text starts after the quote
		}
		*dst = append(*dst, SLAExpr{Text: text, Pos: at, Path: p})
		return nil
	}
	return func(n *yaml.Node, p string) error {
		*dst = nil
		if n.Kind == yaml.ScalarNode {
			return one(n, p)
		}
		if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
			return d.errorf(n, p, `expected a list of SLA terms such as ["p95<100ms", "errors<0.1%%"]`)
		}
		for i, c := range n.Content {
			if err := one(c, fmt.Sprintf("%s[%d]", p, i)); err != nil {
				return err
			}
		}
		return nil
	}
}

func (d *decoder) rateBlock(dst **Rate) func(*yaml.Node, string) error {
	return func(n *yaml.Node, p string) error {
		r := &Rate{EarlyStop: true, Probe: true, Settle: true, Reference: true, Set: map[string]bool{}}
		*dst = r
		mark := func(key string, f func(*yaml.Node, string) error) func(*yaml.Node, string) error {
			return func(n *yaml.Node, p string) error {
				r.Set[key] = true
				return f(n, p)
			}
		}
		err := d.mapping(n, p, map[string]func(*yaml.Node, string) error{
			"by":           mark("by", d.str(&r.By)),
			"precision":    mark("precision", d.str(&r.Precision)),
			"reset":        mark("reset", d.str(&r.Reset)),
			"sla_duration": mark("sla_duration", d.duration(&r.SLADuration)),
			"step":         mark("step", d.duration(&r.Step)),
			"start":        mark("start", d.float(&r.Start)),
			"max":          mark("max", d.float(&r.Max)),
			"early_stop":   mark("early_stop", d.boolean(&r.EarlyStop)),
			"probe":        mark("probe", d.boolean(&r.Probe)),
			"votes":        mark("votes", d.int(&r.Votes, 1)),
			"min_tail":     mark("min_tail", d.int(&r.MinTail, 0)),
			"warmup":       mark("warmup", d.duration(&r.Warmup)),
			"settle":       mark("settle", d.boolean(&r.Settle)),
			"budget":       mark("budget", d.duration(&r.Budget)),
			"reference":    mark("reference", d.boolean(&r.Reference)),
		})
		if err != nil {
			return err
		}
		if r.By != "" && r.By != "rate" && r.By != "clients" {
			return d.errorf(child(n, "by"), p+".by", "%q: expected rate (highest throughput, open model) or clients (most clients, closed model)", r.By)
		}
		if r.Set["sla_duration"] && r.SLADuration <= 0 {
			return d.errorf(child(n, "sla_duration"), p+".sla_duration", "expected how long the SLA must hold, a duration > 0 such as 60s")
		}
		if r.Set["budget"] && r.Budget <= 0 {
			return d.errorf(child(n, "budget"), p+".budget", "expected the rating's most total time, a duration > 0 such as 5m")
		}
		if r.Set["step"] && r.Step <= 0 {
			return d.errorf(child(n, "step"), p+".step", "expected each search experiment's length, a duration > 0 such as 15s")
		}
		if r.Set["votes"] && r.Votes%2 == 0 {
			return d.errorf(child(n, "votes"), p+".votes", "%d: expected an odd number of runs (1: every first verdict is final, 3: a verdict is a majority of up to 3)", r.Votes)
		}
		if r.Set["max"] && r.Set["start"] && r.Max > 0 && r.Max < r.Start {
			return d.errorf(child(n, "max"), p+".max", "%g is below start %g: the search range cannot contain an answer", r.Max, r.Start)
		}
		if r.By == "clients" {
			for _, k := range []string{"start", "max"} {
				v := map[string]float64{"start": r.Start, "max": r.Max}[k]
				if r.Set[k] && v != float64(int64(v)) {
					return d.errorf(child(n, k), p+"."+k, "%g: by clients, a whole number of clients", v)
				}
			}
		}
		if strings.TrimSpace(r.Precision) != r.Precision {
			r.Precision = strings.TrimSpace(r.Precision)
		}
		return nil
	}
}
