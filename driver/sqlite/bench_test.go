package sqlite

import (
	"context"
	"fmt"
	"testing"

	"github.com/dbrig/dbrig/driver/sqltable/sqlbench"
)

// Point reads by 1 and 16 clients over 100k records:
//
//	go test -run '^$' -bench Reads ./driver/sqlite/
func BenchmarkReads(b *testing.B) {
	const records = 100_000
	db := open(b, b.TempDir(), "sqlite.poolsize=16")
	if err := sqlbench.Fill(context.Background(), db, "usertable", records, 1000); err != nil {
		b.Fatal(err)
	}
	for _, clients := range []int{1, 16} {
		b.Run(fmt.Sprintf("all-fields/clients=%d", clients), func(b *testing.B) {
			sqlbench.Reads(b, db, "usertable", records, clients, nil)
		})
		b.Run(fmt.Sprintf("one-field/clients=%d", clients), func(b *testing.B) {
			sqlbench.Reads(b, db, "usertable", records, clients, []string{"field0"})
		})
	}
}

// Bulk load with and without batching; -benchtime sets the record count:
//
//	go test -run '^$' -bench Load -benchtime 200000x ./driver/sqlite/
func BenchmarkLoad(b *testing.B) {
	for _, tc := range []struct {
		name           string
		batch, clients int
	}{
		{"insert-each/clients=1", 1, 1},
		{"insert-each/clients=8", 1, 8},
		{"batch1000/clients=1", 1000, 1},
	} {
		b.Run(tc.name, func(b *testing.B) {
			db := open(b, b.TempDir()) // a fresh file per run
			sqlbench.Load(b, db, "usertable", tc.clients, tc.batch)
		})
	}
}
