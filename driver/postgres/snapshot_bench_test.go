package postgres

import (
	"context"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/internal/benchkit"
)

// The cost of resetting a data set between a rating's experiments, per
// strategy, after an experiment that updated written keys of records
// (DBRIG_RESET_RECORDS, default 100000; DBRIG_RESET_WRITTEN, default 1%):
// reload (clear the table, COPY every record again), a full snapshot
// restore (TRUNCATE + INSERT … SELECT from the image + ANALYZE), and a
// restore of just the written keys (driver.KeyRestorer):
//
//	DBRIG_RESET_RECORDS=1000000 go test -run '^$' -bench Reset -benchtime 3x ./driver/postgres/
func BenchmarkReset(b *testing.B) {
	records := envInt(b, "DBRIG_RESET_RECORDS", 100_000)
	written := envInt(b, "DBRIG_RESET_WRITTEN", records/100)
	ctx := context.Background()
	db := open(b, "pg.url="+schemaURL(b), "pg.poolsize=8")
	const table, image = "usertable", "bench"
	if err := benchkit.Fill(ctx, db, table, records, 1000); err != nil {
		b.Fatal(err)
	}
	if err := db.Snapshot(ctx, table, image); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.DropSnapshot(context.Background(), table, image) })
	r := rand.New(rand.NewPCG(1, 2))
	// dirty writes what an experiment would: updates of written keys.
	dirty := func(b *testing.B) []string {
		b.StopTimer()
		defer b.StartTimer()
		keys := make([]string, written)
		for i := range keys {
			keys[i] = benchkit.Key(r.IntN(records))
			if err := db.Update(ctx, table, keys[i], driver.Record{"field0": []byte("changed by the experiment")}); err != nil {
				b.Fatal(err)
			}
		}
		return keys
	}
	b.Run("reload", func(b *testing.B) {
		for range b.N {
			dirty(b)
			if err := db.Reset(ctx); err != nil {
				b.Fatal(err)
			}
			if err := benchkit.Fill(ctx, db, table, records, 1000); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("snapshot-full", func(b *testing.B) {
		for range b.N {
			dirty(b)
			if err := db.Restore(ctx, table, image); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("snapshot-keys", func(b *testing.B) {
		for range b.N {
			keys := dirty(b)
			if err := db.RestoreKeys(ctx, table, image, keys); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func envInt(b *testing.B, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		b.Fatalf("%s=%q: expected a positive integer", name, v)
	}
	return n
}
