package web

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"strconv"
	"strings"

	"github.com/dbrig/dbrig/format"
	"github.com/dbrig/dbrig/report"
	"github.com/dbrig/dbrig/results"
)

// ratingsMax bounds the ratings the list shows, newest first.
const ratingsMax = 200

type ratingView struct {
	ID                                              int64
	Started, Status, System, Workload, SLA, By      string
	Strategy, Precision, Answer, Spread, Total, Why string
	Interval                                        string // report.RatingIntervalCell; "-" without one
}

func viewRating(r results.Rating) ratingView {
	v := ratingView{ID: r.ID, Started: r.Start.UTC().Format("2006-01-02 15:04:05"), Status: r.Status, System: r.System,
		Workload: r.Workload, SLA: r.SLA, By: r.By, Strategy: r.Strategy, Precision: fmt.Sprintf("%g%%", r.Precision*100),
		Answer: "-", Spread: "-", Interval: "-", Total: format.Seconds(r.TotalS)}
	if iv := report.RatingIntervalCell(r); iv != "" {
		v.Interval = iv
	}
	switch {
	case r.Answer != nil:
		v.Answer = format.Target(r.By, *r.Answer)
		if !r.Confirmed {
			v.Answer += " (not confirmed)"
		}
	case r.Status == results.StatusRunning:
		v.Why = "no answer yet (running)"
	default:
		v.Why = "no answer: " + r.Message
	}
	if rel, wider, ok := report.RatingSpread(r); ok {
		v.Spread = fmt.Sprintf("%.0f%%", rel*100)
		if wider {
			v.Spread += " (unstable)"
		}
	}
	return v
}

// ratings lists the stored ratings, newest first.
func (s *Server) ratings(w http.ResponseWriter, r *http.Request) {
	rs, err := s.store.ListRatings(r.Context(), ratingsMax)
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	views := make([]ratingView, len(rs))
	for i, x := range rs {
		views[i] = viewRating(x)
	}
	s.render(w, r, "ratings", page{Title: "dbrig ratings", Nav: "ratings", Data: views})
}

type stepView struct {
	N                                                     int
	Kind, Target, Achieved, Verdict, Reason, Early, Reset string
	ResetS, Seconds                                       string
	Terms                                                 []string
	RunID                                                 int64
	Pass                                                  bool
}

type ratingData struct {
	ratingView
	Confirmed       bool
	Message         string
	Spread, Machine string // sentences; "" when not measured
	IntervalLine    string // report.RatingInterval: the answer's first line
	FinalLine       string // report.RatingFinal: the final runs' pass point
	TermHeads       []string
	Steps           []stepView
	PNG             template.URL // the rating's plot (report.RatingPNG); "" without steps
	Time            []timeTerm
}

// timeTerm is one term of the rating time Λ = ζ + ω·ν + η·δ + Δ.
type timeTerm struct{ Name, What, Value string }

// rating shows one rating: its answer, plot and steps, each with its run.
func (s *Server) rating(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(strings.TrimSpace(r.PathValue("id")), 10, 64)
	if err != nil || id <= 0 {
		s.fail(w, r, http.StatusBadRequest, fmt.Errorf("rating id %q: expected a positive whole number", r.PathValue("id")))
		return
	}
	x, err := s.store.GetRating(r.Context(), id)
	if err != nil {
		code := http.StatusInternalServerError
		if errors.Is(err, results.ErrNoRating) {
			code = http.StatusNotFound
		}
		s.fail(w, r, code, err)
		return
	}
	d := ratingData{ratingView: viewRating(x), Confirmed: x.Confirmed, Message: x.Message, IntervalLine: report.RatingInterval(x), FinalLine: report.RatingFinal(x)}
	if rel, wider, ok := report.RatingSpread(x); ok {
		verdict := "within the precision"
		if wider {
			verdict = "WIDER than the precision: not a stable answer"
		}
		d.Spread = fmt.Sprintf("a run failed at %s, one passed at %s (%.0f%%, %s)",
			format.Target(x.By, *x.SpreadLow), format.Target(x.By, *x.SpreadHigh), rel*100, verdict)
	}
	if cv := x.MachineCV; cv != nil {
		d.Machine = fmt.Sprintf("cache-bound work varied by %.0f%% (coefficient of variation) before the rating", *cv*100)
	}
	terms, heads := report.RatingTerms(x)
	d.TermHeads = heads
	for i, st := range x.Steps {
		v := stepView{N: i + 1, Kind: st.Kind, Target: report.RatingStepTarget(x.By, st), Achieved: format.Rate(st.Achieved),
			Verdict: report.RatingStepVerdict(st), Reason: st.Reason, Reset: st.Reset, ResetS: fmt.Sprintf("%.2f", st.ResetS),
			Seconds: fmt.Sprintf("%.1f", st.Seconds), RunID: st.RunID, Pass: st.Pass}
		if st.StoppedEarly {
			v.Early = "stopped"
		}
		if st.Reset == "load" {
			v.ResetS = "-" // the first load's time is ζ, below
		}
		for _, t := range terms {
			v.Terms = append(v.Terms, report.RatingTermCell(st, t))
		}
		d.Steps = append(d.Steps, v)
	}
	var png bytes.Buffer
	if len(x.Steps) > 0 && report.RatingPNG(&png, x) == nil {
		d.PNG = template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(png.Bytes()))
	}
	d.Time = []timeTerm{
		{"Λ", "total", format.Seconds(x.TotalS)},
		{"ζ", "first load", format.Seconds(x.FirstLoadS)},
		{"ω·ν", fmt.Sprintf("%d resets", x.ResetCount), format.Seconds(x.ResetsS)},
		{"η·δ", fmt.Sprintf("%d experiments", x.Experiments), format.Seconds(x.ExperimentsS)},
		{"Δ", "final run", format.Seconds(x.FinalS)},
	}
	s.render(w, r, "rating", page{Title: fmt.Sprintf("rating %d", id), Nav: "ratings", Data: d})
}
