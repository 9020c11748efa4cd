package main

import "runtime/debug"

// benchGCPercent is dbrig's GC target (GOGC): the heap may grow 25 % over
// what is live after a collection instead of Go's default 100 %. dbrig's
// live heap is mostly its latency histograms (~16 MB at 16 clients), and
// the little garbage a run makes (a few hundred KB/s) filled the default
// headroom only after a minute or two: RSS then rose by ~8 MB between the
// first and second minute of a 50,000 ops/s run and stayed there, which
// read as growth. With 25 % the heap reaches its steady size within
// seconds (soak: RSS flat from 30 s on); the price is a collection four
// times as often, each as cheap as before.
const benchGCPercent = 25

// gcPercent is the GC target to set, or -1 to leave Go's: a GOGC in the
// environment (lookup as os.LookupEnv) wins.
func gcPercent(lookup func(string) (string, bool)) int {
	if _, set := lookup("GOGC"); set {
		return -1
	}
	return benchGCPercent
}

// setGC applies gcPercent to this process.
func setGC(lookup func(string) (string, bool)) {
	if p := gcPercent(lookup); p >= 0 {
		debug.SetGCPercent(p)
	}
}
