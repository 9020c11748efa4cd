package report

import (
	"bytes"
	"encoding/base64"
	"html"
	"image/png"
	"regexp"
	"strings"
	"testing"

	"github.com/dbrig/dbrig/results"
)

func TestRatingHTML(t *testing.T) {
	answer := 1900.0
	r := results.Rating{ID: 7, System: "sim", Workload: "workloada", SLA: "p95<50ms", By: "rate", Strategy: "repair", Precision: 0.05,
		Answer: &answer, Confirmed: true,
		Steps: []results.RatingStep{
			{Target: 1000, Pass: true, Terms: []results.RatingTerm{{Term: "p95<50ms", Measured: 1.5, Limit: 50, Unit: "ms", Pass: true}}},
			{Target: 2100, Terms: []results.RatingTerm{{Term: "p95<50ms", Measured: 70, Limit: 50, Unit: "ms"}}},
		}}
	var b bytes.Buffer
	if err := RatingHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"Rating 7: sim, workloada", "SLA <code>p95&lt;50ms</code>", "reset repair", "precision 5%",
		"answer: 1,900 ops/s", "rating:7", "70.0ms ✗"} {
		if !strings.Contains(out, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	m := regexp.MustCompile(`data:image/png;base64,([A-Za-z0-9+/=&#;]+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatal("no embedded plot")
	}
	raw, err := base64.StdEncoding.DecodeString(html.UnescapeString(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(bytes.NewReader(raw)); err != nil {
		t.Errorf("the embedded plot is not a PNG: %v", err)
	}
	if err := RatingHTML(&b, results.Rating{ID: 8}); err == nil {
		t.Error("a rating without experiments rendered")
	}
}
