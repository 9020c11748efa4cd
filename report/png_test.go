package report_test

import (
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/report"
	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/web/webtest"
)

func TestWritePNGs(t *testing.T) {
	ctx := context.Background()
	s, _ := newStore(t)
	a := addRun(t, s, webtest.Default(t0))
	spec := webtest.Default(t0.Add(time.Hour))
	spec.Warmup, spec.Measure, spec.Status = 0, 0, results.StatusInterrupted
	empty := addRun(t, s, spec)

	dir := filepath.Join(t.TempDir(), "png")
	paths, err := report.WritePNGs(ctx, dir, s, []int64{a.ID})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range paths {
		names = append(names, filepath.Base(p))
	}
	sort.Strings(names)
	want := []string{"run1-distribution-OVERALL.png", "run1-distribution-READ.png", "run1-distribution-UPDATE.png",
		"run1-errors.png", "run1-latency-OVERALL.png", "run1-latency-READ.png", "run1-latency-UPDATE.png",
		"run1-throughput-OVERALL.png", "run1-throughput-READ.png", "run1-throughput-UPDATE.png"}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Fatalf("wrote %v\nwant %v", names, want)
	}
	for _, p := range paths {
		img := decodePNG(t, p)
		if b := img.Bounds(); b.Dx() != 960 || b.Dy() != 384 {
			t.Errorf("%s is %dx%d, want 960x384", p, b.Dx(), b.Dy())
		}
	}
	// The latency plot shows the fault: a shaded band and the red p99 line.
	img := decodePNG(t, filepath.Join(dir, "run1-latency-READ.png"))
	if n := countColor(img, 0xd6, 0x27, 0x28); n < 50 {
		t.Errorf("p99 line (#d62728) covers %d pixels, want a visible line", n)
	}
	if n := countNear(img, 0xf9, 0xe4, 0xe4, 6); n < 500 {
		t.Errorf("fault band covers %d pixels, want a visible band", n)
	}

	// Two runs: the overlaid charts, named after both.
	b := addRun(t, s, webtest.Default(t0.Add(2*time.Hour)))
	paths, err = report.WritePNGs(ctx, dir, s, []int64{a.ID, b.ID})
	if err != nil || len(paths) != len(want) {
		t.Fatalf("WritePNGs(two runs) = %d files, %v; want %d", len(paths), err, len(want))
	}
	if got, wantName := filepath.Base(paths[0]), fmt.Sprintf("run%d-%d-throughput-OVERALL.png", a.ID, b.ID); got != wantName {
		t.Errorf("first file %s, want %s", got, wantName)
	}

	// A run without data has no charts to draw: no files, no error.
	paths, err = report.WritePNGs(ctx, filepath.Join(t.TempDir(), "none"), s, []int64{empty.ID})
	if err != nil || len(paths) != 0 {
		t.Errorf("WritePNGs(run without intervals) = %v, %v; want no files", paths, err)
	}
	if _, err := report.WritePNGs(ctx, dir, s, []int64{42}); err == nil || !strings.Contains(err.Error(), "run 42") {
		t.Errorf("unknown run: err = %v", err)
	}
}

func decodePNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return img
}

func countColor(img image.Image, r, g, b uint8) int { return countNear(img, r, g, b, 0) }

// countNear counts the pixels within tol of an RGB colour.
func countNear(img image.Image, r, g, b uint8, tol int) int {
	n := 0
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			pr, pg, pb, _ := img.At(x, y).RGBA()
			if near(pr>>8, r, tol) && near(pg>>8, g, tol) && near(pb>>8, b, tol) {
				n++
			}
		}
	}
	return n
}

func near(v uint32, want uint8, tol int) bool {
	d := int(v) - int(want)
	return d >= -tol && d <= tol
}
