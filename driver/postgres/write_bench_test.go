package postgres

import (
	"context"
	"fmt"
	"testing"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/internal/benchkit"
)

// Updates of one field (workload A's) through the driver, with the clients
// of pgbench's comparison; cpu-µs/op is the client CPU per update:
//
//	go test -run '^$' -bench Updates -benchtime 20000x ./driver/postgres/
//
// Sending them at the protocol level as Read does (pgconn.ExecStatement,
// key as text, values as binary BYTEA) did not pay: 5 alternating rounds
// of 15,000 updates at load 2–3, client CPU per update 24–33 µs against
// 25–34 µs through pgx's Exec at 1 client, 14–17 against 13–16 at 4 and
// 12–15 against 11–15 at 16 clients. Writes stay on pgx's Exec.
func BenchmarkUpdates(b *testing.B) {
	const n = 10_000
	db := open(b, "pg.url="+schemaURL(b), "pg.poolsize=16")
	ctx := context.Background()
	if err := benchkit.Fill(ctx, db, "usertable", n, 1000); err != nil {
		b.Fatal(err)
	}
	rec := driver.Record{"field3": make([]byte, 100)}
	for _, clients := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("driver/clients=%d", clients), func(b *testing.B) {
			benchkit.ParallelEach(b, clients, func(int) (func(i int) error, func()) {
				return func(i int) error { return db.Update(ctx, "usertable", benchkit.Key(i%n), rec) }, func() {}
			})
		})
	}
}
