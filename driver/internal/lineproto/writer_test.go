package lineproto

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/spec"
)

func writerProps(kv ...string) *spec.Props {
	p := spec.NewProps()
	for i := 0; i < len(kv); i += 2 {
		p.Set(kv[i], kv[i+1], spec.Source{Flag: "p"})
	}
	return p
}

// Each property is read under the driver's prefix, and a bad one is
// refused naming it.
func TestNewWriterReadsPrefixedProps(t *testing.T) {
	w, err := NewWriter(writerProps("tsdb.url", "http://127.0.0.1:9/", "tsdb.precision", "ms", "tsdb.batchsize", "2",
		"tsdb.timeout", "3s", "tsdb.poolsize", "5"), "tsdb", "http://127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	if w.Base != "http://127.0.0.1:9" || w.Unit != 1e6 || w.Batch != 2 || w.Timeout.Seconds() != 3 {
		t.Errorf("writer %+v", w)
	}
	for _, c := range []struct{ key, value string }{
		{"tsdb.url", "ftp://x"}, {"tsdb.precision", "d"}, {"tsdb.batchsize", "0"}, {"tsdb.batchsize", "1000001"},
		{"tsdb.timeout", "0s"}, {"tsdb.poolsize", "0"},
	} {
		_, err := NewWriter(writerProps(c.key, c.value), "tsdb", "http://127.0.0.1:1")
		var pe *spec.PropError
		if !errors.As(err, &pe) || pe.Key != c.key {
			t.Errorf("%s=%s: err %v, want a property error naming it", c.key, c.value, err)
		}
	}
}

// Write splits the points into Batch-sized requests, each at its own
// precision, and says how many points a failed request held.
func TestWriterBatches(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, r.URL.RawQuery+" "+strconv.Itoa(strings.Count(string(b), "\n")))
		mu.Unlock()
		if r.URL.Query().Get("fail") != "" {
			http.Error(w, "no", http.StatusBadRequest)
		}
	}))
	defer srv.Close()
	w, err := NewWriter(writerProps("tsdb.url", srv.URL, "tsdb.batchsize", "2"), "tsdb", srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	pt := func(ns int64) driver.Point {
		return driver.Point{Measurement: "m", Time: ns, Fields: []driver.Field{{Name: "f", Value: []byte("1")}}}
	}
	pts := []driver.Point{pt(1e9), pt(2e9), pt(3e9 + 1)}
	if err := w.Write(context.Background(), pts, func(prec string) string { return srv.URL + "/write?precision=" + prec }); err != nil {
		t.Fatal(err)
	}
	if want := []string{"precision=s 2", "precision=n 1"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("requests %q, want %q", got, want)
	}
	err = w.Write(context.Background(), pts[:1], func(string) string { return srv.URL + "/write?fail=1" })
	if err == nil || !strings.Contains(err.Error(), "write 1 points") {
		t.Errorf("err %v, want the failed request's point count", err)
	}
}
