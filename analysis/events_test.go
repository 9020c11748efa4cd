package analysis

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
)

func TestEvents(t *testing.T) {
	at := func(sec float64) time.Time { return t0.Add(time.Duration(sec * float64(time.Second))) }
	d := &results.RunDetail{RunRow: results.RunRow{ID: 7, Start: t0, End: at(20)},
		Phases: []measure.Summary{{Phase: measure.PhaseWarmup, Start: at(0)}, {Phase: measure.PhaseMeasure, Start: at(5)}},
		Events: []results.Event{
			{Time: at(0), Kind: "phase_start", Name: "warmup"}, // already marked by the stored phase
			{Time: at(5), Kind: "phase_end", Name: "warmup"},
			{Time: at(6), Kind: "fault_start", Name: "kill node2"},
			{Time: at(7), Kind: "fault_start", Name: "partition"},
			{Time: at(8), Kind: "fault_end", Name: "kill node2", Outcome: "ok"},
			{Time: at(9), Kind: "fault_end", Name: "stray"}, // no start: a mark
			{Time: at(10), Kind: "note", Name: "compaction"},
			{Time: at(11), Kind: "trigger_start", Name: "kill node2", Outcome: "refused"}, // another kind, same name
			{Time: at(12), Kind: "phase_start", Name: "cooldown"},
			{Time: at(12.5), Kind: "trigger_end", Name: "kill node2"},
		}}
	run := Run{Detail: d, Intervals: []results.IntervalRow{iv(15, "OVERALL", 1, 0)}}
	bands, marks := Events([]Run{run})
	var got []string
	for _, b := range bands {
		got = append(got, fmt.Sprintf("%s %g-%g", b.Label, b.From, b.To))
	}
	// Starts pair with the end of the same kind and name; partition never
	// ended and lasts to the end of the run (20 s, after the last interval).
	want := "kill node2 6-8, partition 7-20, kill node2 (refused) 11-12.5"
	if strings.Join(got, ", ") != want {
		t.Errorf("bands = %s\nwant    %s", strings.Join(got, ", "), want)
	}
	got = nil
	for _, m := range marks {
		got = append(got, fmt.Sprintf("%s@%g/%v", m.Label, m.At, m.Phase))
	}
	want = "warmup@0/true, measure@5/true, stray@9/false, compaction@10/false, cooldown@12/true"
	if strings.Join(got, ", ") != want {
		t.Errorf("marks = %s\nwant    %s", strings.Join(got, ", "), want)
	}

	// Overlaid, every label names its run; a running run ends at its last interval.
	d2 := *d
	d2.ID, d2.End = 8, time.Time{}
	bands, _ = Events([]Run{run, {Detail: &d2, Intervals: run.Intervals}})
	if len(bands) != 6 || bands[0].Label != "#7 kill node2" || bands[4].Label != "#8 partition" || bands[4].To != 15 {
		t.Errorf("overlaid bands = %+v", bands)
	}
}
