package rating

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/internal/testenv"
)

// pgRating rates the real PostgreSQL server: 2,000 records, workload A,
// p95<100ms, 200 … 800 ops/s, precision 25 %, 1 s experiments (0.5 s of
// warmup each) and a 2 s final run.
func pgRating(t *testing.T, url, store string, skipLoad bool, warmup time.Duration, votes int) *Rating {
	t.Helper()
	r, err := Rate(context.Background(), Options{
		Base: experiment.Options{Driver: "postgres", Store: store, Recreate: !skipLoad, SkipLoad: skipLoad,
			Props: []string{"recordcount=2000", "dataintegrity=true", "pg.url=" + url, "table=r10c_stable"}},
		SLA: mustSLA(t, "p95<100ms"), Step: time.Second, SLADuration: 2 * time.Second,
		Start: 200, Max: 800, Precision: 0.25, Reset: ResetSnapshot, Warmup: warmup, Votes: votes,
	}, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range r.Steps {
		t.Logf("rating %d: %s %g achieved %.0f ops %d pass=%v vote %d early=%v reset %s %.2fs: %s", r.ID, s.Kind, s.Target, s.Achieved, s.Ops, s.Pass, s.Vote, s.StoppedEarly, s.Reset, s.ResetS, s.Reason)
	}
	return r
}

// Two ratings of the real PostgreSQL server agree within the precision.
// The SLA's margin is wide (p95<100ms where the server answers in a few
// ms) because the test machine is shared; it still fails when dbrig's own
// setup lands in the SLA's sample. With the old procedure (Warmup -1,
// Votes 1, MinTail -1) every experiment forks 32 server backends inside
// its first measured second (0.3–0.5 s on two cores): two ratings gave 131
// and 350 ops/s with Max 1600, 300 and 98 with Max 800, where this one gave
// 1600 and 1600 (Max 1600, a quiet moment) and 1600 and 1200 (load 23:
// hence Max 800).
// The second rating runs on the data the first left (--skip-load): the
// snapshot strategy puts the data set back as loaded at the end.
func TestRatePostgresTwiceAgrees(t *testing.T) {
	url := testenv.Need(t, "DBRIG_PG_URL")
	store := filepath.Join(t.TempDir(), "r.db")
	a := pgRating(t, url, store, false, 0, 0)
	b := pgRating(t, url, store, true, 0, 0)
	for _, r := range []*Rating{a, b} {
		if !r.Found || !r.Confirmed {
			t.Errorf("rating %d: answer %g found=%v confirmed=%v, want a confirmed answer", r.ID, r.Answer, r.Found, r.Confirmed)
		}
	}
	if a.Left == "" {
		t.Errorf("rating %d did not put the data set back as loaded", a.ID)
	}
	// The store's condition was measured after every settle (the
	// postgres driver is a driver.Conditioner) and stored with the step.
	for _, r := range []*Rating{a, b} {
		if r.Condition == nil || len(r.Condition.Reference) == 0 {
			t.Errorf("rating %d: no reference condition", r.ID)
			continue
		}
		for i, st := range r.Steps {
			if len(st.Condition) == 0 || st.Condition[0].Name != "table_bytes" || st.Condition[0].Value <= 0 || i > 0 && st.Drift == nil {
				t.Errorf("rating %d step %d: condition %v drift %v, want the table's size and its drift from the reference", r.ID, i, st.Condition, st.Drift)
			}
		}
	}
	if lo, hi := min(a.Answer, b.Answer), max(a.Answer, b.Answer); hi-lo > 0.25*hi {
		t.Errorf("two ratings %.0f and %.0f ops/s differ by more than the precision (25%%)", a.Answer, b.Answer)
	}
}
