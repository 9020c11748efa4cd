package tpcc

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/drivertest"
	"github.com/dbrig/dbrig/run"
	"github.com/dbrig/dbrig/spec"
)

func props(t *testing.T, kv ...string) *spec.Props {
	t.Helper()
	return drivertest.Flags(t, append([]string{"workload=tpcc"}, kv...)...)
}

func tiny(t *testing.T, kv ...string) *Workload {
	t.Helper()
	w, err := New(props(t, append([]string{"tpcc.testscale=100"}, kv...)...))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestBadProps(t *testing.T) {
	for _, tc := range []struct {
		kv   []string
		want string
	}{
		{[]string{"tpcc.warehouses=0"}, "tpcc.warehouses"},
		{[]string{"tpcc.warehouses=-3"}, "tpcc.warehouses"},
		{[]string{"tpcc.warehouses=x"}, "tpcc.warehouses"},
		{[]string{"tpcc.mix=45,43,4,4"}, "tpcc.mix"},
		{[]string{"tpcc.mix=45,43,4,4,5"}, "sum to 101"},
		{[]string{"tpcc.mix=50,50,0,0,-0x"}, "tpcc.mix"},
		{[]string{"tpcc.mode=slow"}, "tpcc.mode"},
		{[]string{"tpcc.retries=-1"}, "tpcc.retries"},
		{[]string{"tpcc.testscale=1000"}, "tpcc.testscale"},
		{[]string{"tpcc.mode=spec", "tpcc.warehouses=2", "threadcount=5"}, "20 clients"},
	} {
		t.Run(strings.Join(tc.kv, " "), func(t *testing.T) {
			_, err := New(props(t, tc.kv...))
			var pe *spec.PropError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want a property error mentioning %q", err, tc.want)
			}
		})
	}
}

func TestSpecModeTerminals(t *testing.T) {
	p := props(t, "tpcc.mode=spec", "tpcc.warehouses=3")
	if _, err := New(p); err != nil {
		t.Fatal(err)
	}
	if got := p.String("threadcount", ""); got != "30" {
		t.Fatalf("threadcount %q, want 30 (10 terminals per warehouse)", got)
	}
	w := tiny(t, "tpcc.mode=spec")
	c := w.NewClient(0, 1).(*Client)
	first := c.Pause()
	if first != keying[c.next] {
		t.Errorf("first pause %v, want the keying time of %s (%v)", first, opNames[c.next], keying[c.next])
	}
	for range 200 {
		c.lastTxn = OpPayment
		d := c.Pause()
		if d < keying[c.next] || d > keying[c.next]+10*think[OpPayment] {
			t.Fatalf("pause %v after Payment before %s: outside keying + [0, 10 × mean think]", d, opNames[c.next])
		}
	}
	if fast := tiny(t).NewClient(0, 1).(*Client); fast.Pause() != 0 {
		t.Error("fast mode pauses")
	}
}

func TestNURand(t *testing.T) {
	r := newRnd(1, nurandC{last: 123, id: 259, item: 7911})
	counts := map[int]int{}
	for range 100_000 {
		x := r.nurand(1023, 1, 3000)
		if x < 1 || x > 3000 {
			t.Fatalf("NURand(1023, 1, 3000) = %d", x)
		}
		counts[x]++
	}
	// Non-uniform: the most frequent value is far above the mean (33).
	top := 0
	for _, n := range counts {
		top = max(top, n)
	}
	if top < 100 {
		t.Errorf("most frequent customer id drawn %d times in 100000: looks uniform", top)
	}
	if got := lastName(371); got != "PRICALLYOUGHT" {
		t.Errorf("lastName(371) = %q, want PRICALLYOUGHT", got)
	}
	if got := lastName(0); got != "BARBARBAR" {
		t.Errorf("lastName(0) = %q", got)
	}
}

func TestCRun(t *testing.T) {
	r := newRnd(5, nurandC{})
	for cLoad := 0; cLoad <= 255; cLoad++ {
		c := cRun(cLoad, r.Rand)
		if !validCRun(cLoad, c) {
			t.Fatalf("C_RUN %d for C_LOAD %d breaks clause 2.1.6.1", c, cLoad)
		}
	}
	if validCRun(100, 4) || validCRun(100, 100-112) {
		t.Error("validCRun accepts a difference of 96 or a negative C")
	}
}

// TestMix draws 10 000 transactions' types and inputs as terminals do and
// compares the shares with the asked mix and the specification's inner
// ratios (1 % rollbacks, 1 % remote lines, 15 % remote payments, 60 % by name).
func TestMix(t *testing.T) {
	for _, mix := range []string{"45,43,4,4,4", "10,20,30,20,20"} {
		w := tiny(t, "tpcc.warehouses=5", "tpcc.mix="+mix)
		c := w.NewClient(3, 42).(*Client)
		const n = 10_000
		var got [mixTxns]int
		var rollbacks, lines, remoteLines, payments, remotePay, named, namedOf int
		for range n {
			tx := c.pick()
			got[tx]++
			in := c.input(tx)
			switch tx {
			case OpNewOrder:
				if in.rollbackItem {
					rollbacks++
				}
				for _, l := range in.lines {
					lines++
					if l.supply != in.wh {
						remoteLines++
					}
				}
			case OpPayment:
				payments++
				if in.cw != in.wh {
					remotePay++
				}
				fallthrough
			case OpOrderStatus:
				namedOf++
				if in.last != "" {
					named++
				}
			}
		}
		want := strings.Split(mix, ",")
		for i := range got {
			pi, err := strconv.Atoi(want[i])
			if err != nil {
				t.Fatal(err)
			}
			p := float64(pi)
			share := float64(got[i]) / n * 100
			if d := share - p; d > 1.5 || d < -1.5 {
				t.Errorf("mix %s: %s %.2f%% of %d, want %.0f%% ± 1.5", mix, opNames[i], share, n, p)
			}
		}
		within := func(name string, k, of int, want, tol float64) {
			if of == 0 {
				return
			}
			if share := float64(k) / float64(of) * 100; share < want-tol || share > want+tol {
				t.Errorf("mix %s: %s %.2f%% (%d of %d), want %.0f%% ± %.1f", mix, name, share, k, of, want, tol)
			}
		}
		within("rolled-back New-Orders", rollbacks, got[OpNewOrder], 1, 0.9)
		within("remote order lines", remoteLines, lines, 1, 0.5)
		within("remote payments", remotePay, payments, 15, 3)
		within("by last name", named, namedOf, 60, 4)
	}
}

// load loads w into db through the runner's load phase.
func load(t *testing.T, db driver.DB, w *Workload) {
	t.Helper()
	ctx := context.Background()
	if loaded, err := w.Prepare(ctx, db, false); err != nil || loaded {
		t.Fatalf("prepare: loaded %v, %v", loaded, err)
	}
	sum, err := run.Load(ctx, db, w, run.Config{Clients: 4, LoadBatch: 1}, nil)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if sum.Records != w.LoadCount() {
		t.Fatalf("loaded %d records, want %d", sum.Records, w.LoadCount())
	}
}

func count(t *testing.T, s driver.SQL, q string, args ...any) int64 {
	t.Helper()
	var n num
	err := s.InTx(context.Background(), driver.TxOptions{ReadOnly: true}, func(tx driver.Tx) error {
		return tx.QueryRow(context.Background(), q, args...).Scan(&n)
	})
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return int64(n)
}
