package report

import (
	"fmt"
	"io"
	"time"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/format"
)

// Drivers lists the drivers of reg with what each drives (dbrig drivers).
func Drivers(w io.Writer, reg driver.Registry) {
	for _, n := range reg.Names() {
		fmt.Fprintf(w, "%-10s %s\n", n, reg[n].Doc)
	}
}

// Driver prints one driver's properties, from the declarations the
// unknown-key check uses (dbrig drivers NAME).
func Driver(w io.Writer, name string, d driver.Driver) {
	fmt.Fprintf(w, "%s: %s\n", name, d.Doc)
	if len(d.Props) == 0 {
		fmt.Fprintln(w, "no properties")
		return
	}
	fmt.Fprintf(w, "\n%-22s %-10s %-24s %s\n", "property", "type", "default", "meaning")
	for _, p := range d.Props {
		doc := p.Doc
		if p.Secret != nil {
			doc += " (secret: never stored or printed)"
		}
		def := p.Default
		if def == "" {
			def = "-"
		}
		fmt.Fprintf(w, "%-22s %-10s %-24s %s\n", p.Key, p.Type, def, doc)
	}
	if env := d.Env(); len(env) > 0 {
		fmt.Fprintln(w, "\nread from the environment when no file, -p or flag sets them (what dbrig cluster env exports):")
		for _, v := range env {
			fmt.Fprintf(w, "  %s → %s\n", v.Name, v.Key)
		}
	}
}

// Validation prints dbrig validate's comparison of the measured response
// times with the queue model's, and its verdict.
func Validation(w io.Writer, r *experiment.ValidationReport) {
	us := func(x float64) string { return format.Duration(time.Duration(x * float64(time.Microsecond))) }
	fmt.Fprintf(w, "\n%-44s %10s %10s\n", "", "mean", "p99")
	fmt.Fprintf(w, "%-44s %10s %10s\n", "queue model (predicted response time)", format.Duration(r.Predicted), format.Duration(r.PredictedP99))
	fmt.Fprintf(w, "%-44s %10s %10s   run %d\n", "dbrig, open model, response time", us(r.Open.Mean), us(float64(r.Open.P99)), r.OpenID)
	fmt.Fprintf(w, "%-44s %10s %10s   run %d\n", "closed loop, send time (coordinated omission)", us(r.ClosedSend.Mean), us(float64(r.ClosedSend.P99)), r.ClosedID)
	fmt.Fprintf(w, "%-44s %10s %10s\n", "closed loop, from intended start", us(r.ClosedResp.Mean), us(float64(r.ClosedResp.P99)))
	verdict := "PASS"
	if !r.Pass {
		verdict = "FAIL"
	}
	fmt.Fprintf(w, "\n%s: measured mean is %.2f%% from the model (tolerance %.0f%%)\n", verdict, 100*r.Deviation, 100*r.Tolerance)
}
