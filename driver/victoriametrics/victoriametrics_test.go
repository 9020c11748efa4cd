package victoriametrics

import (
	"context"
	"testing"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/drivertest"
	"github.com/dbrig/dbrig/internal/testenv"
)

// TestPoints runs the time-series conformance suite on the server of
// DBRIG_VICTORIAMETRICS_URL (each run writes a measurement of its own).
func TestPoints(t *testing.T) {
	url := testenv.Need(t, "DBRIG_VICTORIAMETRICS_URL")
	drivertest.RunPoints(t, drivertest.PointsHarness{
		Open: func(t *testing.T, _ string) driver.DB {
			p := drivertest.Props("victoriametrics.url", url, "victoriametrics.batchsize", "7")
			return drivertest.Open(t, Open, driver.Config{Props: p, Dir: t.TempDir()})
		},
		Settle:    func(ctx context.Context, db driver.DB) error { return db.(*DB).Flush(ctx) },
		NoReplace: true,
	})
}

func TestSelector(t *testing.T) {
	q := driver.Query{Measurement: "cpu", Field: "user", Series: [][]driver.Tag{
		{{Key: "host", Value: "a.b"}, {Key: "dc", Value: "x"}},
		{{Key: "host", Value: "c"}, {Key: "dc", Value: "x"}},
	}}
	want := `{__name__="cpu_user",dc="x",host=~"a\\.b|c"}`
	if got := selector(q); got != want {
		t.Errorf("selector = %s, want %s", got, want)
	}
}
