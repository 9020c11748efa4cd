package format

import (
	"fmt"
	"strings"

	"github.com/dbrig/dbrig/loadmodel"
)

// LoadBrief is the load in a list column: "closed 16" or "open 16 @5,000/s".
func LoadBrief(l loadmodel.Load) string {
	s := strings.TrimSpace(fmt.Sprintf("%s %d", l.Model, l.Clients))
	if l.Rate > 0 {
		s += " @" + Rate(l.Rate) + "/s"
	}
	return s
}

// LoadDetail is everything about the load on one line, for `dbrig runs show`:
// "open 16 @5,000/s, poisson arrivals, think 5ms, warmup 10s, duration 1m0s, seed 7".
func LoadDetail(l loadmodel.Load) string {
	parts := []string{LoadBrief(l)}
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

// LoadPhrase is the load model in words, for a report's context table:
// "open, 8 clients, target 1,000 ops/s, poisson arrivals, think time 5ms".
// Warmup, duration and seed have rows of their own there.
func LoadPhrase(l loadmodel.Load) string {
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
