package format

import (
	"fmt"
	"strings"
	"time"
)

// Load is the load model of a run as far as people are shown it. It mirrors
// the stored load model field by field; format keeps its own type so that it
// depends on nothing of dbrig.
type Load struct {
	Model      string  // closed | open
	Clients    int     // closed: clients; open: size of the client pool
	Rate       float64 // target ops/s, 0 = unlimited
	Arrival    string  // open: constant | poisson
	ThinkTime  time.Duration
	Warmup     time.Duration
	Duration   time.Duration // planned measure phase; 0 when bounded by Operations
	Operations int64         // planned operations; 0 when bounded by Duration
	Seed       int64
}

// Brief is the load in a list column: "closed 16" or "open 16 @5,000/s".
func (l Load) Brief() string {
	s := strings.TrimSpace(fmt.Sprintf("%s %d", l.Model, l.Clients))
	if l.Rate > 0 {
		s += " @" + Rate(l.Rate) + "/s"
	}
	return s
}

// Detail is everything about the load on one line, for `dbrig runs show`:
// "open 16 @5,000/s, poisson arrivals, think 5ms, warmup 10s, duration 1m0s, seed 7".
func (l Load) Detail() string {
	parts := []string{l.Brief()}
	if l.Arrival != "" {
		parts = append(parts, l.Arrival+" arrivals")
	}
	if l.ThinkTime > 0 {
		parts = append(parts, "think "+l.ThinkTime.String())
	}
	if l.Warmup > 0 {
		parts = append(parts, "warmup "+l.Warmup.String())
	}
	if l.Duration > 0 {
		parts = append(parts, "duration "+l.Duration.String())
	}
	if l.Operations > 0 {
		parts = append(parts, Int(l.Operations)+" operations")
	}
	parts = append(parts, fmt.Sprintf("seed %d", l.Seed))
	return strings.Join(parts, ", ")
}

// Phrase is the load model in words, for a report's context table:
// "open, 8 clients, target 1,000 ops/s, poisson arrivals, think time 5ms".
// Warmup, duration and seed have rows of their own there.
func (l Load) Phrase() string {
	var b strings.Builder
	b.WriteString(l.Model)
	fmt.Fprintf(&b, ", %d clients", l.Clients)
	if l.Rate > 0 {
		fmt.Fprintf(&b, ", target %s ops/s", Rate(l.Rate))
	} else {
		b.WriteString(", unthrottled")
	}
	if l.Arrival != "" {
		b.WriteString(", " + l.Arrival + " arrivals")
	}
	if l.ThinkTime > 0 {
		b.WriteString(", think time " + l.ThinkTime.String())
	}
	return b.String()
}
