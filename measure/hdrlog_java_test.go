package measure

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/internal/testenv"
)

// hdrJar finds HdrHistogram's Java jar: Debian's libhdrhistogram-java when
// installed, else $DBRIG_HDR_JAR (scripts/test installs it and sets that).
func hdrJar(t *testing.T) (java, jar string) {
	t.Helper()
	jar = "/usr/share/java/hdrhistogram.jar"
	if _, err := os.Stat(jar); err != nil {
		jar = testenv.Need(t, "DBRIG_HDR_JAR")
	}
	java, err := exec.LookPath("java")
	if err != nil {
		t.Fatalf("HdrHistogram's jar is there but java is not: %v", err)
	}
	return java, jar
}

// HdrHistogram's own HistogramLogProcessor must read the log: tags,
// interval times and values.
func TestLogReadByHistogramLogProcessor(t *testing.T) {
	java, jar := hdrJar(t)
	dir := t.TempDir()
	base := time.UnixMilli(1_700_000_000_000)
	r := NewRecorder([]string{"READ", "UPDATE"})
	c := r.Shard()
	r.SetStart(base)
	f, err := os.Create(filepath.Join(dir, "run.hlog"))
	if err != nil {
		t.Fatal(err)
	}
	lw, err := NewLogWriter(f, base, "dbrig test")
	if err != nil {
		t.Fatal(err)
	}
	for sec := 1; sec <= 3; sec++ {
		for k := int64(1); k <= 1000; k++ {
			c.Record(0, base, base, base.Add(us(k)), nil)    // READ: 1..1000 µs
			c.Record(1, base, base, base.Add(us(k*10)), nil) // UPDATE: 10..10000 µs
		}
		if err := lw.WriteInterval(r.Cut(PhaseMeasure, base.Add(time.Duration(sec)*time.Second))); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out := filepath.Join(dir, "read")
	cmd := exec.CommandContext(ctx, java, "-cp", jar, "org.HdrHistogram.HistogramLogProcessor",
		"-i", f.Name(), "-tag", "READ", "-outputValueUnitRatio", "1", "-o", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("HistogramLogProcessor: %v\n%s", err, b)
	}
	intervals, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"1.000: I:1000 ", "2.000: I:1000 ", "3.000: I:1000 ", "T:3000 "} {
		if !strings.Contains(string(intervals), want) {
			t.Errorf("interval output lacks %q:\n%s", want, intervals)
		}
	}
	hgrm, err := os.ReadFile(out + ".hgrm")
	if err != nil {
		t.Fatal(err)
	}
	// READ values are 1..1000 µs: max 1000, mean 500.5, 3000 values.
	for _, want := range []string{"Max     =     1000.000", "Total count    =         3000", "Mean    =      500.500"} {
		if !strings.Contains(string(hgrm), want) {
			t.Errorf("percentile output lacks %q:\n%s", want, hgrm)
		}
	}
}
