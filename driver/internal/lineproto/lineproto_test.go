package lineproto

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/errclass"
)

func TestAppendEscapesAndPrecision(t *testing.T) {
	pts := []driver.Point{
		{Measurement: "c pu,x", Tags: []driver.Tag{{Key: "h=k", Value: "a b,c=d"}}, Time: 1_500_000_000_000_000_000,
			Fields: []driver.Field{{Name: "u s", Value: []byte("1.5")}, {Name: "v", Value: []byte("-2")}}},
		{Measurement: "m", Time: 1_500_000_001_000_000_000, Fields: []driver.Field{{Name: "v", Value: []byte("3")}}},
	}
	prec, unit := Choose(pts, 0)
	if prec != "s" || unit != 1e9 {
		t.Fatalf("Choose = %s, %d; want s (both times whole seconds)", prec, unit)
	}
	got := string(Append(nil, pts, unit))
	want := `c\ pu\,x,h\=k=a\ b\,c\=d u\ s=1.5,v=-2 1500000000` + "\n" + "m v=3 1500000001\n"
	if got != want {
		t.Errorf("Append:\n got %q\nwant %q", got, want)
	}
	pts[1].Time++
	if prec, _ := Choose(pts, 0); prec != "n" {
		t.Errorf("Choose with a time off the microsecond = %s, want n", prec)
	}
	if prec, unit := Choose(pts, 1e6); prec != "ms" || unit != 1e6 {
		t.Errorf("Choose fixed ms = %s, %d", prec, unit)
	}
}

// BenchmarkAppend is the driver's cost per devops point (3 tags, 10 values).
func BenchmarkAppend(b *testing.B) {
	tags := []driver.Tag{{Key: "hostname", Value: "host_17"}, {Key: "region", Value: "eu-west-1"}, {Key: "datacenter", Value: "eu-west-1b"}}
	pts := make([]driver.Point, 100)
	for i := range pts {
		pts[i] = driver.Point{Measurement: "cpu", Tags: tags, Time: int64(1451606400+10*i) * 1e9}
		for j := 0; j < 10; j++ {
			pts[i].Fields = append(pts[i].Fields, driver.Field{Name: "usage_" + strconv.Itoa(j), Value: []byte("42.17")})
		}
	}
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		_, unit := Choose(pts, 0)
		buf = Append(buf[:0], pts, unit)
	}
	b.ReportMetric(float64(b.N*100)/b.Elapsed().Seconds(), "points/s")
}

func TestPostClasses(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok":
			body, _ := io.ReadAll(r.Body)
			w.Write(body)
		case "/busy":
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
		case "/slow":
			time.Sleep(200 * time.Millisecond)
		default:
			http.Error(w, "bad line", http.StatusBadRequest)
		}
	}))
	defer srv.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close() // a port nothing listens on
	c := Client(2)
	short, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	cases := []struct {
		ctx  context.Context
		url  string
		want errclass.Class
		msg  string
	}{
		{context.Background(), srv.URL + "/ok", errclass.None, ""},
		{context.Background(), srv.URL + "/busy", errclass.Unavailable, "HTTP 503: overloaded"},
		{context.Background(), srv.URL + "/write", errclass.Other, "HTTP 400: bad line"},
		{short, srv.URL + "/slow", errclass.Timeout, ""},
		{context.Background(), closed.URL + "/ok", errclass.Unavailable, ""},
	}
	for _, tc := range cases {
		out, err := Post(tc.ctx, c, tc.url, []byte("m v=1 1\n"), nil)
		if got := errclass.Of(err); got != tc.want || (tc.msg != "" && !strings.Contains(err.Error(), tc.msg)) {
			t.Errorf("Post %s: class %q (%v), want %q with %q", tc.url, got, err, tc.want, tc.msg)
		}
		if tc.want == errclass.None && string(out) != "m v=1 1\n" {
			t.Errorf("Post %s: body %q, want the echo", tc.url, out)
		}
	}
}

// A key is copied from where it was first escaped only while the point
// names the same key at the same position.
func TestAppendRepeatedKeys(t *testing.T) {
	f := func(names ...string) []driver.Field {
		var fs []driver.Field
		for _, n := range names {
			fs = append(fs, driver.Field{Name: n, Value: []byte("1")})
		}
		return fs
	}
	pts := []driver.Point{
		{Measurement: "m", Tags: []driver.Tag{{Key: "a b", Value: "1"}}, Time: 1, Fields: f("x=", "y")},
		{Measurement: "m", Tags: []driver.Tag{{Key: "a b", Value: "2"}}, Time: 2, Fields: f("x=", "y")},
		{Measurement: "m", Tags: []driver.Tag{{Key: "c", Value: "3"}, {Key: "a b", Value: "4"}}, Time: 3, Fields: f("y", "x=")},
		{Measurement: "m", Time: 4, Fields: f("y")},
	}
	want := "m,a\\ b=1 x\\==1,y=1 1\nm,a\\ b=2 x\\==1,y=1 2\nm,c=3,a\\ b=4 y=1,x\\==1 3\nm y=1 4\n"
	if got := string(Append([]byte("keep"), pts, 1)); got != "keep"+want {
		t.Errorf("Append:\n got %q\nwant %q", got, "keep"+want)
	}
}
