package cassandra

import "github.com/dbrig/dbrig/driver"

const (
	// maxLoadBatch bounds cassandra.loadbatch; loadBatchBytes ends a batch
	// first for larger records.
	maxLoadBatch = 100
	// loadBatchBytes is the keys and values a load batch holds at most:
	// Cassandra warns of a batch above 5 KiB (batch_size_warn_threshold) and
	// counts more than the values (column names, timestamps); four YCSB
	// records of 10 × 100 bytes (≈4.1 KiB) fit, five do not.
	loadBatchBytes = 4608
)

// loadBatches splits the records into the load's requests, as indexes into
// keys: records of one replica set (set; a key it cannot place, ok false,
// goes alone) in batches of at most max records and maxBytes of keys and
// values (a larger record alone), in the order their sets first appear.
func loadBatches(keys []string, values []driver.Record, set func(string) (string, bool), max, maxBytes int) [][]int {
	type open struct {
		idx   []int
		bytes int
	}
	var out [][]int
	pending := map[string]*open{}
	var order []string
	for i, k := range keys {
		size := len(k)
		for _, v := range values[i] {
			size += len(v)
		}
		s, ok := set(k)
		if !ok || max == 1 {
			out = append(out, []int{i})
			continue
		}
		g := pending[s]
		if g != nil && (len(g.idx) >= max || g.bytes+size > maxBytes) {
			out = append(out, g.idx)
			g = nil
		}
		if g == nil {
			g = &open{}
			if pending[s] == nil {
				order = append(order, s)
			}
			pending[s] = g
		}
		g.idx = append(g.idx, i)
		g.bytes += size
	}
	for _, s := range order {
		if g := pending[s]; len(g.idx) > 0 {
			out = append(out, g.idx)
		}
	}
	return out
}
