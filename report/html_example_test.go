package report_test

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/report"
	"github.com/dbrig/dbrig/web/webtest"
)

// TestWriteExample writes a comparison report of two runs (one with a fault
// band) and its PNGs, and checks what came out: a self-contained page with
// both runs and every chart, and PNGs that decode. It writes to
// $DBRIG_REPORT_SAMPLE when set, to look at by hand.
func TestWriteExample(t *testing.T) {
	out := os.Getenv("DBRIG_REPORT_SAMPLE")
	if out == "" {
		out = filepath.Join(t.TempDir(), "sample.html")
	}
	s, _ := newStore(t)
	a := addRun(t, s, webtest.Default(t0))
	spec := webtest.Default(t0.Add(time.Hour))
	spec.Version, spec.BaseUS, spec.FaultFrom, spec.FaultTo = "2.0", 150, 6, 7
	b := addRun(t, s, spec)
	var buf bytes.Buffer
	if err := report.WriteHTML(context.Background(), &buf, s, []int64{a.ID, b.ID}); err != nil {
		t.Fatal(err)
	}
	html := buf.String()
	for _, want := range []string{"<html", "uPlot", "2.0", "fault"} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(html, `<script src="http`) || strings.Contains(html, `<link href="http`) {
		t.Error("report loads something from the network: it must work offline")
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	files, err := report.WritePNGs(context.Background(), out+".png", s, []int64{a.ID, b.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 3 {
		t.Fatalf("%d PNG files, want one per chart", len(files))
	}
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(fh)
		fh.Close()
		if err != nil || img.Bounds().Dx() < 100 {
			t.Errorf("%s: not a usable PNG (%v)", f, err)
		}
	}
}
