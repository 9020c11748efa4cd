package timeseries

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/spec"
	"github.com/dbrig/dbrig/workload"
)

var devopsBase = []string{"workload=devops", "devops.hosts=10", "devops.metrics=3", "devops.interval=10s",
	"recordcount=600", "devops.batch=20", "devops.query.range=5m", "devops.groupby.hosts=4", "devops.groupby.bucket=1m"}

func newDevops(t testing.TB, extra ...string) *Devops {
	t.Helper()
	w, err := NewDevops(props(t, append(append([]string(nil), devopsBase...), extra...)...))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func devopsKey(t testing.TB, key string) (host string, ts int64) {
	t.Helper()
	i := strings.LastIndex(key, ":time=")
	ts, err := strconv.ParseInt(key[i+len(":time="):], 10, 64)
	if i < 0 || err != nil {
		t.Fatalf("key %q: no :time=", key)
	}
	return strings.Split(key, ":")[1], ts
}

func loadDevops(t testing.TB, w *Devops, db *memDB, seed int64) {
	t.Helper()
	for id := 0; id < w.threads; id++ {
		c := w.NewClient(id, seed)
		for {
			n, err := c.Load(context.Background(), batchDB{db}, 50)
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				break
			}
		}
	}
}

func TestDevopsDeterministicAndOutOfOrder(t *testing.T) {
	cases := []struct {
		ooo  string
		late bool
	}{{"0", false}, {"0.3", true}}
	for _, tc := range cases {
		t.Run("outoforder="+tc.ooo, func(t *testing.T) {
			w := newDevops(t, "devops.outoforder="+tc.ooo, "devops.outoforder.intervals=3", "threadcount=2")
			a, b := newMemDB(), newMemDB()
			loadDevops(t, w, a, 11)
			loadDevops(t, newDevops(t, "devops.outoforder="+tc.ooo, "devops.outoforder.intervals=3", "threadcount=2"), b, 11)
			if fmt.Sprint(a.log) != fmt.Sprint(b.log) || fmt.Sprint(a.data) != fmt.Sprint(b.data) {
				t.Fatal("the same seed wrote other points")
			}
			newest := map[string]int64{}
			lateN := 0
			for _, c := range a.log {
				h, ts := devopsKey(t, c.key)
				if (ts-w.start)%w.interval != 0 {
					t.Fatalf("time %d not on the 10s grid", ts)
				}
				if n, ok := newest[h]; ok && ts < n {
					lateN++
					if (n-ts)/w.interval > 3 {
						t.Fatalf("%s: point %d intervals late, want at most 3", h, (n-ts)/w.interval)
					}
				}
				newest[h] = max(newest[h], ts)
			}
			if len(a.data) != 600 || len(a.log) != 600 {
				t.Errorf("%d points stored of %d written, want 600 (each once)", len(a.data), len(a.log))
			}
			if frac := float64(lateN) / 600; (lateN > 0) != tc.late || (tc.late && (frac < 0.15 || frac > 0.35)) {
				t.Errorf("%d of 600 points arrived late, want late=%v (about 30%% when 0.3)", lateN, tc.late)
			}
		})
	}
}

func TestDevopsOperations(t *testing.T) {
	w := newDevops(t, "devops.insertproportion=1", "devops.lastpointproportion=1", "devops.rangeproportion=1", "devops.groupbyproportion=1")
	db := newMemDB()
	loadDevops(t, w, db, 1)
	c := w.NewClient(0, 2)
	seen := map[int]bool{}
	for i := 0; i < 400; i++ {
		db.log = nil
		op, err := c.Do(context.Background(), batchDB{db})
		if err != nil {
			t.Fatalf("%s: %v", devopsOps[op], err)
		}
		seen[op] = true
		switch op {
		case DevopsInsert:
			if len(db.log) != 20 {
				t.Fatalf("an INSERT wrote %d points, want devops.batch=20", len(db.log))
			}
		case DevopsLastPoint:
			if db.log[len(db.log)-1].op != "read" {
				t.Fatalf("LASTPOINT made %v", db.log)
			}
		case DevopsRange, DevopsGroupBy:
			want := 1
			if op == DevopsGroupBy {
				want = 4
			}
			if len(db.log) != want {
				t.Fatalf("%s made %d scans, want %d", devopsOps[op], len(db.log), want)
			}
			for _, s := range db.log {
				if s.n != 31 || s.got == 0 {
					t.Fatalf("%s scanned %d of 31 wanted (5m / 10s + 1): %+v", devopsOps[op], s.got, s)
				}
			}
		}
	}
	if len(seen) != 4 {
		t.Errorf("operations seen %v, want all four", seen)
	}
}

func TestDevopsHeadlineCountsPoints(t *testing.T) {
	w := newDevops(t)
	m := w.Headline(2*time.Second, []workload.OpCount{{Op: "RANGE", Count: 5}, {Op: "INSERT", Count: 11, Errors: 1}})
	if len(m) != 2 || m[0].Name != "points_per_sec" || m[0].Value != 100 || m[1].Value != 300 {
		t.Errorf("headline %+v, want 100 points/s (10 batches of 20 in 2 s) and 300 values/s", m)
	}
}

func TestDevopsBadProperties(t *testing.T) {
	cases := []struct{ set, key, want string }{
		{"devops.hosts=2\nthreadcount=3", "devops.hosts", ">= threadcount (3)"},
		{"devops.query.range=5s", "devops.query.range", "from devops.interval (10s)"},
		{"devops.groupby.bucket=10m", "devops.groupby.bucket", "to devops.query.range (5m0s)"},
		{"devops.groupby.function=median", "devops.groupby.function", "sum, avg, min, max, count"},
		{"devops.outoforder=1.5", "devops.outoforder", "from 0 to 1"},
		{"devops.start=yesterday", "devops.start", "RFC 3339"},
		{"devops.batch=0", "devops.batch", "from 1 to"},
		{"devops.insertproportion=0\ndevops.lastpointproportion=0\ndevops.rangeproportion=0\ndevops.groupbyproportion=0", "devops.insertproportion", "at least one"},
	}
	for _, tc := range cases {
		t.Run(tc.set, func(t *testing.T) {
			_, err := NewDevops(props(t, append(append([]string(nil), devopsBase...), strings.Split(tc.set, "\n")...)...))
			var pe *spec.PropError
			if !errors.As(err, &pe) || pe.Key != tc.key || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "t.props:") {
				t.Errorf("error %v, want t.props:LINE on %s with %q", err, tc.key, tc.want)
			}
		})
	}
}

func TestAppendCents(t *testing.T) {
	for _, v := range []float64{0, 0.004, 0.005, 1.5, 12.345, 99.999, 100} {
		if got, want := string(appendCents(nil, v)), strconv.FormatFloat(v, 'f', 2, 64); got != want && !(v == 12.345 && got == "12.35") {
			t.Errorf("appendCents(%v) = %s, want %s", v, got, want)
		}
	}
}

// The table a devops value is looked up in gives what appendCents gives.
func TestCentsText(t *testing.T) {
	tab := centsText()
	for _, v := range []float64{0, 0.004, 0.005, 0.994, 1.5, 12.345, 50.125, 99.994, 99.995, 100} {
		if got, want := string(tab[int64(v*100+0.5)]), string(appendCents(nil, v)); got != want {
			t.Errorf("table at %v = %s, appendCents %s", v, got, want)
		}
	}
	if a := tab[5]; cap(a) != len(a) {
		t.Errorf("entry capacity %d beyond its length %d: an append would overwrite the next", cap(a), len(a))
	}
}
