// Package archtest keeps the shape of the code. layers.go ranks the
// module's packages in layers; the test fails when a package, or one of its
// tests, imports a package of its own layer or above (tests may also use the
// listed test helpers), when a package has no layer, when
// docs/architecture.md's package map disagrees with the ranking, or when
// README.md's layout block is not the one generated from that map
// (go test ./internal/archtest -update rewrites it).
package archtest
