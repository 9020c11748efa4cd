// Package archtest keeps the shape of the code: its test reads the package
// map in docs/architecture.md ("may import") and fails when a package
// imports a dbrig package the map does not allow, or when a package is
// missing from the map. The document and the check cannot drift apart.
package archtest
