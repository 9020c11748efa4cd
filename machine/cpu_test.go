package machine

import (
	"math"
	"testing"
)

const statA = `cpu  1000 0 500 8000 100 0 0 400 0 0
cpu0 500 0 250 4000 50 0 0 200 0 0
cpu1 500 0 250 4000 50 0 0 200 0 0
intr 1 2 3
procs_running 3
`

// 100 ticks later on each of 2 cores (200 in all): 120 busy (steal 20
// included), 80 idle or iowait.
const statB = `cpu  1080 10 510 8060 120 0 0 420 0 0
cpu0 540 5 255 4030 60 0 0 210 0 0
cpu1 540 5 255 4030 60 0 0 210 0 0
procs_running 1
`

// A command name with spaces and a parenthesis; utime 30, stime 10.
const selfA = `4242 (dbrig (x) y) S 1 4242 4242 0 -1 4194560 100 0 0 0 30 10 0 0 20 0 9 0 1000 1000000 100`
const selfB = `4242 (dbrig (x) y) S 1 4242 4242 0 -1 4194560 100 0 0 0 60 20 0 0 20 0 9 0 1000 1000000 100`

func TestParseCPUAndOthers(t *testing.T) {
	a, err := ParseCPU([]byte(statA), []byte(selfA))
	if err != nil {
		t.Fatal(err)
	}
	if a.Cores != 2 || a.Total != 10000 || a.Busy != 1900 || a.Self != 40 {
		t.Fatalf("reading %+v: want 2 cores, total 10000, busy 1900 (idle and iowait out, steal in), self 40", a)
	}
	b, err := ParseCPU([]byte(statB), []byte(selfB))
	if err != nil {
		t.Fatal(err)
	}
	// 120 busy of 200, 40 of them this process's: others 80/200.
	if got := Others(a, b); math.Abs(got-0.4) > 1e-12 {
		t.Errorf("others %.3f, want 0.400", got)
	}
	if got := Others(a, a); got != 0 {
		t.Errorf("others over no time %.3f, want 0", got)
	}
}

func TestParseCPUBadInput(t *testing.T) {
	for _, tc := range []struct{ name, stat, self string }{
		{"no cpu line", "intr 1\n", selfA},
		{"short cpu line", "cpu 1 2\ncpu0 1 2\n", selfA},
		{"no name", statA, "4242 dbrig S 1"},
		{"short self", statA, "4242 (dbrig) S 1 2 3"},
		{"bad counter", "cpu 1 x 3 4\ncpu0 1 2 3 4\n", selfA},
	} {
		if _, err := ParseCPU([]byte(tc.stat), []byte(tc.self)); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}
