package ycsb

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/errclass"
	"github.com/dbrig/dbrig/spec"
)

func TestNewBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		kv   []string
		key  string // property the error must name
	}{
		{"fieldcount 0", []string{"recordcount=10", "fieldcount=0"}, "fieldcount"},
		{"fieldcount text", []string{"recordcount=10", "fieldcount=ten"}, "fieldcount"},
		{"fieldlength 0", []string{"recordcount=10", "fieldlength=0"}, "fieldlength"},
		{"minfieldlength > fieldlength", []string{"recordcount=10", "fieldlength=10", "minfieldlength=11"}, "minfieldlength"},
		{"histogram", []string{"recordcount=10", "fieldlengthdistribution=histogram"}, "fieldlengthdistribution"},
		{"unknown field length dist", []string{"recordcount=10", "fieldlengthdistribution=normal"}, "fieldlengthdistribution"},
		{"recordcount negative", []string{"recordcount=-1"}, "recordcount"},
		{"recordcount 0 with reads", []string{"recordcount=0"}, "recordcount"},
		{"insertstart negative", []string{"recordcount=10", "insertstart=-1"}, "insertstart"},
		{"insertstart beyond recordcount", []string{"recordcount=10", "insertstart=11"}, "insertstart"},
		{"insertstart+insertcount > recordcount", []string{"recordcount=10", "insertstart=5", "insertcount=6"}, "insertcount"},
		{"insertcount 0 with reads", []string{"recordcount=10", "insertcount=0"}, "insertcount"},
		{"negative proportion", []string{"recordcount=10", "readproportion=-0.5"}, "readproportion"},
		{"proportion text", []string{"recordcount=10", "scanproportion=half"}, "scanproportion"},
		{"all proportions zero", []string{"recordcount=10", "readproportion=0", "updateproportion=0"}, "readproportion"},
		{"unknown request dist", []string{"recordcount=10", "requestdistribution=pareto"}, "requestdistribution"},
		{"zipfianconstant 1", []string{"recordcount=10", "zipfianconstant=1"}, "zipfianconstant"},
		{"insertorder", []string{"recordcount=10", "insertorder=random"}, "insertorder"},
		{"hotspotdatafraction", []string{"recordcount=10", "hotspotdatafraction=1.5"}, "hotspotdatafraction"},
		{"hotspotopnfraction", []string{"recordcount=10", "hotspotopnfraction=-0.1"}, "hotspotopnfraction"},
		{"hot set empty", []string{"recordcount=3", "requestdistribution=hotspot", "hotspotdatafraction=0.2"}, "hotspotdatafraction"},
		{"exponential.percentile", []string{"recordcount=10", "exponential.percentile=100"}, "exponential.percentile"},
		{"exponential.frac", []string{"recordcount=10", "exponential.frac=0"}, "exponential.frac"},
		{"minscanlength 0", []string{"recordcount=10", "minscanlength=0"}, "minscanlength"},
		{"maxscanlength < minscanlength", []string{"recordcount=10", "minscanlength=10", "maxscanlength=5"}, "maxscanlength"},
		{"scanlengthdistribution", []string{"recordcount=10", "scanlengthdistribution=latest"}, "scanlengthdistribution"},
		{"dataintegrity needs constant", []string{"recordcount=10", "dataintegrity=true", "fieldlengthdistribution=uniform"}, "dataintegrity"},
		{"readallfields", []string{"recordcount=10", "readallfields=yes"}, "readallfields"},
		{"zeropadding", []string{"recordcount=10", "zeropadding=-1"}, "zeropadding"},
		{"table empty", []string{"recordcount=10", "table="}, "table"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := New(props(tc.kv...))
			var pe *spec.PropError
			if !errors.As(err, &pe) {
				t.Fatalf("New = %v, %v; want a *spec.PropError", w, err)
			}
			if pe.Key != tc.key {
				t.Errorf("error names %q, want %q: %v", pe.Key, tc.key, err)
			}
			if !strings.Contains(err.Error(), "expected") {
				t.Errorf("error does not say what was expected: %v", err)
			}
			if _, set := propsLine(tc.kv, tc.key); set && !strings.Contains(err.Error(), "test.properties:") {
				t.Errorf("error does not name file:line: %v", err)
			}
		})
	}
}

func propsLine(kv []string, key string) (int, bool) {
	for i, l := range kv {
		if strings.HasPrefix(l, key+"=") {
			return i + 1, true
		}
	}
	return 0, false
}

func TestNewValid(t *testing.T) {
	for _, kv := range [][]string{
		{"recordcount=0", "readproportion=0", "updateproportion=0", "insertproportion=1"}, // insert-only into nothing
		{"recordcount=10", "insertstart=5", "insertcount=5"},                              // a parallel loader's slice
		{"recordcount=1", "requestdistribution=latest"},
		{"recordcount=10", "fieldlengthdistribution=zipfian", "minfieldlength=0"},
		{"recordcount=10", "requestdistribution=hotspot", "hotspotdatafraction=0", "hotspotopnfraction=0"},
		{"recordcount=10", "zipfianconstant=0.5", "requestdistribution=zipfian"},
	} {
		if _, err := New(props(kv...)); err != nil {
			t.Errorf("%v: %v", kv, err)
		}
	}
}

// TestWorkloadFiles checks the shipped files against YCSB's values and that
// New reads every property they set.
func TestWorkloadFiles(t *testing.T) {
	type mix = [numOps]float64
	want := map[string]struct {
		mix  mix
		dist string
		scan int64
	}{
		"workloada": {mix{0.5, 0.5, 0, 0, 0, 0}, "zipfian", 1000},
		"workloadb": {mix{0.95, 0.05, 0, 0, 0, 0}, "zipfian", 1000},
		"workloadc": {mix{1, 0, 0, 0, 0, 0}, "zipfian", 1000},
		"workloadd": {mix{0.95, 0, 0.05, 0, 0, 0}, "latest", 1000},
		"workloade": {mix{0, 0, 0.05, 0.95, 0, 0}, "zipfian", 100},
		"workloadf": {mix{0.5, 0, 0, 0, 0.5, 0}, "zipfian", 1000},
		"custom":    {mix{0.42, 0.42, 0.16, 0, 0, 0}, "zipfian", 1000},
	}
	names := BuiltinNames()
	if len(names) != len(want) {
		t.Errorf("built-in workloads %v, want %d", names, len(want))
	}
	for name, wt := range want {
		text, ok := Builtin(name)
		if !ok {
			t.Errorf("%s missing", name)
			continue
		}
		p := spec.NewProps()
		if err := p.Load(name, bytes.NewReader(text)); err != nil {
			t.Fatal(err)
		}
		w, err := New(p)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		p.Known("operationcount") // the runner's
		if err := p.Unknown(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if w.proportions != wt.mix || w.requestDist != wt.dist || w.maxScan != wt.scan {
			t.Errorf("%s: mix %v dist %s maxscan %d, want %v %s %d", name, w.proportions, w.requestDist, w.maxScan, wt.mix, wt.dist, wt.scan)
		}
		if w.recordCount != 1000 || w.LoadCount() != 1000 || !w.readAll || w.scanDist != "uniform" {
			t.Errorf("%s: recordcount %d, load %d, readall %v, scan dist %s", name, w.recordCount, w.LoadCount(), w.readAll, w.scanDist)
		}
	}
}

func TestOps(t *testing.T) {
	w, err := New(props("recordcount=1"))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(w.Ops(), ",")
	if want := "READ,UPDATE,INSERT,SCAN,READ-MODIFY-WRITE,DELETE"; got != want {
		t.Errorf("Ops = %s, want %s", got, want)
	}
}

func TestKeys(t *testing.T) {
	fnvAbs := func(v int64) string { // FNV-1a over little-endian bytes, as YCSB's Utils.hash
		h := fnv.New64a()
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], uint64(v))
		h.Write(b[:])
		s := int64(h.Sum64())
		if s < 0 {
			s = -s
		}
		return strconv.FormatInt(s, 10)
	}
	for _, tc := range []struct {
		kv     []string
		keynum int64
		want   string
	}{
		// YCSB's own first keys (seen in every YCSB load with default settings).
		{nil, 0, "user6284781860667377211"},
		{nil, 1, "user8517097267634966620"},
		{nil, 2, "user1820151046732198393"},
		{nil, 12345, "user" + fnvAbs(12345)},
		// From YCSB's documentation of zeropadding.
		{[]string{"insertorder=ordered"}, 5, "user5"},
		{[]string{"insertorder=ordered", "zeropadding=8"}, 5, "user00000005"},
		{[]string{"insertorder=ordered", "zeropadding=3"}, 12345, "user12345"},
		{[]string{"zeropadding=25"}, 0, "user0000006284781860667377211"},
	} {
		w, err := New(props(append([]string{"recordcount=10"}, tc.kv...)...))
		if err != nil {
			t.Fatal(err)
		}
		if got := w.Key(tc.keynum); got != tc.want {
			t.Errorf("%v: Key(%d) = %s, want %s", tc.kv, tc.keynum, got, tc.want)
		}
	}
}

// TestOpMix checks with chi-squared that Do picks operations in proportion.
func TestOpMix(t *testing.T) {
	for _, mix := range [][numOps]float64{
		{0.5, 0.5, 0, 0, 0, 0},
		{0.42, 0.42, 0.16, 0, 0, 0},
		{0.1, 0.2, 0.1, 0.2, 0.3, 0.1},
	} {
		kv := []string{"recordcount=1000", "fieldcount=2", "fieldlength=4"}
		for i, f := range mix {
			kv = append(kv, fmt.Sprintf("%s=%v", proportionKeys[i], f))
		}
		w, err := New(props(kv...))
		if err != nil {
			t.Fatal(err)
		}
		c := w.NewClient(1, 42)
		counts := make([]int64, numOps)
		db := &spyDB{}
		for i := 0; i < 100_000; i++ {
			op, err := c.Do(context.Background(), db)
			if err != nil {
				t.Fatal(err)
			}
			counts[op]++
		}
		var sum float64
		for _, f := range mix {
			sum += f
		}
		pmf := make([]float64, numOps)
		for i, f := range mix {
			pmf[i] = f / sum
		}
		if err := chiSquared(counts, pmf); err != nil {
			t.Errorf("mix %v: counts %v: %v", mix, counts, err)
		}
	}
}

func TestLoad(t *testing.T) {
	for _, tc := range []struct {
		name  string
		batch bool
		max   int
		kv    []string
		first int64
		count int64
	}{
		{"single", false, 1, nil, 0, 500},
		{"batch", true, 64, nil, 0, 500},
		{"max>1 without batch inserter", false, 16, nil, 0, 500},
		{"slice of a parallel load", true, 7, []string{"insertstart=100", "insertcount=150"}, 100, 150},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := New(props(append([]string{"recordcount=500", "fieldcount=3", "fieldlength=20"}, tc.kv...)...))
			if err != nil {
				t.Fatal(err)
			}
			if w.LoadCount() != tc.count {
				t.Errorf("LoadCount = %d, want %d", w.LoadCount(), tc.count)
			}
			mem := newMemDB()
			var db driver.DB = mem
			if tc.batch {
				db = batchDB{mem}
			}
			var wg sync.WaitGroup
			var total sync.Map
			for id := 0; id < 3; id++ {
				wg.Add(1)
				go func(c interface {
					Load(context.Context, driver.DB, int) (int, error)
				}) {
					defer wg.Done()
					n := 0
					for {
						k, err := c.Load(context.Background(), db, tc.max)
						if err != nil {
							t.Error(err)
							return
						}
						if k == 0 {
							break
						}
						if k > tc.max {
							t.Errorf("Load inserted %d > max %d", k, tc.max)
						}
						n += k
					}
					total.Store(c, n)
				}(w.NewClient(id, 1))
			}
			wg.Wait()
			var n int64
			total.Range(func(_, v any) bool { n += int64(v.(int)); return true })
			if n != tc.count || int64(len(mem.rows)) != tc.count {
				t.Fatalf("loaded %d (reported %d), want %d", len(mem.rows), n, tc.count)
			}
			for k := tc.first; k < tc.first+tc.count; k++ {
				r, ok := mem.rows[w.Key(k)]
				if !ok {
					t.Fatalf("record %d (%s) missing", k, w.Key(k))
				}
				if len(r) != 3 || len(r["field0"]) != 20 || len(r["field2"]) != 20 {
					t.Fatalf("record %d: %d fields, field0 %q", k, len(r), r["field0"])
				}
				for _, b := range r["field1"] {
					if b < ' ' || b > '~' {
						t.Fatalf("record %d: value %q is not printable", k, r["field1"])
					}
				}
			}
			// Random values: distinct records differ and all 64 symbols occur.
			symbols := map[byte]bool{}
			for k := tc.first; k < tc.first+tc.count; k++ {
				for _, b := range mem.rows[w.Key(k)]["field0"] {
					symbols[b] = true
				}
			}
			if len(symbols) != 64 || bytes.Equal(mem.rows[w.Key(tc.first)]["field0"], mem.rows[w.Key(tc.first+1)]["field0"]) {
				t.Errorf("values are not random: %d distinct bytes", len(symbols))
			}
			if tc.batch && mem.calls["insert"] != 0 {
				t.Errorf("%d single inserts despite a BatchInserter", mem.calls["insert"])
			}
			if !tc.batch && mem.calls["batch"] != 0 {
				t.Errorf("batch inserts without a BatchInserter")
			}
		})
	}
}

// TestRunSeesOnlyAcknowledgedKeys runs workload D style (latest, inserts)
// from several clients: no read may hit a key whose insert has not finished.
func TestRunSeesOnlyAcknowledgedKeys(t *testing.T) {
	for _, dist := range []string{"latest", "zipfian", "uniform", "exponential", "hotspot", "sequential"} {
		t.Run(dist, func(t *testing.T) {
			w, err := New(props("recordcount=200", "operationcount=4000", "fieldcount=2", "fieldlength=8",
				"readproportion=0.4", "updateproportion=0.2", "insertproportion=0.2", "scanproportion=0.1",
				"readmodifywriteproportion=0.1", "maxscanlength=5", "requestdistribution="+dist))
			if err != nil {
				t.Fatal(err)
			}
			mem := newMemDB()
			ctx := context.Background()
			load := w.NewClient(0, 7)
			for {
				n, err := load.Load(ctx, mem, 50)
				if err != nil {
					t.Fatal(err)
				}
				if n == 0 {
					break
				}
			}
			var wg sync.WaitGroup
			var inserts sync.Map
			for id := 0; id < 4; id++ {
				wg.Add(1)
				go func(id int) {
					defer wg.Done()
					c := w.NewClient(id, 7)
					n := 0
					for i := 0; i < 1000; i++ {
						op, err := c.Do(ctx, mem)
						if err != nil {
							t.Errorf("%s: %v", w.Ops()[op], err)
							return
						}
						if op == OpInsert {
							n++
						}
					}
					inserts.Store(id, n)
				}(id)
			}
			wg.Wait()
			n := 200
			inserts.Range(func(_, v any) bool { n += v.(int); return true })
			if len(mem.rows) != n || w.insertSeq.Last() != int64(n-1) {
				t.Errorf("%d rows, last acknowledged %d; want %d rows", len(mem.rows), w.insertSeq.Last(), n)
			}
		})
	}
}

func TestDataIntegrity(t *testing.T) {
	w, err := New(props("recordcount=20", "fieldcount=4", "fieldlength=50", "dataintegrity=true",
		"readproportion=0.5", "readmodifywriteproportion=0.25", "updateproportion=0.25", "requestdistribution=sequential"))
	if err != nil {
		t.Fatal(err)
	}
	mem := newMemDB()
	ctx := context.Background()
	c := w.NewClient(0, 1).(*Client)
	for {
		n, err := c.Load(ctx, mem, 1)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
	}
	if got, want := string(mem.rows[w.Key(3)]["field2"]), javaDeterministic(w.Key(3), "field2", 50); got != want {
		t.Fatalf("loaded value %q, want YCSB's %q", got, want)
	}
	for i := 0; i < 200; i++ { // all good: reads, updates and RMWs keep the values
		if op, err := c.Do(ctx, mem); err != nil {
			t.Fatalf("%s: %v", w.Ops()[op], err)
		}
	}
	// Corrupt one byte of one field; the next pass over the keys must say so.
	bad := mem.rows[w.Key(7)]["field1"]
	bad[10] ^= 1
	var found []error
	for i := 0; i < 40; i++ {
		op, err := c.Do(ctx, mem)
		if err != nil {
			if op != OpRead && op != OpReadModifyWrite {
				t.Fatalf("%s failed: %v", w.Ops()[op], err)
			}
			found = append(found, err)
			mem.rows[w.Key(7)]["field1"][10] ^= 1 // repair, so there is exactly one report
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d integrity errors, want 1: %v", len(found), found)
	}
	err = found[0]
	if errclass.Of(err) != errclass.Other {
		t.Errorf("class %q, want other", errclass.Of(err))
	}
	for _, s := range []string{"dataintegrity", w.Key(7), "field1"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("message %q does not mention %q", err, s)
		}
	}
	// A missing field is an integrity error too.
	delete(mem.rows[w.Key(0)], "field3")
	if err := c.verify(w.Key(0), nil, mem.rows[w.Key(0)]); errclass.Of(err) != errclass.Other || !strings.Contains(err.Error(), "field3") {
		t.Errorf("missing field: %v", err)
	}
	if err := c.verify(w.Key(0), nil, driver.Record{}); err == nil {
		t.Error("empty read accepted")
	}
}

// javaDeterministic is YCSB's buildDeterministicValue written as the Java
// does it: rehash the whole string every round.
func javaDeterministic(key, field string, size int) string {
	hash := func(s string) int32 {
		var h int32
		for i := 0; i < len(s); i++ {
			h = 31*h + int32(s[i])
		}
		return h
	}
	sb := key + ":" + field
	for len(sb) < size {
		sb += ":"
		sb += strconv.Itoa(int(hash(sb)))
	}
	return sb[:size]
}

func TestDeterministicValue(t *testing.T) {
	for _, tc := range []struct {
		key, field string
		size       int
	}{{"user1", "field0", 100}, {"user6284781860667377211", "field9", 1000}, {"user5", "f", 3}, {"k", "f", 4}} {
		got := string(appendDeterministic([]byte("prefix"), tc.key, tc.field, tc.size))
		if want := "prefix" + javaDeterministic(tc.key, tc.field, tc.size); got != want {
			t.Errorf("%+v:\n got %q\nwant %q", tc, got, want)
		}
	}
}

func TestFieldsAndLengths(t *testing.T) {
	ctx := context.Background()
	t.Run("one field", func(t *testing.T) {
		w, err := New(props("recordcount=100", "readallfields=false", "readproportion=0.5", "updateproportion=0",
			"scanproportion=0.5", "minscanlength=3", "maxscanlength=9", "fieldcount=5", "fieldnameprefix=f"))
		if err != nil {
			t.Fatal(err)
		}
		c := w.NewClient(0, 3)
		db := &spyDB{}
		seen := map[string]bool{}
		for i := 0; i < 2000; i++ {
			op, _ := c.Do(ctx, db)
			if len(db.fields) != 1 || !strings.HasPrefix(db.fields[0], "f") {
				t.Fatalf("%s asked for fields %v", w.Ops()[op], db.fields)
			}
			seen[db.fields[0]] = true
			if op == OpScan && (db.n < 3 || db.n > 9) {
				t.Fatalf("scan length %d outside [3, 9]", db.n)
			}
		}
		if len(seen) != 5 {
			t.Errorf("fields used: %v", seen)
		}
	})
	t.Run("all fields", func(t *testing.T) {
		w, _ := New(props("recordcount=100", "readproportion=1"))
		db := &spyDB{}
		w.NewClient(0, 3).Do(ctx, db)
		if db.fields != nil {
			t.Errorf("readallfields read %v, want nil (all)", db.fields)
		}
	})
	t.Run("update one vs all", func(t *testing.T) {
		for _, tc := range []struct {
			writeAll string
			n        int
		}{{"false", 1}, {"true", 10}} {
			w, _ := New(props("recordcount=100", "readproportion=0", "updateproportion=1", "writeallfields="+tc.writeAll))
			db := &spyDB{}
			w.NewClient(0, 3).Do(ctx, db)
			if len(db.values) != tc.n {
				t.Errorf("writeallfields=%s: update of %d fields, want %d", tc.writeAll, len(db.values), tc.n)
			}
		}
	})
	t.Run("length distributions", func(t *testing.T) {
		for _, dist := range []string{"uniform", "zipfian"} {
			w, _ := New(props("recordcount=100", "readproportion=0", "updateproportion=1", "fieldlengthdistribution="+dist,
				"minfieldlength=5", "fieldlength=50"))
			c := w.NewClient(0, 3)
			db := &spyDB{}
			count := map[int]int{}
			for i := 0; i < 5000; i++ {
				c.Do(ctx, db)
				for _, v := range db.values {
					if len(v) < 5 || len(v) > 50 {
						t.Fatalf("%s: length %d outside [5, 50]", dist, len(v))
					}
					count[len(v)]++
				}
			}
			if dist == "zipfian" && count[5] < 5*count[25] {
				t.Errorf("zipfian lengths not skewed to the minimum: %d of 5, %d of 25", count[5], count[25])
			}
			if dist == "uniform" && (count[5] == 0 || count[50] == 0) {
				t.Errorf("uniform lengths miss an end: %v", count)
			}
		}
	})
}

func TestSeedsAreReproducible(t *testing.T) {
	run := func(seed int64) []string {
		w, err := New(props("recordcount=1000", "readproportion=0.5", "updateproportion=0.5", "requestdistribution=zipfian"))
		if err != nil {
			t.Fatal(err)
		}
		c := w.NewClient(2, seed)
		db := &spyDB{}
		var keys []string
		for i := 0; i < 50; i++ {
			c.Do(context.Background(), db)
			keys = append(keys, db.key)
		}
		return keys
	}
	a, b, other := run(9), run(9), run(10)
	if strings.Join(a, ",") != strings.Join(b, ",") {
		t.Error("same seed, different keys")
	}
	if strings.Join(a, ",") == strings.Join(other, ",") {
		t.Error("different seeds, same keys")
	}
}

func TestDeleteRemovesExistingKeys(t *testing.T) {
	w, err := New(props("recordcount=50", "readproportion=0", "updateproportion=0", "deleteproportion=1",
		"requestdistribution=sequential", "fieldcount=1", "fieldlength=1"))
	if err != nil {
		t.Fatal(err)
	}
	mem := newMemDB()
	c := w.NewClient(0, 1)
	ctx := context.Background()
	for n, _ := c.Load(ctx, mem, 100); n > 0; n, _ = c.Load(ctx, mem, 100) {
	}
	for i := 0; i < 50; i++ {
		if op, err := c.Do(ctx, mem); op != OpDelete || err != nil {
			t.Fatalf("op %d: %s, %v", i, w.Ops()[op], err)
		}
	}
	if len(mem.rows) != 0 {
		t.Errorf("%d rows left after deleting each key once", len(mem.rows))
	}
	if _, err := c.Do(ctx, mem); !errors.Is(err, errclass.ErrNotFound) {
		t.Errorf("delete of a deleted key: %v, want not found", err)
	}
}

func TestDefaults(t *testing.T) {
	// YCSB's CoreWorkload defaults.
	w, err := New(props("recordcount=7"))
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("%s %d %s %d %d %s %v %v %v %v %s %v %v %d %v %v %v %v %d %d %s",
		w.table, len(w.fieldNames), w.fieldNames[9], w.fieldLen, w.minFieldLen, w.fieldLenDist,
		w.readAll, w.writeAll, w.dataIntegrity, w.proportions, w.requestDist, w.zipfConst, w.ordered,
		w.zeroPadding, w.hotData, w.hotOpn, w.expPercentile, w.expFrac, w.minScan, w.maxScan, w.scanDist)
	want := "usertable 10 field9 100 1 constant true false false [0.95 0.05 0 0 0 0] uniform 0.99 false 1 0.2 0.8 95 0.8571428571 1 1000 uniform"
	if got != want {
		t.Errorf("defaults\n got %s\nwant %s", got, want)
	}
	if w.insertStart != 0 || w.insertCount != 7 || w.LoadCount() != 7 {
		t.Errorf("insertstart %d insertcount %d", w.insertStart, w.insertCount)
	}
}

// TestZipfianHottestKey checks the request distribution against YCSB's: the
// scrambled zipfian spans insertcount + expected inserts + 1 items (YCSB's
// max is inclusive), so the hottest record is fnv(0) mod that count.
func TestZipfianHottestKey(t *testing.T) {
	for _, tc := range []struct {
		kv    []string
		items int64
	}{
		{[]string{"operationcount=1000"}, 1001},
		{[]string{"operationcount=1000", "readproportion=0.9", "insertproportion=0.1", "updateproportion=0"}, 1201},
		{[]string{"operationcount=0", "readproportion=0.9", "insertproportion=0.1", "updateproportion=0"}, 1001},
	} {
		w, err := New(props(append([]string{"recordcount=1000", "requestdistribution=zipfian", "insertorder=ordered"}, tc.kv...)...))
		if err != nil {
			t.Fatal(err)
		}
		c := w.NewClient(0, 5)
		db := &spyDB{}
		counts := map[int64]int{}
		for i := 0; i < 20_000; i++ {
			if op, _ := c.Do(context.Background(), db); op != OpRead {
				continue
			}
			k, err := strconv.ParseInt(strings.TrimPrefix(db.key, "user"), 10, 64)
			if err != nil || k < 0 || k > w.insertSeq.Last() {
				t.Fatalf("read of key %q", db.key)
			}
			counts[k]++
		}
		var hottest int64
		for k, n := range counts {
			if n > counts[hottest] {
				hottest = k
			}
		}
		if want := int64(uint64(6284781860667377211) % uint64(tc.items)); hottest != want {
			t.Errorf("%v: hottest record %d, want %d (fnv(0) mod %d)", tc.kv, hottest, want, tc.items)
		}
	}
}

// YCSB users write -P workloads/workloada; without a YCSB checkout that path
// names the built-in copy.
func TestBuiltinByYCSBPath(t *testing.T) {
	a, ok1 := Builtin("workloada")
	b, ok2 := Builtin("workloads/workloada")
	if !ok1 || !ok2 || string(a) != string(b) || !strings.Contains(string(a), "readproportion=0.5") {
		t.Errorf("Builtin(workloada) and Builtin(workloads/workloada) differ or miss (%v %v)", ok1, ok2)
	}
	if _, ok := Builtin("workloadz"); ok {
		t.Error("Builtin found a workload that does not exist")
	}
}
