package lineproto

import (
	"strconv"
	"testing"

	"github.com/dbrig/dbrig/driver"
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
