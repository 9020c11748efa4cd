package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/web"
	"github.com/dbrig/dbrig/web/webtest"
)

// bigStore returns the path of a store with $DBRIG_BENCH_RUNS runs (default
// 10 000). Filling it through the results API takes about two minutes, so it
// is kept in the temporary directory and reused by later benchmark runs.
func bigStore(b *testing.B) string {
	b.Helper()
	n := 10_000
	if v := os.Getenv("DBRIG_BENCH_RUNS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			b.Fatalf("DBRIG_BENCH_RUNS=%q: expected a positive number", v)
		}
	}
	path := filepath.Join(os.TempDir(), fmt.Sprintf("dbrig-web-bench-%d-v1.db", n))
	if _, err := os.Stat(path); err == nil {
		return path
	}
	ctx := context.Background()
	tmp := path + ".filling"
	os.Remove(tmp)
	s, err := results.Open(ctx, tmp)
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if err := webtest.Many(ctx, s, n, time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)); err != nil {
		s.Close()
		b.Fatal(err)
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	b.Logf("filled %s with %d runs in %v", path, n, time.Since(start).Round(time.Second))
	if err := os.Rename(tmp, path); err != nil {
		b.Fatal(err)
	}
	return path
}

func mustGet(b *testing.B, h http.Handler, path string) {
	req := httptest.NewRequest("GET", path, nil)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != 200 {
		b.Fatalf("GET %s: %d\n%s", path, rec.Code, rec.Body.String())
	}
}

// BenchmarkStart is the dashboard's start on a big store: open the store,
// make the handler, serve the first page of the runs list.
func BenchmarkStart(b *testing.B) {
	path := bigStore(b)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, err := results.OpenExisting(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		mustGet(b, web.NewServer(s), "/")
		s.Close()
	}
}

// BenchmarkPages is the latency of each page on a big store.
func BenchmarkPages(b *testing.B) {
	path := bigStore(b)
	s, err := results.OpenExisting(context.Background(), path)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	h := web.NewServer(s)
	for _, p := range []struct{ name, path string }{
		{"list", "/"},
		{"list-sort-p99", "/?sort=p99"},
		{"list-page-50", "/?page=50"},
		{"list-filtered", "/?system=redis&workload=ycsb%2Fworkloadb&tag=batch3"},
		{"history", "/history?system=sim&workload=ycsb%2Fworkloada"},
		{"run", "/run/5000"},
		{"compare", "/compare?ids=10,20,30"},
	} {
		b.Run(p.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				mustGet(b, h, p.path)
			}
		})
	}
}

// BenchmarkRunPageFull is a run page of the test fixture: 12 s of two ops
// with events, the report's whole content.
func BenchmarkRunPageFull(b *testing.B) {
	f := newFixture(b)
	h := web.NewServer(f.store)
	path := fmt.Sprintf("/run/%d", f.simA)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		mustGet(b, h, path)
	}
}
