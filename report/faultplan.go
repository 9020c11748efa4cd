package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/scenario"
	"github.com/dbrig/dbrig/spec"
)

// FaultPlans prints the resolved fault plan of each run of b that has
// faults, as the injector will fire them: each fault, what it does, its
// target, when (from the measure phase's start), for how long, and what it
// waits for. A run whose plan is the previous one's says so in one line.
func FaultPlans(w io.Writer, b *experiment.Bench) {
	ew := &errWriter{w: w}
	var last []results.PlannedFault
	lastRun := 0
	for i, r := range b.Runs {
		if len(r.Plan.Faults) == 0 {
			continue
		}
		planned := scenario.Stored(r.Plan.Faults)
		if lastRun > 0 && slices.EqualFunc(planned, last, samePlanned) {
			ew.printf("\nrun %d fault plan: as run %d's\n", i+1, lastRun)
			continue
		}
		last, lastRun = planned, i+1
		ew.printf("\nrun %d fault plan (times from the measure phase's start):\n", i+1)
		t := &table{left: map[int]bool{1: true, 2: true, 3: true, 4: true, 5: true}}
		t.add("fault", "does", "target", "when", "for", "depends on")
		for _, f := range planned {
			t.add(f.Name, faultDoes(f), faultTarget(f), faultWhen(f), faultFor(f), faultDepends(r.Exp.Scenario, f.Name))
		}
		ew.table(t, "  ")
	}
}

func samePlanned(a, b results.PlannedFault) bool {
	return fmt.Sprint(a) == fmt.Sprint(b)
}

// faultDoes is what a planned fault does, with its settings.
func faultDoes(f results.PlannedFault) string {
	s := f.Fault
	switch {
	case f.DelayUS > 0 && f.JitterUS > 0:
		s += fmt.Sprintf(" %v ±%v", time.Duration(f.DelayUS)*time.Microsecond, time.Duration(f.JitterUS)*time.Microsecond)
	case f.DelayUS > 0:
		s += fmt.Sprintf(" %v", time.Duration(f.DelayUS)*time.Microsecond)
	case f.Rate > 0:
		s += fmt.Sprintf(" %d B/s", f.Rate)
	}
	if f.Mode != "" {
		s += " (" + f.Mode + ")"
	}
	return s
}

func faultTarget(f results.PlannedFault) string {
	s := f.Target
	if len(f.Groups) > 0 {
		var gs []string
		for _, g := range f.Groups {
			gs = append(gs, "["+strings.Join(g, " ")+"]")
		}
		s = strings.Join(gs, " | ")
	}
	if f.Link != "" {
		s += ", " + f.Link + " link"
	}
	return s
}

func faultWhen(f results.PlannedFault) string {
	at := time.Duration(f.AtMS) * time.Millisecond
	if f.StableMS > 0 {
		return fmt.Sprintf("armed at %v, fires once stable for %v", at, time.Duration(f.StableMS)*time.Millisecond)
	}
	return fmt.Sprintf("at %v", at)
}

func faultFor(f results.PlannedFault) string {
	if f.ForMS == 0 {
		return "instant"
	}
	return (time.Duration(f.ForMS) * time.Millisecond).String()
}

// faultDepends names the fault a planned fault waits for, from the
// scenario entry it came from (NAME or NAME#k of a recurring one).
func faultDepends(entries []spec.Fault, name string) string {
	base, _, _ := strings.Cut(name, "#")
	for _, e := range entries {
		if e.Name != base || e.After == "" {
			continue
		}
		if e.Wait > 0 {
			return fmt.Sprintf("after %s ends, +%v", e.After, e.Wait)
		}
		return "after " + e.After + " ends"
	}
	return "-"
}
