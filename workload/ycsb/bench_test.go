package ycsb

import (
	"bytes"
	"context"
	"testing"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/spec"
)

// nopDB accepts everything and returns nothing, so the benchmarks measure the
// workload's own cost per operation.
type nopDB struct{}

func (nopDB) Read(context.Context, string, string, []string) (driver.Record, error) { return nil, nil }
func (nopDB) Scan(context.Context, string, string, int, []string) ([]driver.Record, error) {
	return nil, nil
}
func (nopDB) Update(context.Context, string, string, driver.Record) error { return nil }
func (nopDB) Insert(context.Context, string, string, driver.Record) error { return nil }
func (nopDB) Delete(context.Context, string, string) error                { return nil }
func (nopDB) Close() error                                                { return nil }
func (nopDB) InsertBatch(context.Context, string, []string, []driver.Record) error {
	return nil
}

func benchWorkload(b *testing.B, file string, kv ...string) *Workload {
	text, _ := Builtin(file)
	p := spec.NewProps()
	if err := p.Load(file, bytes.NewReader(text)); err != nil {
		b.Fatal(err)
	}
	for _, s := range append([]string{"recordcount=10000000"}, kv...) {
		if err := p.SetFlag("-p", s); err != nil {
			b.Fatal(err)
		}
	}
	w, err := New(p)
	if err != nil {
		b.Fatal(err)
	}
	return w
}

// BenchmarkDo is the workload's cost per operation (key choice, key string,
// values) with 10 M records and a DB that does nothing.
func BenchmarkDo(b *testing.B) {
	for _, name := range []string{"workloada", "workloadc", "workloadd", "workloade", "workloadf", "custom"} {
		b.Run(name, func(b *testing.B) {
			c := benchWorkload(b, name).NewClient(0, 1)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Do(ctx, nopDB{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("update-writeall-dataintegrity", func(b *testing.B) {
		c := benchWorkload(b, "workloada", "readproportion=0", "updateproportion=1", "writeallfields=true", "dataintegrity=true").NewClient(0, 1)
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.Do(ctx, nopDB{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkLoad is the cost per record of the load phase (1 KB records), in
// batches of 100.
func BenchmarkLoad(b *testing.B) {
	ctx := context.Background()
	w := benchWorkload(b, "workloada", "recordcount=2000000000")
	c := w.NewClient(0, 1)
	b.ReportAllocs()
	b.SetBytes(1000)
	n := 0
	for b.Loop() {
		if n == 0 {
			var err error
			if n, err = c.Load(ctx, nopDB{}, 100); err != nil || n == 0 {
				b.Fatal(n, err)
			}
		}
		n--
	}
}
