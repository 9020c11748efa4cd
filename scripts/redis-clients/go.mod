module github.com/dbrig/dbrig/scripts/redis-clients

go 1.25.0

require (
	github.com/redis/go-redis/v9 v9.14.0
	github.com/redis/rueidis v1.0.59
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/dgryski/go-rendezvous v0.0.0-20200823014737-9f7001d12a5f // indirect
	golang.org/x/sys v0.47.0 // indirect
)
