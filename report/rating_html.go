package report

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"

	"github.com/dbrig/dbrig/analysis"
	"github.com/dbrig/dbrig/format"
	"github.com/dbrig/dbrig/results"
)

// ratingHTML is a rating as a self-contained page: the plot (throughput
// tried against the SLA's percentile, the SLA line, the answer), the answer
// and the table of experiments with the time split, as the terminal shows it.
var ratingHTML = template.Must(template.New("rating").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>dbrig rating {{.ID}}</title>
<style>
body{font-family:system-ui,sans-serif;margin:2em;max-width:75em;color:#222}
h1{font-size:1.4em} .answer{font-size:1.2em;margin:1em 0}
pre{background:#f6f6f6;padding:1em;overflow-x:auto;font-size:.85em}
img{max-width:100%;border:1px solid #ddd}
</style></head><body>
<h1>Rating {{.ID}}: {{.System}}, {{.Workload}}</h1>
<p>SLA <code>{{.SLA}}</code>, by {{.By}}, reset {{.Strategy}}, precision {{.Precision}}</p>
<p class="answer">{{.Answer}}</p>
<img alt="targets tried against the SLA" src="{{.PNG}}">
<pre>{{.Table}}</pre>
<p>Every experiment is a stored run tagged <code>rating:{{.ID}}</code>:
<code>dbrig runs list --tag rating:{{.ID}}</code>.</p>
</body></html>
`))

// RatingHTML writes a rating as a self-contained HTML page.
func RatingHTML(w io.Writer, r results.Rating) error {
	var table, png bytes.Buffer
	if err := Rating(&table, r); err != nil {
		return err
	}
	if err := RatingPNG(&png, r); err != nil {
		return err
	}
	answer := "no answer"
	if r.Answer != nil && r.IntervalLow != nil && r.IntervalHigh != nil && *r.IntervalLow > 0 {
		switch rel := analysis.RelativeSpread(*r.IntervalLow, *r.IntervalHigh); {
		case r.IntervalUnbounded:
			answer = "interval " + RatingInterval(r) + ": "
		case analysis.SpreadWider(rel, r.Precision):
			answer = fmt.Sprintf("interval %s … %s (%.0f%%), WIDER than the precision: ", format.Target(r.By, *r.IntervalLow), format.Target(r.By, *r.IntervalHigh), rel*100)
		default:
			answer = ""
		}
	}
	if r.Answer != nil {
		if answer == "no answer" {
			answer = ""
		}
		answer += "answer: " + format.Target(r.By, *r.Answer)
		if !r.Confirmed {
			answer += " (not confirmed: no final run passed)"
		}
	}
	if r.Message != "" {
		answer += " — " + r.Message
	}
	return ratingHTML.Execute(w, struct {
		ID                                  int64
		System, Workload, SLA, By, Strategy string
		Precision, Answer, Table            string
		PNG                                 template.URL // a data: URL of our own PNG
	}{r.ID, r.System, r.Workload, r.SLA, r.By, r.Strategy, fmt.Sprintf("%g%%", r.Precision*100), answer, table.String(),
		template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(png.Bytes()))})
}
