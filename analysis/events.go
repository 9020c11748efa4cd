package analysis

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// Events turns the events of the runs into bands and marks, in seconds
// since each run's start. Conventions (documented for scenario writers):
//   - kind "X_start" and a later "X_end" with the same name are one window,
//     shaded as a band (an unmatched start lasts to the end of the run);
//     phase_start/phase_end are phase boundaries, drawn as marks;
//   - any other event is a one-off mark.
//
// Phase starts also come from the stored phases, so runs without phase
// events are still marked.
func Events(runs []Run) ([]Band, []Mark) {
	var bands []Band
	var marks []Mark
	multi := len(runs) > 1
	for _, r := range runs {
		d := r.Detail
		prefix := runLabel(r, multi)
		rel := func(t time.Time) float64 { return math.Round(t.Sub(d.Start).Seconds()*1000) / 1000 }
		end := runEnd(r)
		phaseAt := map[string]bool{}
		for _, p := range d.Phases {
			marks = append(marks, Mark{At: rel(p.Start), Label: prefix + p.Phase, Phase: true})
			phaseAt[p.Phase+"@"+strconv.FormatFloat(rel(p.Start), 'f', 0, 64)] = true
		}
		open := map[string]int{} // kind base + name → index into wins of its start
		var wins []Band          // To is NaN while open
		for _, e := range d.Events {
			at := rel(e.Time)
			label := prefix + strings.TrimSpace(e.Name)
			if e.Outcome != "" && e.Outcome != "ok" {
				label += " (" + e.Outcome + ")"
			}
			switch {
			case e.Kind == "phase_start" || e.Kind == "phase":
				if !phaseAt[e.Name+"@"+strconv.FormatFloat(at, 'f', 0, 64)] {
					marks = append(marks, Mark{At: at, Label: prefix + e.Name, Phase: true})
				}
			case e.Kind == "phase_end":
				// the next phase's start marks it; the last one ends the run
			case strings.HasSuffix(e.Kind, "_start"):
				key := strings.TrimSuffix(e.Kind, "_start") + "\x00" + e.Name
				open[key] = len(wins)
				wins = append(wins, Band{From: at, To: math.NaN(), Label: label})
			case strings.HasSuffix(e.Kind, "_end"):
				key := strings.TrimSuffix(e.Kind, "_end") + "\x00" + e.Name
				if i, ok := open[key]; ok {
					wins[i].To = at
					delete(open, key)
				} else {
					marks = append(marks, Mark{At: at, Label: label})
				}
			default:
				marks = append(marks, Mark{At: at, Label: label})
			}
		}
		for _, w := range wins {
			if math.IsNaN(w.To) {
				w.To = max(end, w.From)
			}
			bands = append(bands, w)
		}
	}
	return bands, marks
}

// runEnd is the last second of a run that has data, for open fault windows.
func runEnd(r Run) float64 {
	end := 0.0
	for _, iv := range r.Intervals {
		end = max(end, second(iv))
	}
	if !r.Detail.End.IsZero() {
		end = max(end, r.Detail.End.Sub(r.Detail.Start).Seconds())
	}
	return end
}
