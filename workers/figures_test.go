package workers

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/dbrig/dbrig/experiment"
)

func cpuTime(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestFigures measures the harness ceiling (null driver, closed model, 4
// clients in all) of one process against 1, 2 and 4 worker processes, in
// alternating rounds, and the coordinator's CPU (getrusage of this
// process, where only the coordinator runs) per worker-second. Not a
// check: run it on a quiet machine with
//
//	DBRIG_FIGURES=1 go test -count=1 -run TestFigures -v ./workers/
func TestFigures(t *testing.T) {
	if os.Getenv("DBRIG_FIGURES") == "" {
		t.Skip("set DBRIG_FIGURES=1 to measure")
	}
	secs := 5
	opts := func() experiment.Options {
		return experiment.Options{Driver: "null", PropFiles: []string{"workloada"}, Seed: 3,
			Store: filepath.Join(t.TempDir(), "r.db"),
			Props: []string{"recordcount=1000", "operationcount=0", fmt.Sprintf("maxexecutiontime=%d", secs), "threadcount=4"}}
	}
	modes := []int{0, 1, 2, 4}
	for round := 1; round <= 2; round++ {
		for _, n := range modes {
			if n == 0 {
				plan, err := experiment.Resolve(opts())
				if err != nil {
					t.Fatal(err)
				}
				out, err := experiment.Execute(context.Background(), plan, experiment.Hooks{})
				if err != nil {
					t.Fatal(err)
				}
				m, _ := out.Measured()
				t.Logf("round %d: one process:  %10.0f ops/s", round, m.Overall.Throughput)
				continue
			}
			before := cpuTime(t)
			start := time.Now()
			var atMeasure time.Duration
			r := distributed(t, setup{opts: opts(), n: n, onStart: func(*Procs) { atMeasure = cpuTime(t) }})
			wall := time.Since(start)
			after := cpuTime(t)
			if r.err != nil {
				t.Fatal(r.err)
			}
			m, _ := r.out.Measured()
			// From the first merged second of the measure phase to the end:
			// merging and storing, without the set-up before.
			measured := m.End.Sub(m.Start).Seconds()
			perWorkerSec := (after - atMeasure) / time.Duration(float64(n)*measured)
			t.Logf("round %d: %d workers:    %10.0f ops/s; coordinator CPU %v in all (%v wall), %v in the measure phase = %v per worker-second (%.2f%% of a core)",
				round, n, m.Overall.Throughput, (after - before).Round(time.Millisecond), wall.Round(time.Millisecond),
				(after - atMeasure).Round(time.Millisecond), perWorkerSec.Round(time.Microsecond), 100*perWorkerSec.Seconds())
		}
	}
}
