package report

import (
	"context"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/dbrig/dbrig/analysis"
	"github.com/dbrig/dbrig/outfile"
	"github.com/dbrig/dbrig/results"
)

// PNG size: wide enough for a few minutes of seconds to stay readable.
const (
	pngWidth  = 10 * vg.Inch
	pngHeight = 4 * vg.Inch
)

// WritePNGs renders every chart of a report on the runs as a PNG file in dir
// (created if needed) and returns the paths written. Files are named
// run<ids>-<chart id>.png, e.g. run3-latency-READ.png or run3-4-errors.png.
// Charts without data are skipped (the HTML report says why).
func WritePNGs(ctx context.Context, dir string, store *results.Store, ids []int64) ([]string, error) {
	rep, err := Build(ctx, store, ids)
	if err != nil {
		return nil, err
	}
	return RenderPNGs(ctx, dir, rep)
}

// RenderPNGs writes the charts of a built report as PNG files in dir, each
// tagged as dbrig's (so a later report may replace it; outfile), at the
// paths PNGPaths names.
func RenderPNGs(ctx context.Context, dir string, rep *analysis.Set) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("png: %w", err)
	}
	var paths []string
	for _, c := range pngCharts(rep) {
		if err := ctx.Err(); err != nil {
			return paths, err
		}
		p, err := plotOf(c)
		if err != nil {
			return paths, fmt.Errorf("png %s: %w", c.ID, err)
		}
		wt, err := p.WriterTo(pngWidth, pngHeight, "png")
		if err != nil {
			return paths, fmt.Errorf("png %s: %w", c.ID, err)
		}
		path := pngPath(dir, rep, c)
		if err := outfile.Write(path, "png "+c.ID+": ", func(w io.Writer) error {
			tag := outfile.TagPNG(w)
			_, err := wt.WriteTo(tag)
			return errors.Join(err, tag.Flush())
		}); err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// PNGPaths are the files RenderPNGs writes into dir: run<ids>-<chart id>.png
// for every chart with data; none when dir is "".
func PNGPaths(dir string, rep *analysis.Set) []string {
	if dir == "" {
		return nil
	}
	var paths []string
	for _, c := range pngCharts(rep) {
		paths = append(paths, pngPath(dir, rep, c))
	}
	return paths
}

// pngCharts are the charts that have data to plot.
func pngCharts(rep *analysis.Set) []analysis.Chart {
	var out []analysis.Chart
	for _, c := range rep.Charts {
		if c.Note == "" && len(c.X) > 0 {
			out = append(out, c)
		}
	}
	return out
}

func pngPath(dir string, rep *analysis.Set, c analysis.Chart) string {
	var ids []string
	for _, rd := range rep.Runs {
		ids = append(ids, strconv.FormatInt(rd.Detail.ID, 10))
	}
	return filepath.Join(dir, "run"+strings.Join(ids, "-")+"-"+c.ID+".png")
}

// plotOf draws one chart as gonum/plot does: lines (stepped back over their
// second for time charts), fault bands, event and phase marks, a legend.
func plotOf(c analysis.Chart) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = c.Title
	p.X.Label.Text = c.XLabel
	p.Y.Label.Text = c.YLabel
	p.Add(plotter.NewGrid())
	dist := c.Kind == analysis.KindDistribution
	if len(c.Bands) > 0 || len(c.Marks) > 0 {
		p.Add(eventsPlotter{bands: c.Bands, marks: c.Marks})
	}
	for _, l := range c.Lines {
		col, err := parseColor(l.Color)
		if err != nil {
			return nil, err
		}
		var first *plotter.Line
		for _, seg := range segments(c.X, l.Y, c.SpanGaps) {
			line, err := plotter.NewLine(seg)
			if err != nil {
				return nil, err
			}
			line.Color = col
			line.Width = vg.Points(1.2)
			if l.Dash {
				line.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			}
			if !dist {
				line.StepStyle = plotter.PreStep
			}
			p.Add(line)
			if first == nil {
				first = line
			}
		}
		if first != nil {
			p.Legend.Add(l.Label, first)
		}
	}
	p.Legend.Top = true
	p.Y.Min = 0
	if c.YMax > 0 {
		p.Y.Max = c.YMax // the lines clip at the data area
	}
	p.Y.Max *= 1.05 // room for the top line and the labels
	if p.Y.Max <= 0 {
		p.Y.Max = 1
	}
	if dist {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = percentileTicks{}
		p.X.Min = 1
	} else {
		p.X.Min = 0
		p.X.Max = math.Max(p.X.Max, c.XMax)
	}
	return p, nil
}

// segments splits a line at its gaps; with span, gaps are skipped instead.
func segments(x, y []analysis.Num, span bool) []plotter.XYs {
	var out []plotter.XYs
	var cur plotter.XYs
	for i := range x {
		v := float64(y[i])
		if math.IsNaN(v) || math.IsInf(v, 0) {
			if !span && len(cur) > 0 {
				out = append(out, cur)
				cur = nil
			}
			continue
		}
		cur = append(cur, plotter.XY{X: float64(x[i]), Y: v})
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

func parseColor(s string) (color.Color, error) {
	if len(s) != 7 || s[0] != '#' {
		return nil, fmt.Errorf("colour %q: expected #rrggbb", s)
	}
	v, err := strconv.ParseUint(s[1:], 16, 32)
	if err != nil {
		return nil, fmt.Errorf("colour %q: expected #rrggbb", s)
	}
	return color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 255}, nil
}

// percentileTicks labels the 1/(1−p) axis of distribution plots: 10 → 90%.
type percentileTicks struct{}

func (percentileTicks) Ticks(min, max float64) []plot.Tick {
	var ticks []plot.Tick
	for d := math.Floor(math.Log10(math.Max(min, 1))); math.Pow(10, d) <= max*1.0001; d++ {
		x := math.Pow(10, d)
		ticks = append(ticks, plot.Tick{Value: x, Label: percentileLabel(x)})
		for m := 2.0; m < 10; m++ {
			if x*m <= max {
				ticks = append(ticks, plot.Tick{Value: x * m}) // minor
			}
		}
	}
	return ticks
}

// percentileLabel prints the percentile of x = 1/(1−p) with as many nines
// as it has: 1 → 0%, 10 → 90%, 1000 → 99.9%.
func percentileLabel(x float64) string {
	if x <= 1 {
		return "0%"
	}
	p := 100 * (1 - 1/x)
	decimals := max(0, int(math.Ceil(math.Log10(x)))-2)
	return strconv.FormatFloat(p, 'f', decimals, 64) + "%"
}

// eventsPlotter shades fault windows and draws marks over the whole height.
type eventsPlotter struct {
	bands []analysis.Band
	marks []analysis.Mark
}

var (
	bandColor  = color.NRGBA{R: 214, G: 39, B: 40, A: 34}
	eventColor = color.RGBA{R: 106, G: 61, B: 154, A: 255}
	phaseColor = color.RGBA{R: 136, G: 136, B: 136, A: 255}
)

func (e eventsPlotter) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	clamp := func(x vg.Length) vg.Length { return min(max(x, c.Min.X), c.Max.X) }
	label := draw.TextStyle{Font: font.From(plot.DefaultFont, vg.Points(7)), Handler: plot.DefaultTextHandler}
	for _, b := range e.bands {
		x0, x1 := clamp(trX(b.From)), clamp(trX(b.To))
		if x1 <= x0 {
			continue
		}
		c.FillPolygon(bandColor, []vg.Point{{X: x0, Y: c.Min.Y}, {X: x1, Y: c.Min.Y}, {X: x1, Y: c.Max.Y}, {X: x0, Y: c.Max.Y}})
		label.Color = color.RGBA{R: 170, G: 17, B: 17, A: 255}
		c.FillText(label, vg.Point{X: x0 + vg.Points(2), Y: c.Max.Y - vg.Points(18)}, b.Label)
	}
	for _, m := range e.marks {
		x := trX(m.At)
		if x < c.Min.X || x > c.Max.X {
			continue
		}
		sty := draw.LineStyle{Color: eventColor, Width: vg.Points(0.8)}
		if m.Phase {
			sty.Color = phaseColor
			sty.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
		}
		c.StrokeLine2(sty, x, c.Min.Y, x, c.Max.Y)
		label.Color = sty.Color
		c.FillText(label, vg.Point{X: x + vg.Points(2), Y: c.Max.Y - vg.Points(8)}, m.Label)
	}
}
