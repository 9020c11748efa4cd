package rating

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbrig/dbrig/sla"
)

func mustSLA(t testing.TB, exprs ...string) sla.SLA {
	t.Helper()
	s, err := sla.Parse(exprs...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestMain runs up to 8 tests at once unless -parallel says otherwise (the
// default is GOMAXPROCS, 2 here): the real-time ratings spend their time
// waiting for 1 s experiments, not on the CPU, and their SLAs are loose
// enough for a loaded machine; the rest run on the queue model in virtual
// time (qsim_test.go).
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		if err := flag.Set("test.parallel", "8"); err != nil {
			panic(err)
		}
	}
	if os.Getenv("GOGC") == "" {
		// The queue model's ratings allocate histograms for every interval
		// of every experiment: at the default, the collector took an eighth
		// of their CPU, which a loaded machine is short of (400 MB at most).
		debug.SetGCPercent(400)
	}
	code := m.Run()
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

// shared is the rating of the 2,000 ops/s queue model from 1,000 ops/s with
// the defaults of qrate, made once for the tests that compare with it: the
// model has no noise, so every such rating is this one (TestVirtualKnownAnswer
// rates it again and wants the same), and a loaded machine runs it once.
var shared struct {
	once  sync.Once
	dir   string
	store string // its results store
	r     *Rating
	err   error
}

// cleanRating returns the shared rating and its results store.
func cleanRating(t *testing.T) (*Rating, string) {
	t.Helper()
	shared.once.Do(func() {
		if shared.dir, shared.err = os.MkdirTemp("", "rating-clean-"); shared.err != nil {
			return
		}
		shared.store = filepath.Join(shared.dir, "r.db")
		o := Options{Start: 1000, SLA: mustSLA(t, "p95<50ms"), Step: 2 * time.Second, SLADuration: 3 * time.Second}
		shared.r, shared.err = Rate(context.Background(), (&qmodel{capacity: 2000}).options(shared.store, o), Hooks{})
	})
	if shared.err != nil {
		t.Fatalf("the clean rating: %v", shared.err)
	}
	return shared.r, shared.store
}

// paced makes o the search of a real-time wiring test, whose verdicts are
// not under test (the resets, the stores, the stored runs are): by
// clients, 1 then 2, the clients paced at rate ops/s in total (the closed
// model on a schedule), a 1 s step and final run, one vote, no warmup and
// no minimum sample. The closed model has no throughput term, and a
// latency limit of seconds is met however starved the machine is, so the
// rating is the same three experiments (1, 2 and the final run at 2) on a
// calm and on a loaded machine. By rate, the throughput term failed there
// (a starved runner completed 21 of 100 ops/s) and the bisection that
// followed took three times the experiments and resets; the verdicts of
// the search are the virtual tests' business (virtual_test.go).
func paced(o Options, rate float64) Options {
	o.Base.Props = append(append([]string(nil), o.Base.Props...), "target="+strconv.FormatFloat(rate, 'f', -1, 64))
	o.By, o.Start, o.Max = ByClients, 1, 2
	o.Step, o.SLADuration = time.Second, time.Second
	o.Votes, o.Warmup, o.MinTail = 1, -1, -1
	return o
}
