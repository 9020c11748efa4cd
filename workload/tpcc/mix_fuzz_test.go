package tpcc

import (
	"strings"
	"testing"

	"github.com/dbrig/dbrig/spec"
)

// FuzzMix: any tpcc.mix is either refused with a property error or gives
// five cumulative shares ending at 100.
func FuzzMix(f *testing.F) {
	for _, s := range []string{"45,43,4,4,4", "100,0,0,0,0", " 20, 20 ,20,20,20", "45,43,4,4", "-5,105,0,0,0", "1e2,0,0,0,0", ",,,,", "45,43,4,4,4,0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, mix string) {
		if strings.ContainsAny(mix, "\n\r") {
			return
		}
		p := spec.NewProps()
		p.Set("tpcc.mix", mix, spec.Source{Flag: "-p"})
		w := &Workload{}
		err := w.parseMix(p)
		if err != nil {
			if !strings.Contains(err.Error(), "tpcc.mix") {
				t.Fatalf("error without the property's name: %v", err)
			}
			return
		}
		prev := 0
		for i, cum := range w.mix {
			if cum < prev {
				t.Fatalf("mix %q: cumulative share %d of %v decreases", mix, i, w.mix)
			}
			prev = cum
		}
		if w.mix[mixTxns-1] != 100 {
			t.Fatalf("mix %q accepted with total %d", mix, w.mix[mixTxns-1])
		}
	})
}
