package sim

import (
	"slices"
	"sort"
	"sync"

	"github.com/dbrig/dbrig/driver"
)

// store is the in-memory data: per table a map for point operations and a
// sorted key index for Scan. Values are copied in and out, so callers may
// reuse their buffers and cannot change stored data behind the store's back.
type store struct {
	mu     sync.RWMutex
	tables map[string]*table
}

type table struct {
	rows map[string]driver.Record
	keys sortedKeys
}

func newStore() *store { return &store{tables: map[string]*table{}} }

func (s *store) read(tbl, key string, fields []string) (driver.Record, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	t := s.tables[tbl]
	if t == nil {
		return nil, false
	}
	r, ok := t.rows[key]
	if !ok {
		return nil, false
	}
	return copyRecord(r, fields), true
}

func (s *store) scan(tbl, start string, n int, fields []string) []driver.Record {
	s.mu.RLock()
	defer s.mu.RUnlock()
	t := s.tables[tbl]
	if t == nil || n <= 0 {
		return nil
	}
	out := make([]driver.Record, 0, min(n, 1024))
	t.keys.ascend(start, func(k string) bool {
		out = append(out, copyRecord(t.rows[k], fields))
		return len(out) < n
	})
	return out
}

// insert writes a whole record, replacing any record under key (upsert, as
// most YCSB bindings do).
func (s *store) insert(tbl, key string, values driver.Record) {
	r := copyRecord(values, nil)
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tables[tbl]
	if t == nil {
		t = &table{rows: map[string]driver.Record{}}
		s.tables[tbl] = t
	}
	if _, ok := t.rows[key]; !ok {
		t.keys.insert(key)
	}
	t.rows[key] = r
}

// update merges values into an existing record.
func (s *store) update(tbl, key string, values driver.Record) bool {
	c := copyRecord(values, nil)
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tables[tbl]
	if t == nil {
		return false
	}
	r, ok := t.rows[key]
	if !ok {
		return false
	}
	for f, v := range c {
		r[f] = v
	}
	return true
}

func (s *store) delete(tbl, key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tables[tbl]
	if t == nil {
		return false
	}
	if _, ok := t.rows[key]; !ok {
		return false
	}
	delete(t.rows, key)
	t.keys.remove(key)
	return true
}

func (s *store) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tables = map[string]*table{}
}

// copyRecord copies the selected fields (all when fields is nil) into one
// buffer: one allocation for the bytes however many fields there are.
func copyRecord(r driver.Record, fields []string) driver.Record {
	size, n := 0, 0
	if fields == nil {
		for _, v := range r {
			size += len(v)
		}
		n = len(r)
	} else {
		for _, f := range fields {
			if v, ok := r[f]; ok {
				size += len(v)
				n++
			}
		}
	}
	out := make(driver.Record, n)
	buf := make([]byte, 0, size)
	put := func(f string, v []byte) {
		i := len(buf)
		buf = append(buf, v...)
		out[f] = buf[i:len(buf):len(buf)]
	}
	if fields == nil {
		for f, v := range r {
			put(f, v)
		}
		return out
	}
	for _, f := range fields {
		if v, ok := r[f]; ok {
			put(f, v)
		}
	}
	return out
}

// chunkMax bounds a chunk of the key index. Inserting shifts at most one
// chunk, and a split inserts one slice header into the chunk list, so loads of
// millions of random keys stay cheap without writing a full B-tree.
const chunkMax = 512

// sortedKeys is an ordered set of keys kept as a list of sorted chunks: a
// two-level B-tree in miniature.
type sortedKeys struct {
	chunks [][]string
}

// find returns the chunk that holds key or would hold it, and the position.
func (s *sortedKeys) find(key string) (ci, pos int) {
	ci = sort.Search(len(s.chunks), func(i int) bool {
		c := s.chunks[i]
		return c[len(c)-1] >= key
	})
	if ci == len(s.chunks) {
		if ci == 0 {
			return 0, 0
		}
		ci--
		return ci, len(s.chunks[ci])
	}
	return ci, sort.SearchStrings(s.chunks[ci], key)
}

// insert adds key, which must not be present.
func (s *sortedKeys) insert(key string) {
	if len(s.chunks) == 0 {
		s.chunks = [][]string{{key}}
		return
	}
	ci, pos := s.find(key)
	c := slices.Insert(s.chunks[ci], pos, key)
	if len(c) <= chunkMax {
		s.chunks[ci] = c
		return
	}
	half := len(c) / 2
	right := slices.Clone(c[half:])
	clear(c[half:]) // drop references the left half no longer owns
	s.chunks[ci] = c[:half]
	s.chunks = slices.Insert(s.chunks, ci+1, right)
}

// remove deletes key, which must be present.
func (s *sortedKeys) remove(key string) {
	ci, pos := s.find(key)
	c := slices.Delete(s.chunks[ci], pos, pos+1)
	if len(c) == 0 {
		s.chunks = slices.Delete(s.chunks, ci, ci+1)
		return
	}
	s.chunks[ci] = c
}

// ascend calls fn for each key >= start in order until fn returns false.
func (s *sortedKeys) ascend(start string, fn func(string) bool) {
	ci, pos := s.find(start)
	for ; ci < len(s.chunks); ci, pos = ci+1, 0 {
		for _, k := range s.chunks[ci][pos:] {
			if !fn(k) {
				return
			}
		}
	}
}

func (s *sortedKeys) len() int {
	n := 0
	for _, c := range s.chunks {
		n += len(c)
	}
	return n
}
