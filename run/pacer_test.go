package run

import (
	"context"
	"testing"
	"time"

	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/workload"
)

// pacedWorkload's clients ask for a pause before each operation
// (workload.Pacer, as TPC-C's keying and think times).
type pacedWorkload struct {
	fakeWorkload
	pause time.Duration
}

func (w *pacedWorkload) NewClient(id int, seed int64) workload.Client {
	return &pacedClient{fakeClient: fakeClient{w: &w.fakeWorkload}, pause: w.pause}
}

type pacedClient struct {
	fakeClient
	pause time.Duration
}

func (c *pacedClient) Pause() time.Duration { return c.pause }

// TestClosedPacer: the closed model waits each client's pause after the
// previous operation (and before the first), and response time counts
// from the end of the pause, not from when the client was ready.
func TestClosedPacer(t *testing.T) {
	db := &fakeDB{service: 5 * time.Millisecond, keepStart: true}
	wl := &pacedWorkload{pause: 40 * time.Millisecond}
	sums, err := Run(context.Background(), db, wl, Config{Clients: 1, Duration: 500 * time.Millisecond}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sum, _ := measure.Measured(sums)
	// 45 ms per cycle: about 11 in 500 ms; back to back it would be ~100.
	if n := sum.Overall.Count; n < 6 || n > 12 {
		t.Errorf("%d operations in 500 ms with a 40 ms pause and 5 ms service, want about 11", n)
	}
	for i := 1; i < len(db.starts); i++ {
		if gap := db.starts[i].Sub(db.starts[i-1]); gap < 44*time.Millisecond {
			t.Errorf("operations %d and %d started %v apart, want ≥ pause + service (45 ms)", i-1, i, gap)
		}
	}
	if p50 := sum.Overall.Response.P50; p50 > 20_000 {
		t.Errorf("response p50 %d µs: the pause was counted as latency", p50)
	}
}
