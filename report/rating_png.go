package report

import (
	"fmt"
	"image/color"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/dbrig/dbrig/format"
	"github.com/dbrig/dbrig/results"
)

// ratingPlot draws a rating: every experiment's target against the SLA's
// first latency term as measured (passes green, failures red, early stops
// hollow), the SLA's limit as a dashed line and the answer as a vertical
// line; a capacity probe (no target, no verdict) as a dotted vertical line
// at the throughput it achieved. Without a latency term the y axis is the
// achieved throughput.
func ratingPlot(r results.Rating) (*plot.Plot, error) {
	term, limit, unit := "", math.NaN(), ""
	for _, s := range r.Steps {
		for _, t := range s.Terms {
			if term == "" && t.Unit == "ms" {
				term, limit, unit = t.Term, t.Limit, t.Unit
			}
		}
	}
	if len(r.Steps) == 0 {
		return nil, fmt.Errorf("rating %d has no experiments to plot", r.ID)
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("rating %d: %s, %s, SLA %s", r.ID, r.System, r.Workload, r.SLA)
	p.X.Label.Text = "target (ops/s)"
	if r.By == "clients" {
		p.X.Label.Text = "clients"
	}
	p.Y.Label.Text = "achieved (ops/s)"
	if term != "" {
		p.Y.Label.Text = term + " measured (" + unit + ")"
	}
	p.Add(plotter.NewGrid())
	var pass, fail, early plotter.XYs
	maxY, probed := 0.0, 0.0
	for _, s := range r.Steps {
		if s.Kind == probeKind {
			probed = s.Achieved
			continue
		}
		y := s.Achieved
		if term != "" {
			y = math.NaN()
			for _, t := range s.Terms {
				if t.Term == term {
					y = t.Measured
				}
			}
		}
		if math.IsNaN(y) {
			continue
		}
		maxY = math.Max(maxY, y)
		xy := plotter.XY{X: s.Target, Y: y}
		switch {
		case s.StoppedEarly:
			early = append(early, xy)
		case s.Pass:
			pass = append(pass, xy)
		default:
			fail = append(fail, xy)
		}
	}
	if lo, hi := r.SpreadLow, r.SpreadHigh; lo != nil && hi != nil && *hi > *lo {
		// Where runs contradicted each other: first, so that the points
		// and lines are drawn over it; as high as the y axis will go.
		top := maxY
		if !math.IsNaN(limit) {
			top = math.Max(math.Min(top, 4*limit), limit)
		}
		band, err := plotter.NewPolygon(plotter.XYs{{X: *lo, Y: 0}, {X: *hi, Y: 0}, {X: *hi, Y: top}, {X: *lo, Y: top}})
		if err != nil {
			return nil, err
		}
		band.Color, band.LineStyle.Width = spreadColor, 0
		p.Add(band)
		p.Legend.Add("spread: runs contradicted each other", band)
	}
	add := func(pts plotter.XYs, label string, c color.Color, shape draw.GlyphDrawer) error {
		if len(pts) == 0 {
			return nil
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(4), Shape: shape}
		p.Add(sc)
		p.Legend.Add(label, sc)
		return nil
	}
	green, red := color.RGBA{G: 150, A: 255}, color.RGBA{R: 200, A: 255}
	if err := add(pass, "meets the SLA", green, draw.CircleGlyph{}); err != nil {
		return nil, err
	}
	if err := add(fail, "fails it", red, draw.CrossGlyph{}); err != nil {
		return nil, err
	}
	if err := add(early, "fails it (stopped early)", red, draw.RingGlyph{}); err != nil {
		return nil, err
	}
	if !math.IsNaN(limit) {
		// Far failures would flatten everything else: show up to 4× the limit.
		if maxY > 4*limit {
			p.Y.Max = 4 * limit
		}
		l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: limit}, {X: maxTarget(r), Y: limit}})
		if err != nil {
			return nil, err
		}
		l.Color, l.Dashes = red, []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(l)
		p.Legend.Add("SLA limit", l)
	}
	if probed > 0 {
		top := p.Y.Max
		if !math.IsNaN(limit) {
			top = math.Max(top, limit)
		}
		l, err := plotter.NewLine(plotter.XYs{{X: probed, Y: 0}, {X: probed, Y: top}})
		if err != nil {
			return nil, err
		}
		l.Color, l.Dashes = color.Gray{Y: 110}, []vg.Length{vg.Points(1), vg.Points(3)}
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("capacity probe %s", format.Target(r.By, probed)), l)
	}
	if r.Answer != nil {
		top := p.Y.Max
		if !math.IsNaN(limit) {
			top = math.Max(top, limit)
		}
		l, err := plotter.NewLine(plotter.XYs{{X: *r.Answer, Y: 0}, {X: *r.Answer, Y: top}})
		if err != nil {
			return nil, err
		}
		l.Color, l.Width = color.RGBA{B: 200, A: 255}, vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("answer %s", format.Target(r.By, *r.Answer)), l)
	}
	p.Legend.Top = true
	p.X.Min, p.Y.Min = 0, 0
	return p, nil
}

// spreadColor fills a rating's spread (light amber).
var spreadColor = color.RGBA{R: 255, G: 214, B: 140, A: 255}

func maxTarget(r results.Rating) float64 {
	m := 0.0
	for _, s := range r.Steps {
		if s.Kind == probeKind {
			m = math.Max(m, s.Achieved)
		} else {
			m = math.Max(m, s.Target)
		}
	}
	return m * 1.05
}

// RatingPNG writes the rating's plot as a PNG.
func RatingPNG(w io.Writer, r results.Rating) error {
	p, err := ratingPlot(r)
	if err != nil {
		return err
	}
	wt, err := p.WriterTo(pngWidth, pngHeight, "png")
	if err != nil {
		return fmt.Errorf("rating %d plot: %w", r.ID, err)
	}
	_, err = wt.WriteTo(w)
	return err
}
